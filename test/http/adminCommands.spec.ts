import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type RequestOptions } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const aState = (overrides: Record<string, unknown> = {}) => ({ name: 'Dubai', slug: 'dubai', country_code: 'AE', ...overrides });

describe('admin commands over HTTP', () => {
  let app: TestApp;
  const admin = (path: string, options: RequestOptions = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { token: app.adminToken, ...options });
  const createState = async (overrides: Record<string, unknown> = {}) => {
    const created = await admin('/states', { method: 'POST', body: aState(overrides) });
    expect(created.status).toBe(201);
    return created.body.data as { id: number; revision: number };
  };

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when a state is created, read and revised with If-Match, then each answer carries the revision as ETag', async () => {
    const created = await admin('/states', { method: 'POST', body: aState({ slug: 'dubai-roundtrip' }) });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body.data).toMatchObject({ name: 'Dubai', slug: 'dubai-roundtrip', country_code: 'AE', revision: 0, published: false });
    expect(created.body.meta).toEqual({
      request_id: created.headers.get('x-request-id'),
      generated_at: expect.any(String),
      position: created.headers.get('x-log-position'),
    });
    const { id } = created.body.data;

    const read = await admin(`/states/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"0"');
    expect(read.body.data).toMatchObject({ id, revision: 0, name: 'Dubai' });

    const revised = await admin(`/states/${id}`, { method: 'PATCH', headers: { 'if-match': '"0"' }, body: { name: 'Dubai Emirate' } });
    expect(revised.status).toBe(200);
    expect(revised.headers.get('etag')).toBe('"1"');
    expect(revised.body.data).toMatchObject({ id, revision: 1, name: 'Dubai Emirate', slug: 'dubai-roundtrip' });
  });

  it('when the ETag is sent back as If-None-Match, then the read answers 304 without a body', async () => {
    const { id } = await createState({ slug: 'dubai-conditional' });
    const answer = await admin(`/states/${id}`, { headers: { 'if-none-match': 'W/"0"' } });
    expect(answer.status).toBe(304);
    expect(answer.body).toBe('');
    expect(answer.headers.get('etag')).toBe('"0"');
  });

  it('when If-Match names a stale revision, then 409 CONFLICT and nothing is appended', async () => {
    const { id } = await createState({ slug: 'dubai-stale' });
    expect((await admin(`/states/${id}`, { method: 'PATCH', headers: { 'if-match': '"0"' }, body: { name: 'First edit' } })).status).toBe(
      200,
    );
    const eventsBefore = await app.eventStore.readStream(`state-${id}`);

    const stale = await admin(`/states/${id}`, { method: 'PATCH', headers: { 'if-match': '"0"' }, body: { name: 'Lost edit' } });

    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', details: { expected_revision: 0, current_revision: 1 } });
    expect(await app.eventStore.readStream(`state-${id}`)).toEqual(eventsBefore);
    expect((await admin(`/states/${id}`)).body.data.name).toBe('First edit');
  });

  it('when If-Match is * , then the edit applies to whatever revision is current', async () => {
    const { id } = await createState({ slug: 'dubai-any' });
    const answer = await admin(`/states/${id}`, { method: 'PATCH', headers: { 'if-match': '*' }, body: { name: 'Any' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toBe('"1"');
  });

  it('when several body fields are bad, then 422 VALIDATION_FAILED names every one, unknown fields included', async () => {
    const answer = await admin('/states', {
      method: 'POST',
      body: { name: '', slug: 'Not A Slug', country_code: 'ae', capital: 'Abu Dhabi', extra: 1 },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(
      ['body.capital', 'body.country_code', 'body.extra', 'body.name', 'body.slug'].sort(),
    );
    expect(answer.body.error.details.fields['body.extra']).toBe('is not a known field');
  });

  it('when params, If-Match and body are all bad, then one 422 names each of them', async () => {
    const answer = await admin('/states/not-a-number', { method: 'PATCH', headers: { 'if-match': 'v1' }, body: { nope: true } });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(['body.nope', 'header.if-match', 'params.stateId']);
  });

  it('when a required field is missing, then it is named', async () => {
    const answer = await admin('/states', { method: 'POST', body: { name: 'Sharjah', slug: 'sharjah' } });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.country_code']);
  });

  it('when an operation without a body gets one, then its fields are refused', async () => {
    const { id } = await createState({ slug: 'dubai-publish' });
    const withBody = await admin(`/states/${id}/publish`, { method: 'POST', body: { published: true } });
    expect(withBody.status).toBe(422);
    expect(withBody.body.error.details.fields).toEqual({ 'body.published': 'is not a known field' });

    const published = await admin(`/states/${id}/publish`, { method: 'POST' });
    expect(published.status).toBe(200);
    expect(published.body.data.published).toBe(true);
  });

  it('when the JSON is malformed, then 422 VALIDATION_FAILED names the body', async () => {
    const answer = await admin('/states', { method: 'POST', body: '{"name": "Dubai",' });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'The request body is not valid JSON.',
      details: { fields: { body: 'must be a valid JSON object or array' } },
    });
    expect(answer.headers.get('x-request-id')).toBe(answer.body.meta.request_id);
  });

  it('when the body is not JSON, then 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const answer = await admin('/states', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'name=Dubai' });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('when the body is larger than 1 MB, then 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await admin('/states', { method: 'POST', body: aState({ name: 'x'.repeat(1024 * 1024) }) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('when a slug is already taken, then 409 SLUG_TAKEN', async () => {
    await createState({ slug: 'dubai-taken' });
    const answer = await admin('/states', { method: 'POST', body: aState({ slug: 'dubai-taken' }) });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('SLUG_TAKEN');
  });

  it('when a known admin path is asked with another method, then 405 with Allow', async () => {
    const answer = await admin('/states', { method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS, POST');
    expect(answer.body.error.code).toBe('METHOD_NOT_ALLOWED');

    const options = await admin('/states/1', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS, PATCH');
  });
});
