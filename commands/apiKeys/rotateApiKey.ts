import { z } from 'zod';
import type { ApiKey, ApiKeyEvent } from '../../src/access/apiKey.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { clientsKey, type KeyOfClient } from './revokeApiKey.js';

const DEFAULT_OVERLAP_SECONDS = 86_400;
const MAX_OVERLAP_SECONDS = 30 * 86_400;

export const rotateApiKeySchema = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .optional()
      .meta({
        description: `How long the old key keeps working next to the new one (default ${DEFAULT_OVERLAP_SECONDS}, at most ${MAX_OVERLAP_SECONDS}).`,
      }),
  })
  .strict();

export type RotateApiKey = z.infer<typeof rotateApiKeySchema> & KeyOfClient & { successor_key_id: number };

/** Only an active key that was not rotated before can be rotated; the route checks this before issuing the successor. */
export function assertRotatable(command: KeyOfClient, apiKey: ApiKey | null, keyId: number): ApiKey {
  const key = clientsKey(command, apiKey, keyId);
  if (key.status !== 'active') throw new Conflict(`API key ${keyId} is ${key.status}; only an active key can be rotated.`);
  if (key.successor_key_id !== null) throw new Conflict(`API key ${keyId} was already rotated (to key ${key.successor_key_id}).`);
  return key;
}

export function decide(command: RotateApiKey, apiKey: ApiKey | null, meta: CommandMeta & { id: number }): ApiKeyEvent[] {
  assertRotatable(command, apiKey, meta.id);
  const overlapSeconds = command.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS;
  const rotationEndsAt = new Date(Date.parse(meta.now) + overlapSeconds * 1000).toISOString();
  return [
    {
      type: 'ApiKeyRotated',
      data: {
        api_key_id: meta.id,
        client_id: command.client_id,
        successor_key_id: command.successor_key_id,
        rotation_ends_at: rotationEndsAt,
        at: meta.now,
      },
    },
  ];
}
