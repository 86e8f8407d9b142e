import type { AccessFacts, AccessLookup, AccessSlice } from '../../src/access/accessReferences.js';
import { clientAggregate } from '../../src/access/client.js';
import {
  planChangeRequestAggregate,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { CommandDeps, CommandResult } from '../../src/domain/commandHandler.js';
import { updateWithSlice, type FactsReader } from '../../src/domain/commandSlice.js';
import * as moveClientToPlan from '../clients/moveClientToPlan.js';

/**
 * Taking effect spans two streams, which cannot be appended atomically (nor on EventStoreDB). The request
 * records PlanChangeTookEffect first (confirmPlanChangePayment or authorisePlanChange), then the client is
 * moved (moveClientToPlan): a failure in between leaves a request that says effective and a client not yet
 * moved, never a client moved without a record of why. Both steps are no-ops once done, so calling this
 * again finishes the job.
 */
export async function makePlanChangeEffective(
  deps: CommandDeps,
  facts: FactsReader<AccessLookup, AccessFacts>,
  request: {
    slice: AccessSlice<PlanChangeOfClient, PlanChangeRequest | null, PlanChangeRequestEvent>;
    clientId: number;
    requestId: number;
    expectedRevision?: number;
    actor: string;
  },
): Promise<CommandResult<PlanChangeRequest | null, PlanChangeRequestEvent>> {
  const result = await updateWithSlice(deps, facts, {
    aggregate: planChangeRequestAggregate,
    id: request.requestId,
    ...(request.expectedRevision === undefined ? {} : { expectedRevision: request.expectedRevision }),
    actor: request.actor,
    command: { client_id: request.clientId },
    slice: request.slice,
  });
  await updateWithSlice(deps, facts, {
    aggregate: clientAggregate,
    id: request.clientId,
    actor: request.actor,
    command: { plan_id: result.state!.to_plan_id },
    slice: moveClientToPlan,
  });
  return result;
}
