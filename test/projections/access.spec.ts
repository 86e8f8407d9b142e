import { describe, expect, it } from 'vitest';
import { ACCESS_CLIENTS, ACCESS_KEYS, ACCESS_PLANS, accessProjection, accountTokenExists } from '../../projections/access.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import {
  apiKeyEvent,
  apiKeyIssued,
  clientEvent,
  clientRegistered,
  keyHashOf,
  minute,
  planDefined,
  planEvent,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

/** A starter plan, three clients on it (the third with its own entitlements) and a key of the first. */
const accessCatalogue = (): StreamEvent[] => [
  planDefined(1, { key: 'starter', scopes: ['projects:read', 'developers:read'], entitlements: ['images'] }),
  planDefined(2, { key: 'enterprise', scopes: ['projects:read', 'webhooks:manage'], entitlements: ['images', 'webhooks'] }),
  clientRegistered(1, { name: 'Marina Homes', plan_id: 1 }),
  clientRegistered(2, { plan_id: 1 }),
  clientRegistered(3, { plan_id: 1, entitlements: ['floorplans'] }),
  apiKeyIssued(1, 1, 'live', minute(1)),
];

async function projected(events: StreamEvent[]) {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, accessProjection, await recorded([...accessCatalogue(), ...events]), 3);
  return readStore;
}

describe('access read model', () => {
  it('when a client is registered and a key issued, then the key is found by its hash and the client holds its effective grants', async () => {
    const readStore = await projected([]);
    expect(await readStore.get(ACCESS_KEYS, keyHashOf(1))).toEqual({
      _id: keyHashOf(1),
      id: 1,
      client_id: 1,
      environment: 'live',
      hint: 'svc_live_k001…',
      status: 'active',
      issued_at: minute(1),
      expires_at: null,
      revoked_at: null,
      successor_key_id: null,
      rotation_ends_at: null,
      _position: expect.any(Number),
    });
    expect(await readStore.get(ACCESS_CLIENTS, 1)).toMatchObject({
      id: 1,
      name: 'Marina Homes',
      plan_id: 1,
      plan: 'starter',
      status: 'active',
      scope_overrides: null,
      entitlement_overrides: null,
      scopes: ['projects:read', 'developers:read'],
      entitlements: ['images'],
    });
    expect(await readStore.get(ACCESS_PLANS, 1)).toMatchObject({ key: 'starter', active: true });
  });

  it('when a plan is revised, then every client on it gets the new lists except where it has its own', async () => {
    const readStore = await projected([
      planEvent({
        type: 'PlanRevised',
        data: { plan_id: 1, changes: { scopes: ['projects:read', 'faqs:read'], entitlements: ['images', 'brochures'] }, at: minute(2) },
      }),
    ]);
    const grants = async (id: number) => {
      const { scopes, entitlements } = (await readStore.get(ACCESS_CLIENTS, id))!;
      return { scopes, entitlements };
    };
    expect(await grants(1)).toEqual({ scopes: ['projects:read', 'faqs:read'], entitlements: ['images', 'brochures'] });
    expect(await grants(2)).toEqual({ scopes: ['projects:read', 'faqs:read'], entitlements: ['images', 'brochures'] });
    expect(await grants(3)).toEqual({ scopes: ['projects:read', 'faqs:read'], entitlements: ['floorplans'] });
  });

  it('when a plan is deactivated, then its clients are granted nothing, own lists included, until it is active again', async () => {
    const deactivated = planEvent({ type: 'PlanRevised', data: { plan_id: 1, changes: { active: false }, at: minute(2) } });
    const inactive = await projected([deactivated]);
    expect(await inactive.get(ACCESS_CLIENTS, 3)).toMatchObject({ scopes: [], entitlements: [], entitlement_overrides: ['floorplans'] });

    const reactivated = await projected([
      deactivated,
      planEvent({ type: 'PlanRevised', data: { plan_id: 1, changes: { active: true }, at: minute(3) } }),
    ]);
    expect(await reactivated.get(ACCESS_CLIENTS, 3)).toMatchObject({
      scopes: ['projects:read', 'developers:read'],
      entitlements: ['floorplans'],
    });
  });

  it('when a client moves to another plan and drops its own list, then it takes that plan and its lists', async () => {
    const readStore = await projected([
      clientEvent({ type: 'ClientRevised', data: { client_id: 3, changes: { plan_id: 2, entitlements: null }, at: minute(4) } }),
      planEvent({ type: 'PlanRevised', data: { plan_id: 1, changes: { scopes: ['states:read'] }, at: minute(5) } }),
    ]);
    expect(await readStore.get(ACCESS_CLIENTS, 3)).toMatchObject({
      plan_id: 2,
      plan: 'enterprise',
      scopes: ['projects:read', 'webhooks:manage'],
      entitlements: ['images', 'webhooks'],
      entitlement_overrides: null,
      updated_at: minute(4),
    });
  });

  it('when account tokens are set, replaced and removed, then only the current ones exist, applied twice or once', async () => {
    const tokenSet = (client_id: number, account_token: string | null, at: string) =>
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id, account_token, at } });
    const events = [
      tokenSet(1, 'marina-homes', minute(2)),
      tokenSet(2, 'client-two', minute(2)),
      tokenSet(1, 'marina-homes-2', minute(3)),
      tokenSet(2, null, minute(4)),
    ];
    const once = await projected(events);
    const twice = createEmbeddedReadStore();
    const log = await recorded([...accessCatalogue(), ...events]);
    await projectInBatches(twice, accessProjection, [...log, ...log.slice(-4)], 2);
    for (const readStore of [once, twice]) {
      expect(await accountTokenExists(readStore, 'marina-homes-2')).toBe(true);
      expect(await accountTokenExists(readStore, 'marina-homes')).toBe(false);
      expect(await accountTokenExists(readStore, 'client-two')).toBe(false);
      expect(await accountTokenExists(readStore, 'not a token')).toBe(false);
      expect(await readStore.get(ACCESS_CLIENTS, 1)).toMatchObject({ account_token: 'marina-homes-2', updated_at: minute(3) });
      expect(await readStore.get(ACCESS_CLIENTS, 2)).toMatchObject({ account_token: null, updated_at: minute(4) });
      expect(await readStore.get(ACCESS_CLIENTS, 3)).toMatchObject({ account_token: null });
    }
    expect(await twice.get(ACCESS_CLIENTS, 1)).toEqual(await once.get(ACCESS_CLIENTS, 1));
  });

  it('when a key is revoked, then its document says so and when', async () => {
    const readStore = await projected([apiKeyEvent({ type: 'ApiKeyRevoked', data: { api_key_id: 1, client_id: 1, at: minute(6) } })]);
    expect(await readStore.get(ACCESS_KEYS, keyHashOf(1))).toMatchObject({ id: 1, status: 'revoked', revoked_at: minute(6) });
  });
});
