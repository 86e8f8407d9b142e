import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_LIMITS, limitPolicyOf } from '../../src/limits/planLimits.js';
import { accessProjection } from '../../projections/access.js';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { API_KEY_PATTERN, apiKeyHint, generateApiKey, hashApiKey } from '../../src/access/apiKeys.js';
import { lookupAccess } from '../../src/http/lookupAccess.js';
import type { ApiKeyEvent } from '../../src/access/apiKey.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import {
  apiKeyEvent,
  clientEvent,
  clientRegistered,
  minute,
  planDefined,
  planEvent,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

const liveKey = generateApiKey('live');
const testKey = generateApiKey('test');
const revokedKey = generateApiKey('live');
const neverIssued = generateApiKey('live');
/** Recorded as a test key although its prefix says live: only a corrupted log could hold this. */
const mislabelledKey = generateApiKey('live');
const orphanKey = generateApiKey('test');
const inactivePlanKey = generateApiKey('live');

function issued(id: number, clientId: number, key: string, environment = key.startsWith('svc_live_') ? 'live' : 'test'): StreamEvent {
  const event = {
    type: 'ApiKeyIssued',
    data: { api_key_id: id, client_id: clientId, environment, key_hash: hashApiKey(key), hint: apiKeyHint(key), at: minute(1) },
  } as ApiKeyEvent;
  return apiKeyEvent(event);
}

let readStore: ReadStore;

beforeAll(async () => {
  readStore = createEmbeddedReadStore();
  const history = await recorded([
    planDefined(1, { key: 'professional', scopes: ['projects:read', 'media:read'], entitlements: ['images', 'floorplans'] }),
    planDefined(2, { key: 'paused', scopes: [...SCOPES], entitlements: [...ENTITLEMENTS] }),
    clientRegistered(1, { plan_id: 1 }),
    clientRegistered(2, { plan_id: 1, scopes: ['states:read'] }),
    clientRegistered(3, { plan_id: 2 }),
    issued(1, 1, liveKey),
    issued(2, 2, testKey),
    issued(3, 1, revokedKey),
    apiKeyEvent({ type: 'ApiKeyRevoked', data: { api_key_id: 3, client_id: 1, at: minute(2) } }),
    issued(4, 1, mislabelledKey, 'test'),
    issued(5, 99, orphanKey),
    issued(6, 3, inactivePlanKey),
    planEvent({ type: 'PlanRevised', data: { plan_id: 2, changes: { active: false }, at: minute(3) } }),
    clientEvent({ type: 'ClientRevised', data: { client_id: 1, changes: { name: 'Renamed' }, at: minute(4) } }),
  ]);
  await projectInBatches(readStore, accessProjection, history, 4);
});

afterAll(() => readStore.close());

describe('lookupAccess', () => {
  it("when a live key is presented, then the context holds its client, key, plan and the plan's grants as sets", async () => {
    await expect(lookupAccess(readStore, liveKey)).resolves.toEqual({
      clientId: 1,
      keyId: 1,
      environment: 'live',
      plan: 'professional',
      scopes: new Set(['projects:read', 'media:read']),
      entitlements: new Set(['images', 'floorplans']),
      requestSigning: false,
      networkControls: { domain: null, ip_allow: [], ip_deny: [] },
      liveDomain: null,
      restriction: null,
      evaluation: null,
      detailFields: null,
      limitPolicy: limitPolicyOf(DEFAULT_PLAN_LIMITS, 'live'),
    });
  });

  it("when a test key of a client with its own scopes is presented, then its own scopes replace the plan's", async () => {
    const access = await lookupAccess(readStore, testKey);
    expect(access).toMatchObject({ clientId: 2, keyId: 2, environment: 'test', plan: 'professional' });
    expect([...access!.scopes]).toEqual(['states:read']);
    expect([...access!.entitlements]).toEqual(['images', 'floorplans']);
  });

  it("when the key's plan is inactive, then the key verifies and is refused with PLAN_INACTIVE", async () => {
    await expect(lookupAccess(readStore, inactivePlanKey)).rejects.toMatchObject({ status: 403, code: 'PLAN_INACTIVE' });
  });

  it('when a revoked key is presented, then it verifies and is refused with API_KEY_REVOKED', async () => {
    await expect(lookupAccess(readStore, revokedKey)).rejects.toMatchObject({ status: 403, code: 'API_KEY_REVOKED' });
  });

  it.each([
    ['never issued', neverIssued],
    ['recorded for the other environment', mislabelledKey],
    ['of a client that does not exist', orphanKey],
    ['the live key under the test prefix', liveKey.replace('svc_live_', 'svc_test_')],
    ['the test key under the live prefix', testKey.replace('svc_test_', 'svc_live_')],
    ['with another prefix', liveKey.replace('svc_live_', 'sk_live_')],
    ['upper-cased prefix', liveKey.replace('svc_live_', 'SVC_LIVE_')],
    ['one character short', liveKey.slice(0, -1)],
    ['one character long', `${liveKey}A`],
    ['with a trailing newline', `${liveKey}\n`],
    ['with surrounding spaces', ` ${liveKey} `],
    ['with standard base64 characters', `svc_live_${'+/'.repeat(21)}A`],
    ['with a last character 32 bytes cannot end in', `${liveKey.slice(0, -1)}B`],
    ['empty', ''],
    ['only a prefix', 'svc_live_'],
    ['a megabyte long', `svc_live_${'A'.repeat(1_048_576)}`],
    ['with a NUL byte', `${liveKey.slice(0, -2)}\u0000${liveKey.slice(-1)}`],
    ['made of emoji', '🔑'.repeat(30)],
  ])('when a key %s is presented, then there is no access', async (_case, key) => {
    await expect(lookupAccess(readStore, key)).resolves.toBeNull();
  });

  it('when any value is presented, then the read store is asked once per 401 (missing, malformed or unknown alike) and twice for a known key', async () => {
    const calls: string[] = [];
    const counting = new Proxy(readStore, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function'
          ? (...args: unknown[]) => {
              calls.push(String(property));
              return value.apply(target, args);
            }
          : value;
      },
    });
    await lookupAccess(counting, liveKey);
    expect(calls).toEqual(['get', 'get']);
    calls.length = 0;
    for (const presented of ['not a key', '', `svc_live_${'A'.repeat(43)}`]) {
      await lookupAccess(counting, presented);
      expect(calls, `${presented} costs the same one lookup`).toEqual(['get']);
      calls.length = 0;
    }
  });

  it('when keys are generated, then each has the exact well-formed shape and they differ', () => {
    const keys = Array.from({ length: 200 }, (_, index) => generateApiKey(index % 2 === 0 ? 'live' : 'test'));
    for (const key of keys) {
      expect(key).toMatch(API_KEY_PATTERN);
      expect(key).toMatch(/^svc_(live|test)_[A-Za-z0-9_-]{43}$/);
    }
    expect(new Set(keys).size).toBe(keys.length);
    expect(hashApiKey(keys[0]!)).toMatch(/^[0-9a-f]{64}$/);
  });
});
