import type { ApiKey, ApiKeyEvent } from '../../src/access/apiKey.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

/** The client named in the path: a key is changed only through the client it belongs to. */
export interface KeyOfClient {
  client_id: number;
}

/** Another client's key is answered as missing, so a client id cannot be used to probe key ids. */
export function clientsKey(command: KeyOfClient, apiKey: ApiKey | null, keyId: number): ApiKey {
  if (!apiKey || apiKey.client_id !== command.client_id) {
    throw new NotFound(`API key ${keyId} of client ${command.client_id} does not exist.`);
  }
  return apiKey;
}

/** Revoking a revoked key changes nothing, so a repeated request is safe and emits nothing. */
export function decide(command: KeyOfClient, apiKey: ApiKey | null, meta: CommandMeta & { id: number }): ApiKeyEvent[] {
  if (clientsKey(command, apiKey, meta.id).status === 'revoked') return [];
  return [{ type: 'ApiKeyRevoked', data: { api_key_id: meta.id, client_id: command.client_id, at: meta.now } }];
}
