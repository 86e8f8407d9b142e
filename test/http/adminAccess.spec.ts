import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { apiKeyStream } from '../../src/access/apiKey.js';
import { lookupAccess } from '../../src/http/lookupAccess.js';
import { readModelOf, readWholeLog } from '../support/projectionHarness.js';
import { request, type RequestOptions } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const KEY_SHAPE = (environment: string) => new RegExp(`^svc_${environment}_[A-Za-z0-9_-]{43}$`);

describe('admin access: plans, clients and API keys over HTTP', () => {
  let app: TestApp;
  const admin = (path: string, options: RequestOptions = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { token: app.adminToken, ...options });
  const projected = async () => app.projector.waitForPosition((await app.eventStore.headPosition())!, 5_000);
  /** Every key these tests were given, to prove none of them was kept anywhere. */
  const issuedKeys: string[] = [];

  const createPlan = async (key: string, overrides: Record<string, unknown> = {}) => {
    const answer = await admin('/plans', {
      method: 'POST',
      body: { key, name: key, scopes: ['projects:read', 'developers:read'], entitlements: ['images'], ...overrides },
    });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: number };
  };
  const registerClient = async (body: Record<string, unknown>) => {
    const answer = await admin('/clients', { method: 'POST', body });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: number };
  };
  const issueKey = async (clientId: number, environment: 'live' | 'test') => {
    const answer = await admin(`/clients/${clientId}/keys`, { method: 'POST', body: { environment } });
    expect(answer.status).toBe(201);
    issuedKeys.push(answer.body.data.key);
    return answer;
  };

  beforeAll(async () => {
    app = await startTestApp();
    await createPlan('basic');
  });
  afterAll(() => app.close());

  it('when a plan is created, read and revised with If-Match, then each answer carries the revision as ETag and grants come in spec order', async () => {
    const created = await admin('/plans', {
      method: 'POST',
      body: { key: 'growth', name: 'Growth', scopes: ['faqs:read', 'media:read', 'projects:read'], entitlements: [] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      revision: 0,
      detail_fields: null,
      limits: null,
      pdf_templates: null,
      pdf_default_template: null,
      pdf_branding_page: false,
      pdf_limits: null,
      key: 'growth',
      name: 'Growth',
      scopes: ['projects:read', 'media:read', 'faqs:read'],
      entitlements: [],
      active: true,
    });
    const { id } = created.body.data;

    const read = await admin(`/plans/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"0"');

    const revised = await admin(`/plans/${id}`, { method: 'PATCH', headers: { 'if-match': '"0"' }, body: { entitlements: ['images'] } });
    expect(revised.status).toBe(200);
    expect(revised.headers.get('etag')).toBe('"1"');
    expect(revised.body.data).toMatchObject({ revision: 1, entitlements: ['images'] });

    const stale = await admin(`/plans/${id}`, { method: 'PATCH', headers: { 'if-match': '"0"' }, body: { name: 'Lost' } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('CONFLICT');
  });

  it('when a plan key is taken, then 409 SLUG_TAKEN names body.key; the key cannot be revised', async () => {
    const taken = await admin('/plans', { method: 'POST', body: { key: 'basic', name: 'Basic again', scopes: [], entitlements: [] } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'SLUG_TAKEN', details: { fields: { 'body.key': 'already in use' } } });

    const rekey = await admin('/plans/1', { method: 'PATCH', body: { key: 'other' } });
    expect(rekey.status).toBe(422);
    expect(rekey.body.error.details.fields).toEqual({ 'body.key': 'is not a known field' });
  });

  it('when a client is registered on a plan, then 201 answers its id, the plan key and the effective grants', async () => {
    const created = await admin('/clients', {
      method: 'POST',
      body: { name: 'Marina Homes', plan: 'basic', entitlements: ['floorplans', 'images'] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      revision: 0,
      name: 'Marina Homes',
      plan: 'basic',
      plan_id: 1,
      status: 'active',
      account_token: null,
      controls: {
        request_signing: false,
        environments: { live: { domain: null, ip_allow: [], ip_deny: [] }, test: { domain: null, ip_allow: [], ip_deny: [] } },
      },
      restriction: null,
      access_mode: { mode: 'commercial' },
      limits: null,
      pdf_default_template: null,
      pdf_limits: null,
      scopes: null,
      entitlements: ['floorplans', 'images'],
      effective_scopes: ['projects:read', 'developers:read'],
      effective_entitlements: ['floorplans', 'images'],
    });
    const read = await admin(`/clients/${created.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    expect((await admin('/clients/9999')).status).toBe(404);
  });

  it('when a client names an unknown plan, unknown grants and an unknown field, then one 422 names each', async () => {
    const answer = await admin('/clients', {
      method: 'POST',
      body: {
        name: 'Creek Realty',
        plan: 'Not A Key',
        scopes: ['projects:read', 'projects:write'],
        entitlements: ['images', 'videos'],
        tier: 'gold',
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual([
      'body.entitlements.1',
      'body.plan',
      'body.scopes.1',
      'body.tier',
    ]);

    const unknownPlan = await admin('/clients', { method: 'POST', body: { name: 'Creek Realty', plan: 'platinum' } });
    expect(unknownPlan.status).toBe(422);
    expect(unknownPlan.body.error.details.fields).toEqual({ 'body.plan': "no plan has the key 'platinum'" });

    const repeated = await admin('/clients', {
      method: 'POST',
      body: { name: 'Creek Realty', plan: 'basic', scopes: ['faqs:read', 'faqs:read'] },
    });
    expect(repeated.status).toBe(422);
    expect(repeated.body.error.details.fields).toEqual({ 'body.scopes': 'must not name a scope twice' });
  });

  it('when a plan is inactive, then no client can be registered on it', async () => {
    const { id } = await createPlan('retired');
    expect((await admin(`/plans/${id}`, { method: 'PATCH', body: { active: false } })).status).toBe(200);
    const answer = await admin('/clients', { method: 'POST', body: { name: 'Late Agency', plan: 'retired' } });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields).toEqual({ 'body.plan': "plan 'retired' is not active" });
  });

  it('when controls are set, then domains and CIDR blocks are stored normalised and read back; bad ones get 422 naming each', async () => {
    const { id } = await registerClient({ name: 'Controlled', plan: 'basic' });
    const body = {
      request_signing: true,
      environments: {
        live: { domain: 'Portal.Example.COM.', ip_allow: ['203.0.113.0/24', '2001:DB8::/32'], ip_deny: ['203.0.113.7'] },
        test: { domain: null, ip_allow: [], ip_deny: [] },
      },
    };
    const set = await admin(`/clients/${id}/controls`, { method: 'PUT', body });
    expect(set.status).toBe(200);
    expect(set.body.data.controls).toEqual({
      request_signing: true,
      environments: {
        live: { domain: 'portal.example.com', ip_allow: ['203.0.113.0/24', '2001:db8::/32'], ip_deny: ['203.0.113.7/32'] },
        test: { domain: null, ip_allow: [], ip_deny: [] },
      },
    });
    expect((await admin(`/clients/${id}`)).body.data.controls).toEqual(set.body.data.controls);
    const again = await admin(`/clients/${id}/controls`, { method: 'PUT', body });
    expect(again.body.data.revision).toBe(set.body.data.revision);

    const bad = await admin(`/clients/${id}/controls`, {
      method: 'PUT',
      body: {
        request_signing: 'yes',
        environments: { live: { domain: 'https://x.example/path', ip_allow: ['10.0.0.0/33'], ip_deny: ['nope'] } },
      },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual([
      'body.environments.live.domain',
      'body.environments.live.ip_allow.0',
      'body.environments.live.ip_deny.0',
      'body.environments.test',
      'body.request_signing',
    ]);
  });

  it('when a client is suspended, deactivated and reactivated, then each status is stored once and read back', async () => {
    const { id } = await registerClient({ name: 'Status', plan: 'basic' });
    for (const status of ['suspended', 'inactive', 'active']) {
      const changed = await admin(`/clients/${id}/status`, { method: 'PUT', body: { status } });
      expect(changed.status).toBe(200);
      expect(changed.body.data.status).toBe(status);
    }
    const revision = (await admin(`/clients/${id}`)).body.data.revision;
    expect(revision).toBe(3);
    expect((await admin(`/clients/${id}/status`, { method: 'PUT', body: { status: 'active' } })).body.data.revision).toBe(3);
    const bad = await admin(`/clients/${id}/status`, { method: 'PUT', body: { status: 'closed' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields).toHaveProperty(['body.status']);
  });

  it('when keys are issued, then 201 answers each key once, in its shape, with a hint and no hash', async () => {
    const { id: clientId } = await registerClient({ name: 'Key Holder', plan: 'basic' });
    const live = await issueKey(clientId, 'live');
    const test = await issueKey(clientId, 'test');

    expect(live.headers.get('etag')).toBe('"0"');
    expect(live.body.data).toEqual({
      id: expect.any(Number),
      revision: 0,
      client_id: clientId,
      environment: 'live',
      hint: `${live.body.data.key.slice(0, 13)}…`,
      status: 'active',
      issued_at: expect.any(String),
      expires_at: null,
      revoked_at: null,
      successor_key_id: null,
      rotation_ends_at: null,
      key: expect.stringMatching(KEY_SHAPE('live')),
    });
    expect(test.body.data.key).toMatch(KEY_SHAPE('test'));
    expect(test.body.data.id).toBe(live.body.data.id + 1);
  });

  it('when the key body is wrong or the client unknown, then 422 names the field or 404', async () => {
    const { id: clientId } = await registerClient({ name: 'Picky', plan: 'basic' });
    const bad = await admin(`/clients/${clientId}/keys`, { method: 'POST', body: { environment: 'production', key: 'svc_live_mine' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(['body.environment', 'body.key']);
    const missing = await admin(`/clients/${clientId}/keys`, { method: 'POST', body: {} });
    expect(missing.body.error.details.fields).toEqual({ 'body.environment': expect.any(String) });
    expect((await admin('/clients/9999/keys', { method: 'POST', body: { environment: 'test' } })).status).toBe(404);
  });

  it('when a key is issued with a stale If-Match for its client, then 409 and no key is issued', async () => {
    const { id: clientId } = await registerClient({ name: 'Careful', plan: 'basic' });
    expect((await admin(`/clients/${clientId}`, { method: 'PATCH', body: { name: 'Careful Ltd' } })).status).toBe(200);
    const stale = await admin(`/clients/${clientId}/keys`, {
      method: 'POST',
      headers: { 'if-match': '"0"' },
      body: { environment: 'test' },
    });
    expect(stale.status).toBe(409);
    await projected();
    expect((await admin(`/clients/${clientId}/keys`)).body.data).toEqual([]);
  });

  it("when a client's keys are listed, then each appears without its secret, revoked ones included", async () => {
    const { id: clientId } = await registerClient({ name: 'Lister', plan: 'basic' });
    const first = (await issueKey(clientId, 'live')).body.data;
    const second = (await issueKey(clientId, 'test')).body.data;
    expect((await admin(`/clients/${clientId}/keys/${first.id}/revoke`, { method: 'POST' })).status).toBe(200);
    await projected();

    const listed = await admin(`/clients/${clientId}/keys`);
    expect(listed.status).toBe(200);
    const { key: _first, ...firstListed } = first;
    const { key: _second, ...secondListed } = second;
    const times = { created_at: expect.any(String), updated_at: expect.any(String) };
    expect(listed.body.data).toEqual([
      { ...firstListed, status: 'revoked', revoked_at: expect.any(String), revision: 1, ...times },
      { ...secondListed, ...times },
    ]);
    expect((await admin('/clients/9999/keys')).status).toBe(404);
  });

  it('when a key is revoked, then it no longer grants access; again is a no-op; through another client it is 404', async () => {
    const { id: clientId } = await registerClient({ name: 'Revoker', plan: 'basic' });
    const { id: otherClientId } = await registerClient({ name: 'Bystander', plan: 'basic' });
    const issued = (await issueKey(clientId, 'live')).body.data;
    await projected();
    expect(await lookupAccess(app.readStore, issued.key)).toMatchObject({ clientId, keyId: issued.id, environment: 'live', plan: 'basic' });

    const throughOther = await admin(`/clients/${otherClientId}/keys/${issued.id}/revoke`, { method: 'POST' });
    expect(throughOther.status).toBe(404);
    expect((await admin(`/clients/${clientId}/keys/9999/revoke`, { method: 'POST' })).status).toBe(404);

    const revoked = await admin(`/clients/${clientId}/keys/${issued.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('etag')).toBe('"1"');
    expect(revoked.body.data).toMatchObject({ id: issued.id, status: 'revoked', revoked_at: expect.any(String) });
    expect(revoked.body.data).not.toHaveProperty('key');
    const again = await admin(`/clients/${clientId}/keys/${issued.id}/revoke`, { method: 'POST' });
    expect(again.body.data).toEqual(revoked.body.data);
    expect(await app.eventStore.readStream(apiKeyStream(issued.id))).toHaveLength(2);

    await projected();
    await expect(lookupAccess(app.readStore, issued.key)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
  });

  it('when a plan is revised or a client moves plan, then its keys are granted the new lists', async () => {
    const { id: planId } = await createPlan('changing');
    const { id: clientId } = await registerClient({ name: 'Mover', plan: 'changing' });
    const { key } = (await issueKey(clientId, 'test')).body.data;

    await admin(`/plans/${planId}`, { method: 'PATCH', body: { scopes: ['states:read'] } });
    await projected();
    expect([...(await lookupAccess(app.readStore, key))!.scopes]).toEqual(['states:read']);

    const moved = await admin(`/clients/${clientId}`, { method: 'PATCH', body: { plan: 'basic', scopes: ['faqs:read'] } });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      plan: 'basic',
      scopes: ['faqs:read'],
      effective_scopes: ['faqs:read'],
      effective_entitlements: ['images'],
    });
    await projected();
    expect(await lookupAccess(app.readStore, key)).toMatchObject({
      plan: 'basic',
      scopes: new Set(['faqs:read']),
      entitlements: new Set(['images']),
    });

    const unknownPlan = await admin(`/clients/${clientId}`, { method: 'PATCH', body: { plan: 'nope' } });
    expect(unknownPlan.status).toBe(422);
    expect(unknownPlan.body.error.details.fields).toEqual({ 'body.plan': "no plan has the key 'nope'" });
  });

  // Last: it scans what every earlier test left behind.
  it('when keys were issued, then no GET, stored event or read-model document holds any of them', async () => {
    expect(issuedKeys.length).toBeGreaterThanOrEqual(6);
    await projected();
    const clients = (await app.eventStore.readAll({ maxCount: 100_000 })).filter((event) => event.type === 'ClientRegistered');
    const gets: string[] = [];
    for (const event of clients) {
      const { client_id } = event.data as { client_id: number };
      gets.push(
        JSON.stringify((await admin(`/clients/${client_id}`)).body),
        JSON.stringify((await admin(`/clients/${client_id}/keys`)).body),
      );
    }
    const stored = JSON.stringify(await readWholeLog(app.eventStore), (_key, value: unknown) =>
      typeof value === 'bigint' ? String(value) : value,
    );
    const documents = JSON.stringify(await readModelOf(app.readStore, allProjections));

    for (const key of issuedKeys) {
      const secretPart = key.slice('svc_live_'.length);
      for (const [where, text] of [
        ['GET answers', gets.join('\n')],
        ['stored events', stored],
        ['read store', documents],
      ] as const) {
        expect(text.includes(secretPart), `${where} hold a key`).toBe(false);
        expect(text.includes(secretPart.slice(4, 24)), `${where} hold part of a key`).toBe(false);
      }
    }
    expect(documents).toContain(issuedKeys[0]!.slice(0, 13));
  });
});
