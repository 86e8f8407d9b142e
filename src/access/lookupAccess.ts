import { ACCESS_CLIENTS, ACCESS_KEYS, type AccessClientDoc, type AccessKeyDoc } from '../../projections/access.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { AccessContext } from './accessContext.js';
import { environmentOfApiKey, hashApiKey } from './apiKeys.js';

/**
 * What a presented key grants, or null when it grants nothing: not a well-formed key, unknown, revoked, its
 * prefix naming another environment than it was issued for, or no active client behind it. Callers answer
 * every null with the same 401. Runs on every request: a hash and two `get`s.
 *
 * The key is found by equality on its SHA-256 hash rather than compared in constant time: timing can at
 * most reveal something about a hash, and finding a key from its hash means inverting SHA-256.
 */
export async function lookupAccess(readStore: ReadStore, presentedKey: string): Promise<AccessContext | null> {
  const environment = environmentOfApiKey(presentedKey);
  if (environment === null) return null;
  const key = await readStore.get<AccessKeyDoc>(ACCESS_KEYS, hashApiKey(presentedKey));
  if (!key || key.status !== 'active' || key.environment !== environment) return null;
  const client = await readStore.get<AccessClientDoc>(ACCESS_CLIENTS, key.client_id);
  if (!client || client.status !== 'active') return null;
  const grants = grantsOf(client);
  return { clientId: client.id, keyId: key.id, environment, plan: client.plan, ...grants };
}

/**
 * The client's grants as sets, made once per stored client document: the embedded store hands out the
 * same frozen document until it changes, so every request of a client shares them.
 */
const grantsByClient = new WeakMap<AccessClientDoc, Pick<AccessContext, 'scopes' | 'entitlements'>>();

function grantsOf(client: AccessClientDoc): Pick<AccessContext, 'scopes' | 'entitlements'> {
  let grants = grantsByClient.get(client);
  if (!grants) {
    grants = { scopes: new Set(client.scopes), entitlements: new Set(client.entitlements) };
    grantsByClient.set(client, grants);
  }
  return grants;
}
