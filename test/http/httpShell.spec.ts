import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('HTTP shell', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when no route matches, then 404 NOT_FOUND in the error body', async () => {
    const answer = await request(app.baseUrl, '/no-such-endpoint');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      error: { code: 'NOT_FOUND', message: 'The requested resource is not available.', details: {} },
      meta: { request_id: answer.headers.get('x-request-id'), generated_at: expect.any(String) },
    });
    expect(new Date(answer.body.meta.generated_at).toISOString()).toBe(answer.body.meta.generated_at);
  });

  it('when the caller sends no X-Request-Id, then a uuid is generated for success and error answers alike', async () => {
    const success = await request(app.baseUrl, '/v1/health');
    const failure = await request(app.baseUrl, '/nowhere');
    expect(success.headers.get('x-request-id')).toMatch(UUID);
    expect(failure.headers.get('x-request-id')).toMatch(UUID);
    expect(success.headers.get('x-request-id')).not.toBe(failure.headers.get('x-request-id'));
    expect(success.body.meta.request_id).toBe(success.headers.get('x-request-id'));
  });

  it('when the caller sends a sane X-Request-Id, then it is echoed on success and on errors', async () => {
    const headers = { 'x-request-id': 'edge-7f3a.42:retry_1' };
    const success = await request(app.baseUrl, '/v1/health', { headers });
    const failure = await request(app.baseUrl, '/admin/v1/states', { headers });
    expect(success.headers.get('x-request-id')).toBe('edge-7f3a.42:retry_1');
    expect(success.body.meta.request_id).toBe('edge-7f3a.42:retry_1');
    expect(failure.status).toBe(401);
    expect(failure.headers.get('x-request-id')).toBe('edge-7f3a.42:retry_1');
    expect(failure.body.meta.request_id).toBe('edge-7f3a.42:retry_1');
  });

  it('when the incoming X-Request-Id is too long or has odd characters, then a fresh one replaces it', async () => {
    for (const incoming of ['x'.repeat(129), 'has space', 'quote"d', '<script>']) {
      const answer = await request(app.baseUrl, '/v1/health', { headers: { 'x-request-id': incoming } });
      expect(answer.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('when a public path is asked with a method it does not serve, then 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const answer = await request(app.baseUrl, '/v1/health', { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(answer.body.error).toEqual({
      code: 'METHOD_NOT_ALLOWED',
      message: 'This resource supports GET, HEAD, OPTIONS.',
      details: { allowed_methods: ['GET', 'HEAD', 'OPTIONS'] },
    });
    expect(answer.headers.get('x-request-id')).toBe(answer.body.meta.request_id);
  });

  it('when a path segment cannot be URL-decoded, then 400 BAD_REQUEST, not a 500', async () => {
    const answer = await request(app.baseUrl, '/admin/v1/states/%E0%A4%A', { token: app.adminToken });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('BAD_REQUEST');
  });

  it('when express would add its own headers, then there is no X-Powered-By', async () => {
    const answer = await request(app.baseUrl, '/v1/health');
    expect(answer.headers.get('x-powered-by')).toBeNull();
  });
});
