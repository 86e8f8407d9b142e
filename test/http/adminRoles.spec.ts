import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EDITOR_ROLES, type EditorRole } from '../../src/access/editor.js';
import { ADMIN_OPERATION_GROUPS, PERMISSION_GROUPS, allowedRolesOf, rolesWith } from '../../src/http/adminRoutes/editorRoles.js';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const UNKNOWN_ID = 999_999;

/** An operation of the admin API as its OpenAPI document (generated from the routes the app serves) lists it. */
interface Operation {
  method: string;
  path: string;
  operationId: string;
  allowedRoles: string[];
  requiredRole: string;
}

const refusal = (role: EditorRole, allowed: readonly EditorRole[]) => ({ role, allowed_roles: allowed, required_role: allowed[0] });

describe('admin roles over HTTP', () => {
  let app: TestApp;
  let operations: Operation[];
  const tokens = {} as Record<EditorRole, string>;

  beforeAll(async () => {
    app = await startTestApp();
    const document = parse((await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body);
    operations = Object.entries(
      document.paths as Record<string, Record<string, { operationId: string; 'x-allowed-roles': string[]; 'x-required-role': string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({
          method,
          path,
          operationId: operation.operationId,
          allowedRoles: operation['x-allowed-roles'],
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

  it('when the permission groups are read per role, then each role holds exactly the groups the issue gives it', () => {
    expect(Object.fromEntries(PERMISSION_GROUPS.map((group) => [group, rolesWith(group)]))).toEqual({
      catalogueReads: ['editor', 'publisher', 'operator', 'admin'],
      catalogueEdits: ['editor', 'publisher', 'admin'],
      publishing: ['publisher', 'admin'],
      accessAdministration: ['operator', 'admin'],
      editorAccounts: ['admin'],
    });
    expect(allowedRolesOf('anOperationNobodyClassified')).toEqual(['admin']);
  });

  it('when the served operations are held against the role table, then each is classified, the table names no other and the document shows its roles', () => {
    expect(operations.length).toBeGreaterThan(100);
    const served = operations.map((operation) => operation.operationId);
    expect(served.filter((operationId) => !ADMIN_OPERATION_GROUPS.has(operationId))).toEqual([]);
    expect([...ADMIN_OPERATION_GROUPS.keys()].filter((operationId) => !served.includes(operationId))).toEqual([]);
    const documentedRoles = operations.map(({ operationId, allowedRoles, requiredRole }) => ({ operationId, allowedRoles, requiredRole }));
    expect(documentedRoles).toEqual(
      operations.map(({ operationId }) => ({
        operationId,
        allowedRoles: allowedRolesOf(operationId),
        requiredRole: allowedRolesOf(operationId)[0],
      })),
    );
  });

  it('when every role calls every operation, then it runs exactly where the table allows and is refused with 403 elsewhere, appending nothing', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const operation of operations) {
      const allowed = allowedRolesOf(operation.operationId);
      // Whatever the ids and the body, a refusal for the role comes first; an allowed call gets past it (to a 404 or 422, say).
      // Ids of nothing, so that no call changes what the others run on (the tokens above, say).
      const path = `/admin/v1${operation.path.replace(/\{\w+\}/g, String(UNKNOWN_ID))}`;
      for (const role of EDITOR_ROLES) {
        const headBefore = await app.eventStore.headPosition();
        const answer = await request(app.baseUrl, path, { method: operation.method.toUpperCase(), token: tokens[role] });
        const refused = answer.status === 403 && answer.body?.error?.code === 'INSUFFICIENT_ROLE';
        const label = `${role} ${operation.operationId}`;
        outcomes.push(`${label}: ${refused ? 'refused' : answer.status === 401 ? 'unauthenticated' : 'allowed'}`);
        expected.push(`${label}: ${allowed.includes(role) ? 'allowed' : 'refused'}`);
        expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        if (refused) {
          expect(answer.body.error.details, label).toEqual(refusal(role, allowed));
          expect(await app.eventStore.headPosition(), label).toBe(headBefore);
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it('when an operator edits, publishes or deletes catalogue content, then each is refused, while reading it is not', async () => {
    const admin = { token: app.adminToken };
    const state = await request(app.baseUrl, '/admin/v1/states', {
      ...admin,
      method: 'POST',
      body: { name: 'Ajman', slug: 'ajman', country_code: 'AE' },
    });
    expect(state.status).toBe(201);
    await app.projector.waitForPosition((await app.eventStore.headPosition())!, 10_000);
    const operator = { token: tokens.operator };
    const statePath = `/admin/v1/states/${state.body.data.id}`;

    const head = await app.eventStore.headPosition();
    const revising = await request(app.baseUrl, statePath, { ...operator, method: 'PATCH', body: { name: 'Ajman Emirate' } });
    const publishing = await request(app.baseUrl, `${statePath}/publish`, { ...operator, method: 'POST' });
    const deleting = await request(app.baseUrl, `/admin/v1/projects/${UNKNOWN_ID}`, { ...operator, method: 'DELETE' });
    expect(revising.body.error.details).toEqual(refusal('operator', ['editor', 'publisher', 'admin']));
    expect(publishing.body.error.details).toEqual(refusal('operator', ['publisher', 'admin']));
    expect(deleting.body.error.details).toEqual(refusal('operator', ['publisher', 'admin']));
    expect([revising.status, publishing.status, deleting.status]).toEqual([403, 403, 403]);
    expect(await app.eventStore.headPosition()).toBe(head);

    const reading = await request(app.baseUrl, statePath, operator);
    expect(reading.status).toBe(200);
    expect(reading.body.data.name).toBe('Ajman');
  });

  it('when a role reads what it may not, or writes with a body it would be told is invalid, then 403 comes before validation', async () => {
    const listing = await request(app.baseUrl, '/admin/v1/clients?unknown=1', { token: tokens.publisher });
    expect(listing.status).toBe(403);
    expect(listing.body.error).toMatchObject({ code: 'INSUFFICIENT_ROLE', details: refusal('publisher', ['operator', 'admin']) });
    const creating = await request(app.baseUrl, '/admin/v1/editors', { method: 'POST', token: tokens.operator, body: { role: 'nobody' } });
    expect(creating.status).toBe(403);
    expect(creating.body.error.details).toEqual(refusal('operator', ['admin']));
  });

  it('when /metrics is scraped with an editor token, then operators and admins get it and the catalogue roles are refused', async () => {
    for (const role of ['editor', 'publisher'] as const) {
      const refused = await request(app.baseUrl, '/metrics', { token: tokens[role] });
      expect(refused.status, role).toBe(403);
      expect(refused.body.error.details, role).toEqual(refusal(role, ['operator', 'admin']));
    }
    expect((await request(app.baseUrl, '/metrics', { token: tokens.operator })).status).toBe(200);
    expect((await request(app.baseUrl, '/metrics', { token: tokens.admin })).status).toBe(200);
  });
});
