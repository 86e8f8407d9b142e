import { z } from 'zod';
import { COMMERCIAL_ACTIVATION_REASONS, type Client, type ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const activateCommercialAccessSchema = z
  .object({
    reason: z
      .enum(COMMERCIAL_ACTIVATION_REASONS)
      .meta({ description: 'payment: the first invoice is paid; staff_authorisation: staff allow active-but-unpaid access.' }),
  })
  .strict();

export type ActivateCommercialAccess = z.infer<typeof activateCommercialAccessSchema>;

/** Ends Evaluation Mode (live keys work from then on); an account already commercial records nothing. */
export function decide(command: ActivateCommercialAccess, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.access_mode.mode === 'commercial') return [];
  return [{ type: 'CommercialAccessActivated', data: { client_id: meta.id, reason: command.reason, at: meta.now } }];
}
