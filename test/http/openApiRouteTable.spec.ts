import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { request } from '../support/http.js';
import { documentedOperations, servedOperations } from '../support/routeTable.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const PUBLIC_BASE_URL = 'https://api.example.test/v1';

/** Served by the app but no operation of either API: the documents themselves' admin one, the probes and the reference page. */
const OUTSIDE_THE_APIS = [/^GET \/admin\/openapi\.yaml$/, /^GET \/(livez|readyz|metrics)$/, /^GET \/docs\//];

describe('the OpenAPI documents and the route table', () => {
  let app: TestApp;
  let publicDocument: any;
  let adminDocument: any;
  beforeAll(async () => {
    app = await startTestApp({ env: { PUBLIC_BASE_URL } });
    publicDocument = parse((await request(app.baseUrl, '/v1/openapi.yaml', { headers: { host: 'api.example.test' } })).body);
    adminDocument = parse((await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body);
  });
  afterAll(() => app.close());

  it('when the app serves a route, then one of the documents describes it, and each documented operation is served', () => {
    const served = servedOperations(app.express).filter((operation) => !OUTSIDE_THE_APIS.some((outside) => outside.test(operation)));
    const documented = [...documentedOperations(publicDocument, '/v1'), ...documentedOperations(adminDocument, '/admin/v1')];
    // Express answers HEAD wherever it serves GET; the documents name HEAD where its answer is worth describing.
    const heads = documented.filter((operation) => operation.startsWith('HEAD '));
    expect(heads.filter((head) => !served.includes(head.replace(/^HEAD /, 'GET ')))).toEqual([]);
    expect(new Set(served).size).toBe(served.length);
    expect(documented.filter((operation) => !heads.includes(operation)).sort()).toEqual([...served].sort());
  });

  it('when PUBLIC_BASE_URL is configured, then the public document names it as its server', () => {
    expect(publicDocument.servers.map((server: { url: string }) => server.url)).toEqual([PUBLIC_BASE_URL]);
  });
});
