import { z } from 'zod';
import { approvableRequest, approvePlanChangeSchema, decide as approvePlanChange } from '../../../commands/planChanges/approvePlanChange.js';
import { decide as authorisePlanChange } from '../../../commands/planChanges/authorisePlanChange.js';
import { decide as cancelPlanChange } from '../../../commands/planChanges/cancelPlanChange.js';
import { decide as confirmPlanChangePayment } from '../../../commands/planChanges/confirmPlanChangePayment.js';
import { decide as rejectPlanChange, rejectPlanChangeSchema } from '../../../commands/planChanges/rejectPlanChange.js';
import { decide as startPlanChangeReview } from '../../../commands/planChanges/startPlanChangeReview.js';
import { decide as submitPlanChange, submitPlanChangeSchema } from '../../../commands/planChanges/submitPlanChange.js';
import { decide as moveClientToPlan } from '../../../commands/clients/moveClientToPlan.js';
import { clientAggregate } from '../../access/client.js';
import { planAggregate, planKeySchema, type Plan } from '../../access/plan.js';
import {
  clientsPlanChange,
  PLAN_CHANGE_EFFECT_REASONS,
  PLAN_CHANGE_STATUSES,
  planChangeRequestAggregate,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../access/planChangeRequest.js';
import { createAggregate, loadAggregate, staleRevision, updateAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import type { CommandMeta } from '../../domain/decider.js';
import { Conflict, NotFound } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { activePlanId, existingClient } from './accessReferences.js';
import { clientParams, idSchema, pathId, revisionSchema, timestampSchema } from './adminSchemas.js';

const PLAN_CHANGES = 'Plan changes';

// Representations.

const minorUnitsSchema = z.number().int().nonnegative().meta({ description: "In the currency's minor unit (fils, cents)." });

const invoiceSchema = z
  .object({
    number: z.string().meta({ description: 'Allocated by the service, in issue order.', example: 'INV-000042' }),
    currency: z.string().meta({ description: 'ISO 4217 currency code.', example: 'AED' }),
    lines: z.array(
      z.object({
        description: z.string(),
        quantity: z.number().int().positive(),
        unit_amount: minorUnitsSchema,
        amount: minorUnitsSchema.meta({ description: "quantity × unit_amount, in the currency's minor unit." }),
      }),
    ),
    total: minorUnitsSchema.meta({ description: "The sum of the line amounts, in the currency's minor unit." }),
    issued_at: timestampSchema,
  })
  .meta({ id: 'AdminPlanChangeInvoice', description: 'The itemized invoice issued on approval.' });

const planChangeResponseSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    client_id: idSchema,
    status: z.enum(PLAN_CHANGE_STATUSES).meta({
      description:
        'submitted → under_review → approved (invoiced) → effective; rejected (before approval) and cancelled (before approval) end it too.',
    }),
    from_plan: planKeySchema.meta({ description: 'The plan the client was on when it asked.' }),
    from_plan_id: idSchema,
    to_plan: planKeySchema.meta({ description: 'The plan asked for; the client is moved to it when the change takes effect.' }),
    to_plan_id: idSchema,
    note: z.string().nullable(),
    submitted_at: timestampSchema,
    invoice: invoiceSchema.nullable().meta({ description: 'Issued on approval; null before.' }),
    rejection_reason: z.string().nullable(),
    effective_via: z.enum(PLAN_CHANGE_EFFECT_REASONS).nullable().meta({ description: 'payment, or staff authorising active-but-unpaid; null until effective.' }),
    effective_at: timestampSchema.nullable(),
  })
  .meta({ id: 'AdminPlanChangeRequest', description: "A client's request to move to another plan; its access is unchanged until it is effective." });

async function planOf(eventStore: EventStore, id: number): Promise<Plan> {
  const plan = (await loadAggregate(eventStore, planAggregate, id))?.state;
  if (!plan) throw new Error(`A plan change request names plan ${id}, which does not exist.`);
  return plan;
}

async function planChangeRepresentation(eventStore: EventStore, id: number, loaded: LoadedAggregate<PlanChangeRequest | null>): Promise<AdminRouteResult> {
  const request = loaded.state;
  if (!request) throw new NotFound();
  const data: z.input<typeof planChangeResponseSchema> = {
    id,
    revision: loaded.revision,
    ...request,
    from_plan: (await planOf(eventStore, request.from_plan_id)).key,
    to_plan: (await planOf(eventStore, request.to_plan_id)).key,
  };
  return { data, revision: loaded.revision };
}

// References.

async function loadClientsRequest(eventStore: EventStore, clientId: number, requestId: number): Promise<LoadedAggregate<PlanChangeRequest | null>> {
  const loaded = await loadAggregate(eventStore, planChangeRequestAggregate, requestId);
  clientsPlanChange({ client_id: clientId }, loaded?.state ?? null, requestId);
  return loaded!;
}

// Routes.

const requestParams = z.object({ clientId: pathId, requestId: pathId }).strict();

/**
 * Access is not altered here: the request is only recorded. If-Match, when sent, is compared with the
 * client's revision, so the request is based on the plan the caller saw the client on.
 */
const submitPlanChangeRoute: AdminRoute<typeof clientParams, typeof submitPlanChangeSchema> = {
  method: 'post',
  path: '/clients/:clientId/plan-changes',
  operationId: 'submitPlanChange',
  summary: "Submit a request to move a client to another active plan (its access is unchanged until the change is effective)",
  tag: PLAN_CHANGES,
  params: clientParams,
  body: submitPlanChangeSchema,
  successStatus: 201,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const client = await existingClient(deps.eventStore, params.clientId);
    if (expectedRevision !== undefined && expectedRevision !== client.revision) throw staleRevision(expectedRevision, client.revision);
    const command = {
      client_id: params.clientId,
      from_plan_id: client.state.plan_id,
      to_plan_id: await activePlanId(deps.eventStore, body.plan),
      note: body.note,
    };
    const result = await createAggregate(deps, {
      aggregate: planChangeRequestAggregate,
      idSequence: planChangeRequestAggregate.category,
      actor,
      decide: (state, meta) => submitPlanChange(command, state, meta),
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
};

const getPlanChangeRoute: AdminRoute<typeof requestParams> = {
  method: 'get',
  path: '/clients/:clientId/plan-changes/:requestId',
  operationId: 'getPlanChange',
  summary: "Read one of a client's plan change requests, with its invoice once approved",
  tag: PLAN_CHANGES,
  params: requestParams,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params }, deps) {
    return planChangeRepresentation(deps.eventStore, params.requestId, await loadClientsRequest(deps.eventStore, params.clientId, params.requestId));
  },
};

type PlanChangeDecide<Body> = (
  command: Body & PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
) => PlanChangeRequestEvent[];

/** Without a body schema the route takes none (or an empty object), as every bodiless admin action does. */
const noBody = z.object({}).strict();

const planChangeCommand = <Body extends z.ZodType = typeof noBody>(options: {
  action: string;
  operationId: string;
  summary: string;
  body?: Body;
  decide: PlanChangeDecide<z.infer<Body>>;
}): AdminRoute<typeof requestParams, Body> => ({
  method: 'post',
  path: `/clients/:clientId/plan-changes/:requestId/${options.action}`,
  operationId: options.operationId,
  summary: options.summary,
  tag: PLAN_CHANGES,
  params: requestParams,
  ...(options.body ? { body: options.body } : {}),
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateAggregate(deps, {
      aggregate: planChangeRequestAggregate,
      id: params.requestId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      decide: (state, meta) => options.decide({ ...(body ?? {}), client_id: params.clientId } as z.infer<Body> & PlanChangeOfClient, state, meta),
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
});

const startPlanChangeReviewRoute = planChangeCommand({
  action: 'review',
  operationId: 'startPlanChangeReview',
  summary: 'Start the staff review of a submitted plan change request (no-op when already under review)',
  decide: startPlanChangeReview,
});

const rejectPlanChangeRoute = planChangeCommand({
  action: 'reject',
  operationId: 'rejectPlanChange',
  summary: 'Reject a plan change request that is submitted or under review, with the reason',
  body: rejectPlanChangeSchema,
  decide: rejectPlanChange,
});

const cancelPlanChangeRoute = planChangeCommand({
  action: 'cancel',
  operationId: 'cancelPlanChange',
  summary: 'Withdraw a plan change request before it is approved (no-op when already cancelled)',
  decide: cancelPlanChange,
});

/**
 * The status is checked before the invoice number is allocated, so a refused approval leaves no gap in
 * the invoice numbers; the append then expects the revision checked, so nothing slips in between.
 */
const approvePlanChangeRoute: AdminRoute<typeof requestParams, typeof approvePlanChangeSchema> = {
  method: 'post',
  path: '/clients/:clientId/plan-changes/:requestId/approve',
  operationId: 'approvePlanChange',
  summary: 'Approve a plan change request under review and issue its itemized invoice (access is still unchanged)',
  tag: PLAN_CHANGES,
  params: requestParams,
  body: approvePlanChangeSchema,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const loaded = await loadClientsRequest(deps.eventStore, params.clientId, params.requestId);
    approvableRequest({ client_id: params.clientId }, loaded.state, params.requestId);
    const result = await updateAggregate(deps, {
      aggregate: planChangeRequestAggregate,
      id: params.requestId,
      expectedRevision: expectedRevision ?? loaded.revision,
      actor,
      allocate: ['invoice'],
      decide: (state, meta) => approvePlanChange({ ...body, client_id: params.clientId }, state, meta),
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
};

/**
 * Taking effect spans two streams, which cannot be appended atomically (nor on EventStoreDB). The
 * request records PlanChangeTookEffect first, then the client is moved with ClientRevised: a failure in
 * between leaves a request that says effective and a client not yet moved, never a client moved
 * without a record of why. An effective request emits nothing again and the client is moved only if
 * it is not on the plan already, so calling the route again finishes the job and is otherwise a no-op.
 * The plan must still be active for the change to take effect, or the client's keys would be left with
 * nothing (403 PLAN_INACTIVE); once effective, the move is finished whatever the plan's state.
 */
const takeEffectRoute = (options: {
  action: string;
  operationId: string;
  summary: string;
  decide: PlanChangeDecide<object>;
}): AdminRoute<typeof requestParams> => ({
  method: 'post',
  path: `/clients/:clientId/plan-changes/:requestId/${options.action}`,
  operationId: options.operationId,
  summary: options.summary,
  tag: PLAN_CHANGES,
  params: requestParams,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, expectedRevision, actor }, deps) {
    const loaded = await loadClientsRequest(deps.eventStore, params.clientId, params.requestId);
    const request = loaded.state!;
    if (request.status === 'approved') {
      const plan = await planOf(deps.eventStore, request.to_plan_id);
      if (!plan.active) {
        throw new Conflict(`Plan '${plan.key}' is no longer active; reactivate it before the change takes effect.`, {
          plan: plan.key,
          plan_active: false,
        });
      }
    }
    const result = await updateAggregate(deps, {
      aggregate: planChangeRequestAggregate,
      id: params.requestId,
      expectedRevision: expectedRevision ?? loaded.revision,
      actor,
      decide: (state, meta) => options.decide({ client_id: params.clientId }, state, meta),
    });
    await updateAggregate(deps, {
      aggregate: clientAggregate,
      id: params.clientId,
      actor,
      decide: (state, meta) => moveClientToPlan({ plan_id: request.to_plan_id }, state, meta),
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
});

const confirmPlanChangePaymentRoute = takeEffectRoute({
  action: 'confirm-payment',
  operationId: 'confirmPlanChangePayment',
  summary: "Confirm payment of an approved plan change's invoice: it takes effect and the client moves to the new plan",
  decide: confirmPlanChangePayment,
});

const authorisePlanChangeRoute = takeEffectRoute({
  action: 'authorise',
  operationId: 'authorisePlanChange',
  summary: 'Authorise an approved plan change active-but-unpaid: it takes effect and the client moves to the new plan',
  decide: authorisePlanChange,
});

/** Admin operations on plan change requests: submitted, reviewed, approved (invoiced), then effective. */
export const planChangeRoutes: AdminRoute[] = [
  submitPlanChangeRoute,
  getPlanChangeRoute,
  startPlanChangeReviewRoute,
  approvePlanChangeRoute,
  rejectPlanChangeRoute,
  cancelPlanChangeRoute,
  confirmPlanChangePaymentRoute,
  authorisePlanChangeRoute,
];
