import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { request } from '../support/http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_PREFIX_LENGTH = 'svc_live_'.length;

/** Every 12-character piece of a secret: none may appear in the log, however the secret was cut. */
const piecesOf = (secret: string) => Array.from({ length: secret.length - 11 }, (_, start) => secret.slice(start, start + 12));

describe('secrets in requests never reach the log', () => {
  let api: ApiFixture;
  let key: string;
  let logText = '';

  beforeAll(async () => {
    api = await startApiFixture({
      env: { LOG_LEVEL: 'debug' },
      logDestination: { write: (line: string) => void (logText += line) },
    });
    key = await api.key();
  });
  afterAll(() => api.close());

  it('when a live key is sent in a path, a query string, X-Request-Id and a bogus Authorization, then the log holds no part of its secret', async () => {
    const inPath = await api.get(`/projects/${key}`, key);
    const inKeyParameter = await request(api.app.baseUrl, `/v1/projects?api_key=${key}`);
    const inSearch = await api.get(`/projects?q=${key}`, key);
    const asRequestId = await api.get('/projects', key, { headers: { 'x-request-id': key } });
    const asBogusBearer = await request(api.app.baseUrl, '/v1/projects', { headers: { authorization: `Bearer ${key}x` } });
    const withoutScheme = await request(api.app.baseUrl, '/v1/projects', { headers: { authorization: key } });

    expect(inPath.status).toBe(422);
    expect([inKeyParameter.status, inKeyParameter.body.error.code]).toEqual([400, 'API_KEY_IN_QUERY']);
    expect([inSearch.status, inSearch.body.error.code]).toEqual([400, 'API_KEY_IN_QUERY']);
    expect(asRequestId.status).toBe(200);
    expect([asBogusBearer.status, withoutScheme.status]).toEqual([401, 401]);
    const secret = key.slice(KEY_PREFIX_LENGTH);
    expect(piecesOf(secret).filter((piece) => logText.includes(piece))).toEqual([]);
    // The request lines were written, with the key's prefix only.
    expect(logText).toContain('"path":"/v1/projects/svc_live_[Redacted]"');
  });

  it('when X-Request-Id is a key, a generated token or a link signature, then the response carries a generated id instead and the log never holds the value', async () => {
    const shapes = [key, randomBytes(32).toString('base64url'), randomBytes(32).toString('hex')];
    for (const shape of shapes) {
      const answer = await api.get('/projects', key, { headers: { 'x-request-id': shape } });

      expect(answer.status).toBe(200);
      const echoed = answer.headers.get('x-request-id');
      expect(echoed).toMatch(UUID);
      expect(answer.body.meta.request_id).toBe(echoed);
      expect(logText).toContain(`"requestId":"${echoed}"`);
      expect(logText).not.toContain(shape);
    }
  });

  it('when X-Request-Id is an ordinary trace id, then it is kept and echoed', async () => {
    for (const traceId of ['checkout-42', '3f2b9c1e-7d4a-4e8b-9f1c-2a6d5e7b8c90', randomBytes(16).toString('hex'), 'svc_jobs:batch.7']) {
      const answer = await api.get('/projects', key, { headers: { 'x-request-id': traceId } });

      expect(answer.headers.get('x-request-id')).toBe(traceId);
    }
  });

  it('when a request with a key in its path fails with a server error, then the error line names the path without the secret', async () => {
    await api.app.readStore.close();

    const answer = await api.get(`/projects/${key}`, key);

    expect(answer.status).toBe(500);
    expect(piecesOf(key.slice(KEY_PREFIX_LENGTH)).filter((piece) => logText.includes(piece))).toEqual([]);
    expect(logText).toMatch(/"path":"\/v1\/projects\/svc_live_\[Redacted\]".*"msg":"unhandled error"/);
  });
});
