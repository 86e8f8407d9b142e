import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTokenExists } from '../../projections/access.js';
import { request, type RequestOptions } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('admin: a client account token over HTTP', () => {
  let app: TestApp;
  const admin = (path: string, options: RequestOptions = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { token: app.adminToken, ...options });
  const projected = async () => app.projector.waitForPosition((await app.eventStore.headPosition())!, 5_000);
  const setToken = (clientId: number, account_token: unknown, headers: Record<string, string> = {}) =>
    admin(`/clients/${clientId}/account-token`, { method: 'PUT', body: { account_token }, headers });
  let first: number;
  let second: number;

  beforeAll(async () => {
    app = await startTestApp();
    expect((await admin('/plans', { method: 'POST', body: { key: 'basic', name: 'Basic', scopes: [], entitlements: [] } })).status).toBe(
      201,
    );
    first = (await admin('/clients', { method: 'POST', body: { name: 'First', plan: 'basic' } })).body.data.id;
    second = (await admin('/clients', { method: 'POST', body: { name: 'Second', plan: 'basic' } })).body.data.id;
  });
  afterAll(() => app.close());

  it('when a token is set, then the client shows it, the read model knows it and setting it again changes nothing', async () => {
    expect((await admin(`/clients/${first}`)).body.data.account_token).toBeNull();
    const set = await setToken(first, 'first-agency');
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ id: first, account_token: 'first-agency' });
    const again = await setToken(first, 'first-agency', { 'if-match': set.headers.get('etag')! });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(set.headers.get('etag'));
    await projected();
    expect(await accountTokenExists(app.readStore, 'first-agency')).toBe(true);
  });

  it('when another client asks for a token that is taken, then 409 ACCOUNT_TOKEN_TAKEN names the field and nothing changes', async () => {
    await setToken(first, 'shared-name');
    const taken = await setToken(second, 'shared-name');
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({
      code: 'ACCOUNT_TOKEN_TAKEN',
      details: { fields: { 'body.account_token': 'already in use' } },
    });
    expect((await admin(`/clients/${second}`)).body.data.account_token).toBeNull();
  });

  it('when the holder replaces or removes its token, then another client may take it, and the removed token is gone', async () => {
    await setToken(first, 'released-by-replace');
    await setToken(first, 'replacement');
    expect((await setToken(second, 'released-by-replace')).status).toBe(200);
    const removed = await setToken(second, null);
    expect(removed.body.data.account_token).toBeNull();
    expect((await setToken(first, 'released-by-replace')).status).toBe(200);
    await projected();
    expect(await accountTokenExists(app.readStore, 'released-by-replace')).toBe(true);
    expect(await accountTokenExists(app.readStore, 'replacement')).toBe(false);
    expect((await app.readStore.get('access_clients', second))?.account_token).toBeNull();
  });

  it('when a token is generated, then the client gets a new 22-character URL-safe token each time', async () => {
    const generated = await admin(`/clients/${second}/account-token`, { method: 'POST' });
    expect(generated.status).toBe(200);
    expect(generated.body.data.account_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const again = await admin(`/clients/${second}/account-token`, { method: 'POST' });
    expect(again.body.data.account_token).not.toBe(generated.body.data.account_token);
  });

  it('when the token is malformed, missing or the client unknown, then 422 or 404 and nothing is recorded', async () => {
    for (const bad of ['abc', 'has space', 'ümlaut-token', 42]) {
      const answer = await setToken(first, bad);
      expect(answer.status, String(bad)).toBe(422);
      expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.account_token']);
    }
    expect((await admin(`/clients/${first}/account-token`, { method: 'PUT', body: {} })).status).toBe(422);
    expect((await setToken(999, 'nobody-has-it')).status).toBe(404);
    expect((await admin('/clients/999/account-token', { method: 'POST' })).status).toBe(404);
  });

  it('when the admin contract is read, then it describes both operations and the client field', async () => {
    const document = (await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body as string;
    expect(document).toContain('/clients/{clientId}/account-token');
    expect(document).toContain('setClientAccountToken');
    expect(document).toContain('generateClientAccountToken');
    expect(document).toContain('account_token');
  });
});
