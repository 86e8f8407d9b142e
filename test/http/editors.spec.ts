import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashEditorToken } from '../../src/access/editorTokens.js';
import { request, type Answer } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { readWholeLog } from '../support/projectionHarness.js';
import { adminClient, idsOf, type AdminClient } from './adminListsSupport.js';

/** A clock the tests move: token expiry is judged by it. */
let now = Date.parse('2026-03-01T08:00:00.000Z');
const clock = () => new Date(now);

describe('editor accounts and their tokens over HTTP', () => {
  let app: TestApp;
  let client: AdminClient;
  let logText = '';

  /** A request sent with an editor's token. */
  const as = (token: string, path: string, options: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { token, ...options });

  async function newEditor(name: string, role: string): Promise<{ id: number; token: string; tokenId: number }> {
    const { id } = await client.accepted('POST', '/editors', { name, role });
    const issued = await client.accepted('POST', `/editors/${id}/tokens`, {});
    await client.projected();
    return { id, token: issued.token, tokenId: issued.token_id };
  }

  /** The whole event log as text (positions are bigints). */
  const storedEvents = async () =>
    JSON.stringify(await readWholeLog(app.eventStore), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));

  const expectUnauthenticated = (answer: Answer) => {
    expect(answer.status).toBe(401);
    expect(answer.body.error).toEqual({ code: 'UNAUTHENTICATED', message: 'A valid bearer token is required.', details: {} });
  };

  beforeAll(async () => {
    app = await startTestApp({ clock, env: { LOG_LEVEL: 'info' }, logDestination: { write: (line: string) => void (logText += line) } });
    client = await adminClient(app);
  });
  afterAll(() => app.close());

  it('when an account is created and issued a token, then the token is shown once, works with the account role, and only its hash is stored', async () => {
    const created = await client.admin('/editors', { method: 'POST', body: { name: 'Sara Haddad', role: 'editor' } });
    expect(created.status).toBe(201);
    client.expectDocumented('post', '/editors', created);
    expect(created.body.data).toMatchObject({ name: 'Sara Haddad', role: 'editor', active: true, tokens: [], revision: 0 });
    const id = created.body.data.id as number;

    const issued = await client.admin(`/editors/${id}/tokens`, { method: 'POST', body: {}, headers: { 'if-match': '"0"' } });
    expect(issued.status).toBe(201);
    client.expectDocumented('post', '/editors/{editorId}/tokens', issued);
    const { token, token_id: tokenId, hint } = issued.body.data as { token: string; token_id: number; hint: string };
    expect(token).toMatch(/^edt_[A-Za-z0-9_-]{43}$/);
    expect(hint).toBe(`${token.slice(0, 8)}…`);
    expect(issued.body.data).toMatchObject({ editor_id: id, expires_at: null, revoked_at: null });
    await client.projected();

    const read = await as(token, '/states');
    expect(read.status).toBe(200);
    const shown = await client.admin(`/editors/${id}`);
    client.expectDocumented('get', '/editors/{editorId}', shown);
    expect(shown.body.data.tokens).toEqual([
      { token_id: tokenId, hint, issued_at: clock().toISOString(), expires_at: null, revoked_at: null },
    ]);

    const answers = JSON.stringify([shown.body, (await client.admin('/editors')).body]);
    const events = await storedEvents();
    expect(answers + events).not.toContain(token);
    expect(events).toContain(hashEditorToken(token));
    expect(answers).not.toContain(hashEditorToken(token));
    expect(logText).toContain('request completed');
    expect(logText).not.toContain(token.slice(4));
  });

  it('when a token is revoked, then it is refused with the same 401 as an unknown one while the account keeps its other tokens', async () => {
    const sara = await newEditor('Sara Revoked', 'editor');
    const second = await client.accepted('POST', `/editors/${sara.id}/tokens`, {});
    await client.projected();

    const revoked = await client.admin(`/editors/${sara.id}/tokens/${sara.tokenId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    client.expectDocumented('delete', '/editors/{editorId}/tokens/{tokenId}', revoked);
    expect(revoked.body.data).toMatchObject({ token_id: sara.tokenId, editor_id: sara.id, revoked_at: clock().toISOString() });
    await client.projected();

    expectUnauthenticated(await as(sara.token, '/states'));
    expectUnauthenticated(await as(`edt_${'x'.repeat(43)}`, '/states'));
    expect((await as(second.token, '/states')).status).toBe(200);
  });

  it('when a token expires, then it works until its expiry and is refused from then on', async () => {
    const sara = await newEditor('Sara Expiring', 'editor');
    const expiresAt = new Date(now + 60_000).toISOString();
    const expiring = await client.accepted('POST', `/editors/${sara.id}/tokens`, { expires_at: expiresAt });
    expect(expiring.expires_at).toBe(expiresAt);
    await client.projected();
    expect((await as(expiring.token, '/states')).status).toBe(200);

    now += 60_000;
    expectUnauthenticated(await as(expiring.token, '/states'));
    expect((await as(sara.token, '/states')).status).toBe(200);
  });

  it('when an account is deactivated, then its tokens are revoked with it, and reactivated it works only with a new token', async () => {
    const omar = await newEditor('Omar Farouk', 'editor');
    const deactivated = await client.accepted('PATCH', `/editors/${omar.id}`, { active: false });
    expect(deactivated).toMatchObject({ active: false, tokens: [{ token_id: omar.tokenId, revoked_at: clock().toISOString() }] });
    await client.projected();
    expectUnauthenticated(await as(omar.token, '/states'));

    const refused = await client.admin(`/editors/${omar.id}/tokens`, { method: 'POST', body: {} });
    expect(refused.status).toBe(409);

    await client.accepted('PATCH', `/editors/${omar.id}`, { active: true });
    await client.projected();
    expectUnauthenticated(await as(omar.token, '/states'));
    const fresh = await client.accepted('POST', `/editors/${omar.id}/tokens`, {});
    await client.projected();
    expect((await as(fresh.token, '/states')).status).toBe(200);
  });

  it("when an account's role changes, then its tokens have the new role from the next request on", async () => {
    const lina = await newEditor('Lina Aziz', 'editor');
    const state = await client.accepted('POST', '/states', { name: 'Sharjah', slug: 'sharjah', country_code: 'AE' });
    const refused = await as(lina.token, `/states/${state.id}/publish`, { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ role: 'editor', allowed_roles: ['publisher', 'admin'], required_role: 'publisher' });

    await client.accepted('PATCH', `/editors/${lina.id}`, { role: 'publisher' });
    await client.projected();
    expect((await as(lina.token, `/states/${state.id}/publish`, { method: 'POST' })).status).toBe(200);
  });

  it('when an editor token writes, then every event it appends records the account, token, request id and client address', async () => {
    const nadia = await newEditor('Nadia Karim', 'editor');
    const head = await app.eventStore.headPosition();
    const created = await as(nadia.token, '/developers', {
      method: 'POST',
      body: { name: 'Meraas', slug: 'meraas' },
      headers: { 'x-request-id': 'audit-test-1' },
    });
    expect(created.status).toBe(201);

    const appended = (await readWholeLog(app.eventStore)).filter((event) => event.position > head!);
    expect(appended.map((event) => event.type)).toEqual(expect.arrayContaining(['IdAllocated', 'SlugReserved', 'DeveloperCreated']));
    for (const event of appended) {
      expect(event.metadata, event.type).toMatchObject({
        actor: `editor:${nadia.id}`,
        editor_id: nadia.id,
        token_id: nadia.tokenId,
        request_id: 'audit-test-1',
        client_address: '127.0.0.1',
      });
    }
  });

  it('when the bootstrap token writes, then its events record the actor bootstrap with no account or token', async () => {
    const head = await app.eventStore.headPosition();
    await client.accepted('POST', '/developers', { name: 'Nakheel', slug: 'nakheel' });
    const appended = (await readWholeLog(app.eventStore)).filter((event) => event.position > head!);
    expect(appended.at(-1)!.metadata).toMatchObject({ actor: 'bootstrap', editor_id: null, token_id: null, client_address: '127.0.0.1' });
    expect(appended.at(-1)!.metadata.request_id).toEqual(expect.any(String));
  });

  it('when the accounts are listed, then they filter by role, activity and name, page, and a parameter they do not take is 422', async () => {
    await client.projected();
    const publishers = await client.admin('/editors?role=publisher');
    client.expectDocumented('get', '/editors', publishers);
    expect(publishers.body.data.map((editor: { name: string }) => editor.name)).toEqual(['Lina Aziz']);
    const inactive = await client.admin('/editors?active=false');
    expect(inactive.body.data).toEqual([]);
    const byName = await client.admin('/editors?q=sara&sort=-id&per_page=2&page=1');
    expect(byName.body.data.map((editor: { name: string }) => editor.name)).toEqual(['Sara Expiring', 'Sara Revoked']);
    expect(byName.body.meta.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    expect(idsOf(await client.admin('/editors?sort=id&per_page=1'))).toEqual([1]);

    const unknown = await client.admin('/editors?token=x');
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.fields).toHaveProperty(['query.token']);
    const badRole = await client.admin('/editors?role=owner');
    expect(badRole.body.error.details.fields).toEqual({ 'query.role': 'must be one of editor, publisher, operator, admin' });
  });
});
