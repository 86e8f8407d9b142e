import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EDITOR_ROLES, roleIncludes, type EditorRole } from '../../src/access/editor.js';
import { ADMIN_OPERATION_ROLES } from '../../src/http/adminRoutes/editorRoles.js';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const UNKNOWN_ID = 999_999;

/** An operation of the admin API as its OpenAPI document (generated from the routes the app serves) lists it. */
interface Operation {
  method: string;
  path: string;
  operationId: string;
  requiredRole: string;
}

describe('admin roles over HTTP', () => {
  let app: TestApp;
  let operations: Operation[];
  const tokens = {} as Record<EditorRole, string>;

  beforeAll(async () => {
    app = await startTestApp();
    const document = parse((await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body);
    operations = Object.entries(
      document.paths as Record<string, Record<string, { operationId: string; 'x-required-role': string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({
          method,
          path,
          operationId: operation.operationId,
          requiredRole: operation['x-required-role'],
        })),
    );
    for (const role of EDITOR_ROLES) {
      const admin = { token: app.adminToken };
      const editor = await request(app.baseUrl, '/admin/v1/editors', { ...admin, method: 'POST', body: { name: `The ${role}`, role } });
      const issued = await request(app.baseUrl, `/admin/v1/editors/${editor.body.data.id}/tokens`, { ...admin, method: 'POST', body: {} });
      tokens[role] = issued.body.data.token;
    }
    await app.projector.waitForPosition((await app.eventStore.headPosition())!, 10_000);
  });
  afterAll(() => app.close());

  it('when the served operations are held against the role table, then each is classified and the table names no other', () => {
    expect(operations.length).toBeGreaterThan(100);
    const served = operations.map((operation) => operation.operationId);
    expect(served.filter((operationId) => !ADMIN_OPERATION_ROLES.has(operationId))).toEqual([]);
    expect([...ADMIN_OPERATION_ROLES.keys()].filter((operationId) => !served.includes(operationId))).toEqual([]);
    expect(operations.filter((operation) => operation.requiredRole !== ADMIN_OPERATION_ROLES.get(operation.operationId))).toEqual([]);
  });

  it('when every role calls every operation, then it runs exactly where the table allows and is refused with 403 elsewhere, appending nothing', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const operation of operations) {
      const required = ADMIN_OPERATION_ROLES.get(operation.operationId)!;
      // Whatever the ids and the body, a refusal for the role comes first; an allowed call gets past it (to a 404 or 422, say).
      // Ids of nothing, so that no call changes what the others run on (the tokens above, say).
      const path = `/admin/v1${operation.path.replace(/\{\w+\}/g, String(UNKNOWN_ID))}`;
      for (const role of EDITOR_ROLES) {
        const headBefore = await app.eventStore.headPosition();
        const answer = await request(app.baseUrl, path, { method: operation.method.toUpperCase(), token: tokens[role] });
        const refused = answer.status === 403 && answer.body?.error?.code === 'INSUFFICIENT_ROLE';
        const label = `${role} ${operation.operationId}`;
        outcomes.push(`${label}: ${refused ? 'refused' : answer.status === 401 ? 'unauthenticated' : 'allowed'}`);
        expected.push(`${label}: ${roleIncludes(role, required) ? 'allowed' : 'refused'}`);
        expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        if (refused) {
          expect(answer.body.error.details, label).toEqual({ required_role: required, role });
          expect(await app.eventStore.headPosition(), label).toBe(headBefore);
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it('when a role reads what it may not, or writes with a body it would be told is invalid, then 403 comes before validation', async () => {
    const listing = await request(app.baseUrl, '/admin/v1/clients?unknown=1', { token: tokens.publisher });
    expect(listing.status).toBe(403);
    expect(listing.body.error).toMatchObject({ code: 'INSUFFICIENT_ROLE', details: { required_role: 'operator', role: 'publisher' } });
    const creating = await request(app.baseUrl, '/admin/v1/editors', { method: 'POST', token: tokens.operator, body: { role: 'nobody' } });
    expect(creating.status).toBe(403);
    expect(creating.body.error.details).toEqual({ required_role: 'admin', role: 'operator' });
  });

  it('when /metrics is scraped with an editor token, then it needs the operator role', async () => {
    const refused = await request(app.baseUrl, '/metrics', { token: tokens.publisher });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ required_role: 'operator', role: 'publisher' });
    expect((await request(app.baseUrl, '/metrics', { token: tokens.operator })).status).toBe(200);
  });
});
