import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { encodeChangesCursor } from '../../queries/changeFeedCursor.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { request } from '../support/http.js';
import { resolveIn } from '../support/openApiRules.js';

/*
 * GET /v1/projects/changes?cursor=: the reference catalogue (Dubai Marina = community 1 and Downtown Dubai =
 * community 2, both in Dubai = state 1), projects 1-3 published in Dubai Marina and project 4 created but
 * never published. The restricted client sees Dubai Marina only. Each test reads on from where the feed
 * stood when it began (`tip`), so the tests build on one history.
 */

interface Change {
  project_id: number;
  changed_at: string;
  changes: string[];
  removed: boolean;
  project: { id: number; name: string; updated_at: string } | null;
}

interface CursorPage {
  data: Change[];
  meta: { cursor: string; has_more: boolean; pagination?: unknown };
}

let api: ApiFixture;
let whole: string;
let restricted: string;

const published = (id: number): StreamEvent[] => [projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id))];

async function page(cursor: string, key = whole, perPage?: number) {
  const query = `cursor=${encodeURIComponent(cursor)}${perPage === undefined ? '' : `&per_page=${perPage}`}`;
  const answer = await api.get<CursorPage>(`/projects/changes?${query}`, key);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer;
}

/** Every page from `cursor` until has_more is false: the pages' items in order and the cursor to read on from. */
async function drain(cursor: string, key = whole, perPage?: number): Promise<{ pages: Change[][]; cursor: string }> {
  const pages: Change[][] = [];
  for (;;) {
    const { body } = await page(cursor, key, perPage);
    pages.push(body.data);
    cursor = body.meta.cursor;
    if (!body.meta.has_more) return { pages, cursor };
  }
}

const tip = async (key = whole) => (await drain('start', key, 100)).cursor;
const briefly = (change: Change) => ({ id: change.project_id, changes: change.changes, removed: change.removed });

beforeAll(async () => {
  api = await startApiFixture();
  await api.given([...publishedReferenceCatalogue(), ...published(1), ...published(2), ...published(3), projectCreated(4, {}, minute(4))]);
  whole = await api.key({ scopes: ['projects:sync'] });
  const client = await api.issue({ scopes: ['projects:sync'] });
  restricted = client.key;
  const restriction = await api.admin('PUT', `/clients/${client.clientId}/restriction`, {
    restriction: { states: [{ state_id: 1, community_ids: [1] }] },
  });
  expect(restriction.status).toBe(200);
  await api.settle();
});

afterAll(async () => {
  await api.close();
});

describe('GET /v1/projects/changes?cursor=', () => {
  it('when a full sync starts at cursor=start, then each visible project comes once, in log order, and the last page says has_more false', async () => {
    const first = await page('start', whole, 2);
    expect(first.body.data.map(briefly)).toEqual([
      { id: 1, changes: ['project'], removed: false },
      { id: 2, changes: ['project'], removed: false },
    ]);
    expect(first.body.data[0]!.project).toMatchObject({ id: 1, name: 'Project 1', updated_at: minute(1) });
    expect(first.body.meta).toMatchObject({ cursor: expect.any(String), has_more: true });
    expect(first.body.meta).not.toHaveProperty('pagination');

    const second = await page(first.body.meta.cursor, whole, 2);
    // Project 4 was never published: nobody is told of it.
    expect(second.body.data.map(briefly)).toEqual([{ id: 3, changes: ['project'], removed: false }]);
    expect(second.body.meta.has_more).toBe(false);
  });

  it('when edits are committed with clocks out of order, then per_page=1 pages report each change once, in commit order', async () => {
    const from = await tip();
    await api.given([
      projectEvent('ProjectRevised', 1, { changes: { name: 'One Revised' } }, minute(3000)),
      projectEvent(
        'PaymentPlanAdded',
        2,
        { payment_plan: { payment_plan_id: 1, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] } },
        minute(1000),
      ),
      projectEvent('FaqsSet', 1, { items: [{ question: 'Q?', answer: 'A.' }] }, minute(2000)),
      projectEvent('ProjectRevised', 3, { changes: { name: 'Three Revised' } }, minute(1500)),
      projectEvent('ProjectRevised', 4, { changes: { name: 'Still a draft' } }, minute(3100)),
    ]);

    const { pages, cursor } = await drain(from, whole, 1);

    expect(pages.map((items) => items.map((change) => ({ ...briefly(change), changed_at: change.changed_at })))).toEqual([
      [{ id: 1, changes: ['project'], removed: false, changed_at: minute(3000) }],
      [{ id: 2, changes: ['payment_plans'], removed: false, changed_at: minute(1000) }],
      [{ id: 1, changes: ['faqs'], removed: false, changed_at: minute(2000) }],
      [{ id: 3, changes: ['project'], removed: false, changed_at: minute(1500) }],
    ]);
    expect(pages[0]![0]!.project).toMatchObject({ name: 'One Revised', updated_at: minute(3000) });
    const caughtUp = await page(cursor, whole, 1);
    expect(caughtUp.body).toEqual({ data: [], meta: expect.objectContaining({ cursor, has_more: false }) });
  });

  it('when a caught-up cursor is read again, then it keeps its cursor and ETag (304) until a change arrives', async () => {
    const from = await tip();
    const first = await page(from);
    const etag = first.headers.get('etag')!;
    expect(first.body.meta.cursor).toBe(from);
    const unchanged = await api.get(`/projects/changes?cursor=${from}`, whole, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);

    await api.given([projectEvent('AmenitiesSet', 2, { items: [{ name: 'Pool', icon: null }] }, minute(4000))]);

    const changed = await api.get<CursorPage>(`/projects/changes?cursor=${from}`, whole, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.map(briefly)).toEqual([{ id: 2, changes: ['amenities'], removed: false }]);
    expect(changed.body.meta.cursor).not.toBe(from);
  });

  it("when projects are unpublished or moved out of a restricted client's communities, then the next page reports them removed to whoever saw them", async () => {
    const [fromWhole, fromRestricted] = [await tip(whole), await tip(restricted)];
    await api.given([
      projectEvent('ProjectUnpublished', 2, {}, minute(5000)),
      projectEvent('ProjectRevised', 3, { changes: { community_id: 2 } }, minute(5001)),
      projectEvent('ProjectRevised', 4, { changes: { community_id: 2 } }, minute(5002)),
    ]);

    const forWhole = (await drain(fromWhole, whole)).pages.flat();
    expect(forWhole.map(briefly)).toEqual([
      { id: 2, changes: ['project'], removed: true },
      { id: 3, changes: ['project'], removed: false },
    ]);
    expect(forWhole[0]!.project).toBeNull();
    const forRestricted = (await drain(fromRestricted, restricted)).pages.flat();
    expect(forRestricted.map(briefly)).toEqual([
      { id: 2, changes: ['project'], removed: true },
      { id: 3, changes: ['project'], removed: true },
    ]);
  });

  it('when an updated_since page is read, then its meta.cursor reads on from there: later changes only', async () => {
    const sincePage = await api.get(`/projects/changes?updated_since=${encodeURIComponent(minute(0))}`, whole);
    expect(sincePage.status).toBe(200);
    expect(sincePage.body.meta).toMatchObject({ pagination: { page: 1 }, cursor: expect.any(String) });
    expect(sincePage.body.meta).not.toHaveProperty('has_more');

    await api.given([projectEvent('ProjectRevised', 1, { changes: { name: 'One Again' } }, minute(6000))]);

    const { pages } = await drain(sincePage.body.meta.cursor);
    expect(pages.flat().map(briefly)).toEqual([{ id: 1, changes: ['project'], removed: false }]);
    expect(pages.flat()[0]!.project).toMatchObject({ name: 'One Again' });
  });
});

describe('GET /v1/projects/changes: refused cursors and combinations', () => {
  const fieldsOf = async (query: string) => {
    const answer = await api.get(`/projects/changes?${query}`, whole);
    expect(answer.status, query).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    return answer.body.error.details.fields as Record<string, string>;
  };

  it('when the cursor is garbled, truncated, edited or made by hand, then 422 names query.cursor', async () => {
    const issued = encodeChangesCursor(12);
    const edited = Buffer.from(Buffer.from(issued, 'base64url').toString('utf8').replace('"12"', '"13"')).toString('base64url');
    const handMade = Buffer.from(JSON.stringify({ v: 1, after: '12' })).toString('base64url');
    const otherChar = `${issued.slice(0, 10)}${issued[10] === 'A' ? 'B' : 'A'}${issued.slice(11)}`;
    for (const cursor of ['abc', 'start!', 'START', '', issued.slice(0, -3), edited, handMade, otherChar, `${issued}=`, 'x'.repeat(300)]) {
      const fields = await fieldsOf(`cursor=${encodeURIComponent(cursor)}`);
      expect(Object.keys(fields), cursor).toEqual(['query.cursor']);
      expect(fields['query.cursor']).toMatch(/is not a cursor of this feed/);
    }
  });

  it('when cursor and updated_since come together, then 422 names query.cursor and says to send one', async () => {
    const fields = await fieldsOf(`cursor=start&updated_since=${encodeURIComponent(minute(0))}`);
    expect(fields).toEqual({ 'query.cursor': expect.stringMatching(/cannot be combined with updated_since/) });
  });

  it('when neither cursor nor updated_since is given, then 422 names query.updated_since', async () => {
    expect(await fieldsOf('per_page=5')).toEqual({ 'query.updated_since': expect.stringMatching(/required unless cursor is given/) });
  });

  it('when a cursor comes with page, then 422 names query.page: the next page is the cursor', async () => {
    expect(await fieldsOf('cursor=start&page=2')).toEqual({ 'query.page': expect.stringMatching(/cannot be combined with cursor/) });
  });

  it('when a cursor names a position the feed has not reached, then the page is empty and keeps that cursor', async () => {
    const ahead = encodeChangesCursor(1_000_000);
    const answer = await page(ahead);
    expect(answer.body.data).toEqual([]);
    expect(answer.body.meta).toMatchObject({ cursor: ahead, has_more: false });
  });
});

describe('GET /v1/openapi.yaml: the change feed cursor', () => {
  it('when the document is read, then listProjectChanges documents cursor, meta.cursor, has_more and the guarantee', async () => {
    const document = parse((await request(api.app.baseUrl, '/v1/openapi.yaml')).body as string);
    const operation = document.paths['/projects/changes'].get;
    expect(operation.parameters.map((parameter: unknown) => resolveIn(document, parameter).name)).toEqual(
      expect.arrayContaining(['cursor', 'updated_since', 'page', 'per_page']),
    );
    expect(operation.description).toMatch(/never misses and never repeats a change/);
    const body = resolveIn(document, operation.responses['200'].content['application/json'].schema);
    const meta = resolveIn(document, body.properties.meta).properties;
    expect(Object.keys(meta)).toEqual(expect.arrayContaining(['cursor', 'has_more', 'pagination']));
  });
});
