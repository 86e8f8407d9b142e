import type { Client, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

/**
 * Issued by the service when a plan change takes effect, not by a request: the plan was checked when the
 * change took effect, and the move is finished whatever the plan's state since (see takeEffect).
 */
export interface MoveClientToPlan {
  plan_id: number;
}

/** A client already on the plan is not moved again, so finishing a move twice is harmless. */
export function decide(command: MoveClientToPlan, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.plan_id === command.plan_id) return [];
  return [{ type: 'ClientRevised', data: { client_id: meta.id, changes: { plan_id: command.plan_id }, at: meta.now } }];
}
