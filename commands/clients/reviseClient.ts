import { z } from 'zod';
import type { Client, ClientEvent } from '../../src/access/client.js';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import { clientNameSchema, clientPlanSchema } from './registerClient.js';

/** Every field is optional; null for scopes or entitlements drops the client's own list in favour of the plan's. */
export const reviseClientSchema = z
  .object({
    name: clientNameSchema,
    plan: clientPlanSchema,
    scopes: scopeListSchema.nullable(),
    entitlements: entitlementListSchema.nullable(),
    limits: planLimitsSchema.nullable(),
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

/** The body with a new plan key resolved to the plan's id (by the route, which checks that the plan is active). */
export type ReviseClient = Omit<z.infer<typeof reviseClientSchema>, 'plan'> & { plan_id?: number };

export function decide(command: ReviseClient, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  requireSomeField(command);
  const changes = changedFields(client, {
    ...command,
    ...(command.scopes ? { scopes: scopesInSpecOrder(command.scopes) } : {}),
    ...(command.entitlements ? { entitlements: entitlementsInSpecOrder(command.entitlements) } : {}),
  });
  if (!hasChanges(changes)) return [];
  return [{ type: 'ClientRevised', data: { client_id: meta.id, changes, at: meta.now } }];
}
