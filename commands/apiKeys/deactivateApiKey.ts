import type { ApiKey, ApiKeyEvent } from '../../src/access/apiKey.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { clientsKey, type KeyOfClient } from './revokeApiKey.js';

/**
 * A deactivated key is refused with API_KEY_INACTIVE until it is reactivated; unlike revocation this is
 * reversible. Deactivating an inactive key changes nothing.
 */
export function decide(command: KeyOfClient, apiKey: ApiKey | null, meta: CommandMeta & { id: number }): ApiKeyEvent[] {
  const key = clientsKey(command, apiKey, meta.id);
  if (key.status === 'revoked') throw new Conflict(`API key ${meta.id} is revoked; a revoked key cannot change status.`);
  if (key.status === 'inactive') return [];
  return [{ type: 'ApiKeyDeactivated', data: { api_key_id: meta.id, client_id: command.client_id, at: meta.now } }];
}
