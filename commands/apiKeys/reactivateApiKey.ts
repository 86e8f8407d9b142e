import type { ApiKey, ApiKeyEvent } from '../../src/access/apiKey.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { clientsKey, type KeyOfClient } from './revokeApiKey.js';

/** Reactivating an active key changes nothing; a revoked key stays revoked for good. */
export function decide(command: KeyOfClient, apiKey: ApiKey | null, meta: CommandMeta & { id: number }): ApiKeyEvent[] {
  const key = clientsKey(command, apiKey, meta.id);
  if (key.status === 'revoked') throw new Conflict(`API key ${meta.id} is revoked; a revoked key cannot change status.`);
  if (key.status === 'active') return [];
  return [{ type: 'ApiKeyReactivated', data: { api_key_id: meta.id, client_id: command.client_id, at: meta.now } }];
}
