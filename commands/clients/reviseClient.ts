import { z } from 'zod';
import { activePlanId, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import type { Client, ClientEvent } from '../../src/access/client.js';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import { clientNameSchema, clientPdfFields, clientPlanSchema } from './registerClient.js';

/** Every field is optional; null for scopes or entitlements drops the client's own list in favour of the plan's. */
export const reviseClientSchema = z
  .object({
    name: clientNameSchema,
    plan: clientPlanSchema,
    scopes: scopeListSchema.nullable(),
    entitlements: entitlementListSchema.nullable(),
    limits: planLimitsSchema.nullable(),
    ...clientPdfFields,
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type ReviseClient = z.infer<typeof reviseClientSchema>;

/** The plan a move names by key, if any. */
export function references(command: ReviseClient): AccessLookup {
  return { planKeys: command.plan === undefined ? [] : [command.plan] };
}

/** A client moves only to an active plan (422 naming body.plan, before anything else is looked at). */
export function decide(
  command: ReviseClient,
  client: Client | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): ClientEvent[] {
  const { plan, ...fields } = command;
  const move = plan === undefined ? {} : { plan_id: activePlanId(plan, meta.references) };
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  requireSomeField(command);
  const changes = changedFields(client, {
    ...fields,
    ...move,
    ...(command.scopes ? { scopes: scopesInSpecOrder(command.scopes) } : {}),
    ...(command.entitlements ? { entitlements: entitlementsInSpecOrder(command.entitlements) } : {}),
  });
  if (!hasChanges(changes)) return [];
  return [{ type: 'ClientRevised', data: { client_id: meta.id, changes, at: meta.now } }];
}
