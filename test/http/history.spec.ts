import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { adminClient, type AdminClient } from './adminListsSupport.js';

/** One minute per command, so the project's own times tell the commands apart. */
let now = Date.parse('2026-03-01T08:00:00.000Z');
const clock = () => new Date((now += 60_000));

/** The same instant written in a time zone `hours` east of UTC. */
const withOffset = (iso: string, hours: number): string => {
  const shifted = new Date(Date.parse(iso) + hours * 3_600_000).toISOString();
  return `${shifted.slice(0, -1)}+${String(hours).padStart(2, '0')}:00`;
};

interface HistoryEntry {
  type: string;
  time: string;
  position: string;
  revision: number;
  actor: { id: string | null; editor_id: number | null; token_id: number | null; request_id: string | null; client_address: string | null };
  changes: Array<{ field: string; before: unknown; after: unknown }>;
}

describe('history and as_of over HTTP', () => {
  let app: TestApp;
  let client: AdminClient;
  let sara: { id: number; tokenId: number; token: string };
  let projectId: number;
  /** meta.position of each write to the project, in order: created, revised, published. */
  const positions: string[] = [];

  const asSara = (path: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { method, token: sara.token, headers, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    app = await startTestApp({ clock });
    client = await adminClient(app);
    const { accepted } = client;
    const editor = await accepted('POST', '/editors', { name: 'Sara Haddad', role: 'publisher' });
    const issued = await accepted('POST', `/editors/${editor.id}/tokens`, {});
    sara = { id: editor.id, tokenId: issued.token_id, token: issued.token };
    const dubai = (await accepted('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).id;
    const marina = (await accepted('POST', '/communities', { state_id: dubai, name: 'Dubai Marina', slug: 'dubai-marina' })).id;
    const emaar = (await accepted('POST', '/developers', { name: 'Emaar', slug: 'emaar' })).id;
    await client.projected();

    const created = await asSara(
      '/projects',
      'POST',
      { name: 'Marina Heights', slug: 'marina-heights', developer_id: emaar, state_id: dubai, community_id: marina, nature: 'off_plan' },
      { 'x-request-id': 'create-heights' },
    );
    projectId = created.body.data.id;
    positions.push(created.body.meta.position);
    const revised = await client.admin(`/projects/${projectId}`, { method: 'PATCH', body: { name: 'Marina Heights Tower' } });
    positions.push(revised.body.meta.position);
    const published = await asSara(`/projects/${projectId}/publish`, 'POST', undefined, { 'x-request-id': 'publish-heights' });
    positions.push(published.body.meta.position);
  });
  afterAll(() => app.close());

  it("when a project's history is read, then its events come newest first with their actors and the fields each changed", async () => {
    const answer = await client.admin(`/projects/${projectId}/history`);
    expect(answer.status).toBe(200);
    client.expectDocumented('get', '/projects/{projectId}/history', answer);
    const entries = answer.body.data as HistoryEntry[];
    expect(entries.map((entry) => [entry.type, entry.revision, entry.position])).toEqual([
      ['ProjectPublished', 2, positions[2]],
      ['ProjectRevised', 1, positions[1]],
      ['ProjectCreated', 0, positions[0]],
    ]);
    const [published, revised, created] = entries as [HistoryEntry, HistoryEntry, HistoryEntry];

    const saraAs = (requestId: string) => ({
      id: `editor:${sara.id}`,
      editor_id: sara.id,
      token_id: sara.tokenId,
      request_id: requestId,
      client_address: '127.0.0.1',
    });
    expect(published.actor).toEqual(saraAs('publish-heights'));
    expect(created.actor).toEqual(saraAs('create-heights'));
    expect(revised.actor).toMatchObject({ id: 'bootstrap', editor_id: null, token_id: null, client_address: '127.0.0.1' });
    expect(revised.actor.request_id).toEqual(expect.any(String));

    expect(revised.changes).toEqual([
      { field: 'name', before: 'Marina Heights', after: 'Marina Heights Tower' },
      { field: 'updated_at', before: created.changes.find((change) => change.field === 'updated_at')!.after, after: expect.any(String) },
    ]);
    expect(published.changes.map((change) => change.field)).toContain('published');
    expect(published.changes.find((change) => change.field === 'published')).toEqual({ field: 'published', before: false, after: true });
    expect(created.changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: null, after: 'Marina Heights' },
        { field: 'slug', before: null, after: 'marina-heights' },
      ]),
    );
    for (const entry of entries) expect(Date.parse(entry.time)).not.toBeNaN();
  });

  it('when the history is paged, then pages hold the events in the same order and meta.pagination counts them', async () => {
    const second = await client.admin(`/projects/${projectId}/history?per_page=2&page=2`);
    expect((second.body.data as HistoryEntry[]).map((entry) => entry.type)).toEqual(['ProjectCreated']);
    expect(second.body.meta.pagination).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    const tooMany = await client.admin(`/projects/${projectId}/history?per_page=101&sort=-time`);
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.error.details.fields).sort()).toEqual(['query.per_page', 'query.sort']);
  });

  it('when the record does not exist, or a nested one belongs to another client, then 404', async () => {
    expect((await client.admin('/projects/999999/history')).status).toBe(404);
    await client.accepted('POST', '/plans', { key: 'basic', name: 'Basic', scopes: [], entitlements: [] });
    const owner = await client.accepted('POST', '/clients', { name: 'Marina Homes', plan: 'basic' });
    const other = await client.accepted('POST', '/clients', { name: 'Creek Agency', plan: 'basic' });
    const key = await client.accepted('POST', `/clients/${owner.id}/keys`, { environment: 'test' });
    expect((await client.admin(`/clients/${other.id}/keys/${key.id}/history`)).status).toBe(404);

    const history = await client.admin(`/clients/${owner.id}/keys/${key.id}/history`);
    expect(history.status).toBe(200);
    client.expectDocumented('get', '/clients/{clientId}/keys/{keyId}/history', history);
    const issued = (history.body.data as HistoryEntry[])[0]!;
    expect(issued.type).toBe('ApiKeyIssued');
    expect(issued.changes.map((change) => change.field)).not.toContain('key_hash');
    expect(JSON.stringify(history.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it("when an editor account's history is read, then it shows its tokens being issued, never their hashes", async () => {
    const answer = await client.admin(`/editors/${sara.id}/history`);
    expect((answer.body.data as HistoryEntry[]).map((entry) => entry.type)).toEqual(['EditorTokenIssued', 'EditorCreated']);
    const issued = (answer.body.data as HistoryEntry[])[0]!;
    expect(issued.changes).toEqual(
      expect.arrayContaining([
        {
          field: 'tokens',
          before: [],
          after: [{ token_id: sara.tokenId, hint: expect.any(String), issued_at: expect.any(String), expires_at: null, revoked_at: null }],
        },
      ]),
    );
    expect(JSON.stringify(answer.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('when a project is read as_of a log position, then it is the project as that write left it, with that revision', async () => {
    const atCreation = await client.admin(`/projects/${projectId}?as_of=${positions[0]}`);
    expect(atCreation.status).toBe(200);
    client.expectDocumented('get', '/projects/{projectId}', atCreation);
    expect(atCreation.body.data).toMatchObject({ name: 'Marina Heights', published: false, revision: 0 });
    expect(atCreation.headers.get('etag')).toBe('"0"');
    const atRevision = await client.admin(`/projects/${projectId}?as_of=${positions[1]}`);
    expect(atRevision.body.data).toMatchObject({ name: 'Marina Heights Tower', published: false, revision: 1 });
    const current = await client.admin(`/projects/${projectId}`);
    expect((await client.admin(`/projects/${projectId}?as_of=${positions[2]}`)).body.data).toEqual(current.body.data);
    expect((await client.admin(`/projects/${projectId}?as_of=${BigInt(positions[0]!) - 1n}`)).status).toBe(404);
  });

  it('when a project is read as_of a time, then it is the project as the events recorded by then made it; before it existed, 404', async () => {
    const entries = (await client.admin(`/projects/${projectId}/history`)).body.data as HistoryEntry[];
    const revisedAt = entries.find((entry) => entry.type === 'ProjectRevised')!.time;
    const atThatTime = await client.admin(`/projects/${projectId}?as_of=${encodeURIComponent(revisedAt)}`);
    expect(atThatTime.body.data.name).toBe('Marina Heights Tower');
    expect(atThatTime.body.data.revision).toBeGreaterThanOrEqual(1);
    const inDubaiTime = await client.admin(`/projects/${projectId}?as_of=${encodeURIComponent(withOffset(revisedAt, 4))}`);
    expect(inDubaiTime.body.data).toEqual(atThatTime.body.data);
    expect((await client.admin(`/projects/${projectId}?as_of=2000-01-01T00:00:00Z`)).status).toBe(404);
  });

  it('when as_of is neither a timestamp nor a position, then 422 names query.as_of', async () => {
    for (const asOf of ['yesterday', '2026-03-01', '-5', '12abc']) {
      const answer = await client.admin(`/projects/${projectId}?as_of=${asOf}`);
      expect(answer.status, asOf).toBe(422);
      expect(Object.keys(answer.body.error.details.fields), asOf).toEqual(['query.as_of']);
    }
    expect((await client.admin(`/projects/${projectId}?at=1`)).body.error.details.fields).toHaveProperty(['query.at']);
  });
});
