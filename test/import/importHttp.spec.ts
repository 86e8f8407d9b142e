import { readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDITOR_ROLES } from '../../src/access/editor.js';
import { IMPORT_MAX_BYTES, IMPORT_OPERATION_ID, NDJSON_CONTENT_TYPE } from '../../src/http/adminRoutes/importRoutes.js';
import { allowedRolesOf } from '../../src/http/adminRoutes/editorRoles.js';
import { ImportKeys } from '../../src/import/importKeys.js';
import { request } from '../support/http.js';
import { storedImage } from '../support/storedFiles.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { ndjson, partLines, projectLine, referenceLines, wholeLog } from './importLines.js';

const postImport = (
  app: TestApp,
  body: string,
  options: { token?: string; contentType?: string; query?: string; headers?: Record<string, string> } = {},
) =>
  request(app.baseUrl, `/admin/v1/imports${options.query ?? ''}`, {
    method: 'POST',
    token: options.token ?? app.adminToken,
    headers: { 'content-type': options.contentType ?? NDJSON_CONTENT_TYPE, ...options.headers },
    body,
  });

/** A request whose Content-Length promises more than the limit: it is answered before the body is read. */
function postDeclaringLength(app: TestApp, length: number): Promise<{ status: number; connection: string | undefined; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(`${app.baseUrl}/admin/v1/imports`),
      {
        method: 'POST',
        headers: { authorization: `Bearer ${app.adminToken}`, 'content-type': NDJSON_CONTENT_TYPE, 'content-length': String(length) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }));
      },
    );
    // The server closes the connection after answering, while this side still has a body to send.
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    req.write(ndjson(...referenceLines));
  });
}

describe('POST /admin/v1/imports', () => {
  let app: TestApp;
  let dataDir: string;
  let catalogue: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'import-http-'));
    app = await startTestApp({ env: { DATA_DIR: dataDir } });
    const images = { floorPlan: await storedImage(app.blobStore, { seed: 3 }), gallery: await storedImage(app.blobStore, { seed: 4 }) };
    catalogue = ndjson(...referenceLines, projectLine('p1'), ...partLines('p1', images), projectLine('p2', { related_projects: ['p1'] }));
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a catalogue with refused lines is posted, then the answer reports every line, lists the refused ones by line number, and the accepted records are written', async () => {
    const refused = projectLine('p3', { developer: 'dev-nobody' });

    const answer = await postImport(app, `${catalogue}${ndjson(refused, '{')}`);

    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ lines: 15, accepted: 13, refused: 2, created: 13, revised: 0, unchanged: 0 });
    expect(answer.body.data.refusals).toMatchObject([
      {
        line: 14,
        type: 'project',
        key: 'p3',
        error: { code: 'VALIDATION_FAILED', details: { fields: { 'data.developer': expect.any(String) } } },
      },
      { line: 15, type: null, key: null, error: { code: 'VALIDATION_FAILED', details: { fields: { line: 'must be one JSON object' } } } },
    ]);
    const head = String(await app.eventStore.headPosition());
    expect(answer.body.meta.position).toBe(head);
    expect(answer.headers.get('x-log-position')).toBe(head);

    const projectId = (await ImportKeys.load(app.eventStore)).get('project', 'p2')!.id;
    const project = await request(app.baseUrl, `/admin/v1/projects/${projectId}`, { token: app.adminToken });
    expect(project.body.data).toMatchObject({ name: 'Tower p2', published: true, related_project_ids: [projectId - 1] });
    const [created] = await app.eventStore.readStream(`project-${projectId}`);
    expect(created!.metadata).toMatchObject({ actor: 'bootstrap', request_id: answer.headers.get('x-request-id') });
    expect(readdirSync(join(dataDir, 'uploads'))).toEqual([]);
  });

  it('when the same catalogue is posted again, then nothing is appended and every line is unchanged', async () => {
    const head = await app.eventStore.headPosition();

    const answer = await postImport(app, catalogue);

    expect(answer.body.data).toMatchObject({ accepted: 13, unchanged: 13, events: 0, refusals: [] });
    expect(await app.eventStore.headPosition()).toBe(head);
  });

  it('when the body is not NDJSON, a query parameter or a revision is given, or Content-Length is over the limit, then it is refused and nothing is appended', async () => {
    const logBefore = await wholeLog(app.eventStore);

    expect(await postImport(app, catalogue, { contentType: 'application/json' })).toMatchObject({
      status: 415,
      body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    });
    expect(await postImport(app, catalogue, { query: '?dry_run=true' })).toMatchObject({
      status: 422,
      body: { error: { code: 'VALIDATION_FAILED', details: { fields: { 'query.dry_run': 'is not a known field' } } } },
    });
    expect(await postImport(app, catalogue, { headers: { 'if-match': '"3"' } })).toMatchObject({
      status: 409,
      body: { error: { code: 'CONFLICT', details: { expected_revision: 3, current_revision: -1 } } },
    });
    expect(await postImport(app, catalogue, { headers: { 'if-match': 'three' } })).toMatchObject({
      status: 422,
      body: { error: { code: 'VALIDATION_FAILED', details: { fields: { 'header.if-match': expect.any(String) } } } },
    });
    expect(await postDeclaringLength(app, IMPORT_MAX_BYTES + 1)).toMatchObject({
      status: 413,
      connection: 'close',
      body: { error: { code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: IMPORT_MAX_BYTES } } },
    });
    expect(await request(app.baseUrl, '/admin/v1/imports', { token: app.adminToken })).toMatchObject({
      status: 405,
      body: { error: { code: 'METHOD_NOT_ALLOWED' } },
    });
    expect(await wholeLog(app.eventStore)).toEqual(logBefore);
  });

  it('when the caller’s role may not import, then 403 INSUFFICIENT_ROLE and nothing is appended', async () => {
    const allowed = allowedRolesOf(IMPORT_OPERATION_ID);
    const refused = EDITOR_ROLES.find((role) => !allowed.includes(role))!;
    const editor = await request(app.baseUrl, '/admin/v1/editors', {
      method: 'POST',
      token: app.adminToken,
      body: { name: 'Refused', role: refused },
    });
    const issued = await request(app.baseUrl, `/admin/v1/editors/${editor.body.data.id}/tokens`, {
      method: 'POST',
      token: app.adminToken,
      body: {},
    });
    await app.projector.waitForPosition((await app.eventStore.headPosition())!, 10_000);
    const head = await app.eventStore.headPosition();

    const answer = await postImport(app, ndjson(projectLine('p9')), { token: issued.body.data.token });

    expect(answer).toMatchObject({
      status: 403,
      body: { error: { code: 'INSUFFICIENT_ROLE', details: { allowed_roles: allowed, role: refused } } },
    });
    expect(await app.eventStore.headPosition()).toBe(head);
  });
});
