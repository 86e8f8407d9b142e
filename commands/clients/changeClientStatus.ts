import { z } from 'zod';
import { CLIENT_STATUSES, type Client, type ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const changeClientStatusSchema = z
  .object({
    status: z.enum(CLIENT_STATUSES).meta({
      description:
        'active: its keys work; suspended: 403 CLIENT_SUSPENDED (e.g. unpaid, under review); inactive: 403 CLIENT_INACTIVE (closed).',
    }),
  })
  .strict();

export type ChangeClientStatus = z.infer<typeof changeClientStatusSchema>;

/** Setting the status a client already has changes nothing, so a repeated request emits nothing. */
export function decide(command: ChangeClientStatus, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.status === command.status) return [];
  return [
    { type: 'ClientStatusChanged', data: { client_id: meta.id, status: command.status, previous_status: client.status, at: meta.now } },
  ];
}
