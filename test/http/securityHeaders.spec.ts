import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Answer } from '../support/http.js';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';

const CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

describe('security headers', () => {
  let api: ApiFixture;
  let key: string;
  beforeAll(async () => {
    api = await startApiFixture();
    key = await api.key();
  });
  afterAll(() => api.close());

  const expectHardened = (answer: Answer) => {
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  };

  it('when /v1 answers, success or refusal, then the response carries nosniff and the policy', async () => {
    const answers = [
      await request(api.app.baseUrl, '/v1/health'),
      await request(api.app.baseUrl, '/v1/openapi.yaml'),
      await api.get('/catalog/metadata', key),
      await api.get('/projects?per_page=1', key),
      await api.get('/projects/no-such-project', key),
      await api.get('/projects?per_page=1000', key),
      await request(api.app.baseUrl, '/v1/projects'),
      await request(api.app.baseUrl, '/no-such-path'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 404, 422, 401, 404]);
    for (const answer of answers) expectHardened(answer);
  });

  it('when the admin API answers, success or refusal, then it also forbids every cache to store it', async () => {
    const answers = [
      await api.admin('GET', '/clients/1/usage/2026-11'),
      await api.admin('POST', '/plans', { key: 'x' }),
      await request(api.app.baseUrl, '/admin/v1/plans', { method: 'POST', body: {} }),
      await request(api.app.baseUrl, '/admin/openapi.yaml', { token: api.app.adminToken }),
      await api.admin('GET', '/no-such-admin-path'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 422, 401, 200, 404]);
    for (const answer of answers) {
      expectHardened(answer);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('when /v1 answers, then it leaves caching to the ETag and says nothing about storing', async () => {
    const answer = await api.get('/projects?per_page=1', key);
    expect(answer.headers.get('etag')).not.toBeNull();
    expect(answer.headers.get('cache-control')).toBeNull();
  });
});
