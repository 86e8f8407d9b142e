import type { Client, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, NotFound } from '../../src/domain/errors.js';

/** Pausing a paused evaluation changes nothing; a commercial account has no evaluation to pause. */
export function decide(_command: Record<string, never>, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.access_mode.mode !== 'evaluation') throw new Conflict(`Client ${meta.id} is not in Evaluation Mode.`);
  if (client.access_mode.paused) return [];
  return [{ type: 'EvaluationPaused', data: { client_id: meta.id, at: meta.now } }];
}
