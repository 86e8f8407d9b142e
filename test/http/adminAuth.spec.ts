import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('admin authentication', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when the token is missing, malformed or wrong, then every answer is the same 401 UNAUTHENTICATED', async () => {
    const wrongOfSameLength = app.adminToken.replace(/.$/, (last) => (last === 'x' ? 'y' : 'x'));
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${Buffer.from(`admin:${app.adminToken}`).toString('base64')}` },
      { authorization: `Bearer ${app.adminToken} extra` },
      { authorization: `Token ${app.adminToken}` },
      { authorization: 'Bearer wrong' },
      { authorization: `Bearer ${wrongOfSameLength}` },
      { authorization: `Bearer ${app.adminToken}x` },
    ];
    for (const headers of attempts) {
      const answer = await request(app.baseUrl, '/admin/v1/states/1', { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.body.error).toEqual({ code: 'UNAUTHENTICATED', message: 'A valid bearer token is required.', details: {} });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.body.meta.request_id).toBe(answer.headers.get('x-request-id'));
    }
  });

  it('when the token is wrong on a path that does not exist, then it is still 401 (nothing about the admin API leaks)', async () => {
    const answer = await request(app.baseUrl, '/admin/v1/no-such-thing', { token: 'wrong' });
    expect(answer.status).toBe(401);
  });

  it('when the token is right, then the admin API answers (bearer scheme in any case)', async () => {
    const answer = await request(app.baseUrl, '/admin/v1/states/1', { headers: { authorization: `bearer ${app.adminToken}` } });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });

  it('when the admin OpenAPI document is asked without the token, then 401', async () => {
    expect((await request(app.baseUrl, '/admin/openapi.yaml')).status).toBe(401);
  });
});

describe('generated admin token (embedded mode without ADMIN_TOKEN)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'catalogue-admin-token-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('when the service starts twice, then the token is written once with mode 0600, accepted, and reused', async () => {
    const first = await startTestApp({ env: { ADMIN_TOKEN: '', DATA_DIR: dataDir } });
    const tokenFile = join(dataDir, 'admin-token');
    try {
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      const stored = (await readFile(tokenFile, 'utf8')).trim();
      expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(first.adminToken).toBe(stored);
      expect((await request(first.baseUrl, '/admin/v1/states/1', { token: stored })).status).toBe(404);
    } finally {
      await first.close();
    }

    const second = await startTestApp({ env: { ADMIN_TOKEN: '', DATA_DIR: dataDir } });
    try {
      expect(second.adminToken).toBe(first.adminToken);
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    } finally {
      await second.close();
    }
  });
});
