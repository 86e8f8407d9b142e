import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { takeRecordedExchanges } from '../support/recordedResponses.js';
import { undocumentedAnswers } from '../support/servedDocuments.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

// The hook of test/support/setup.ts checks what every test file received; these tests take the recorded
// answers themselves (so the hook sees none of them) to show what is recorded and what a mismatch says.

let app: TestApp;
let lookalike: Server;
let lookalikeUrl: string;

beforeAll(async () => {
  app = await startTestApp();
  // A server of the test's own that answers /v1 paths too, as express apps built in tests do.
  lookalike = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"anything":true}'));
  await new Promise<void>((resolve) => lookalike.listen(0, '127.0.0.1', resolve));
  lookalikeUrl = `http://127.0.0.1:${(lookalike.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => lookalike.close(resolve));
});

describe('answers checked against the served OpenAPI documents', () => {
  it('when the service and another server answer, then only the service’s answers of its APIs are recorded, with the test', async () => {
    await request(app.baseUrl, '/v1/health');
    await request(app.baseUrl, '/admin/v1/states', { token: app.adminToken });
    await request(app.baseUrl, '/livez');
    await request(lookalikeUrl, '/v1/health');
    const recorded = await takeRecordedExchanges();
    expect(recorded.map(({ method, url, status }) => `${method} ${new URL(url).pathname} ${status}`)).toEqual([
      'GET /v1/health 200',
      'GET /admin/v1/states 200',
    ]);
    expect(recorded[0]!.test).toContain('only the service’s answers of its APIs are recorded');
    expect(await undocumentedAnswers(recorded)).toEqual([]);
  });

  it('when an answer contradicts the document, then the mismatch names the test, the operation and what is wrong', async () => {
    await request(app.baseUrl, '/v1/projects/1', { token: 'svc_live_not-a-key' });
    const [refused] = await takeRecordedExchanges();
    expect(refused!.status).toBe(401);
    const body = JSON.parse(refused!.body!);
    const altered = [
      { ...refused!, status: 418 },
      { ...refused!, body: JSON.stringify({ ...body, error: { ...body.error, code: 'NOT_A_CODE' } }) },
    ];
    const mismatches = await undocumentedAnswers(altered);
    expect(mismatches).toHaveLength(2);
    expect(mismatches[0]).toMatch(
      /^.*the mismatch names the test.*: GET \/v1\/projects\/\{project\} \(\/v1\/projects\/1\) answered 418: the status is not documented/,
    );
    expect(mismatches[1]).toContain('answered 401: body /error/code must be equal to one of the allowed values');
  });
});
