import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import { decodeSecretKey } from '../../src/config.js';
import { MAX_WEBHOOKS_PER_CLIENT } from '../../src/webhooks/webhook.js';
import { createWebhookSecretBox } from '../../src/webhooks/webhookSecrets.js';
import { startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { request, type Answer } from '../support/http.js';

/** A public address written as a literal, so no test asks a DNS server. */
const PUBLIC_URL = 'https://93.184.215.14/catalogue-hooks';
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;
const WEBHOOK_ID = /^wh_[0-9a-f]{24}$/;

let api: ApiFixture;
let owner: IssuedKey;
let logText = '';
let document: any;
let ajv: Ajv2020;

beforeAll(async () => {
  api = await startApiFixture({
    env: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'debug' },
    logDestination: { write: (line: string) => void (logText += line) },
  });
  owner = await api.issue();
  document = parse((await request(api.app.baseUrl, '/v1/openapi.yaml')).body);
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
});

afterAll(() => api.close());

const call = <Body = any>(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
  request<Body>(api.app.baseUrl, `/v1${path}`, { method, token: key, headers, ...(body === undefined ? {} : { body }) });

/** The answer's status is documented for the operation, and its body validates against that response's schema. */
function expectDocumented(method: string, openApiPath: string, answer: Answer): void {
  const operation = document.paths[openApiPath]?.[method];
  expect(operation, `${method} ${openApiPath}`).toBeDefined();
  const responseNode = operation.responses[String(answer.status)];
  expect(responseNode, `${method} ${openApiPath} documents ${answer.status}`).toBeDefined();
  if (answer.status === 304) return;
  const pointer =
    typeof responseNode.$ref === 'string'
      ? responseNode.$ref.slice(1)
      : `/paths/${openApiPath.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${answer.status}`;
  const validate = ajv.compile({ $ref: `openapi#${pointer}/content/application~1json/schema` });
  expect(validate(answer.body), `${method} ${openApiPath} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

function expectValidation(answer: Answer, fields: Record<string, unknown>): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expect(answer.body.error.code).toBe('VALIDATION_FAILED');
  expect(answer.body.error.details.fields).toEqual(fields);
}

const aWebhook = (overrides: Record<string, unknown> = {}) => ({
  name: 'CRM sync',
  url: PUBLIC_URL,
  events: ['project.created', 'project.updated'],
  ...overrides,
});

async function created(key: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('POST', '/webhooks', key, aWebhook(overrides));
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data as { id: string; secret: string; [field: string]: unknown };
}

describe('/v1/webhooks management', () => {
  it('when a webhook is created, then 201 shows it with its secret once; GET and the list show it without', async () => {
    const answer = await call('POST', '/webhooks', owner.key, aWebhook());
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expectDocumented('post', '/webhooks', answer);
    const webhook = answer.body.data;
    expect(webhook).toEqual({
      id: expect.stringMatching(WEBHOOK_ID),
      name: 'CRM sync',
      url: PUBLIC_URL,
      events: ['project.created', 'project.updated'],
      status: 'active',
      created_at: expect.any(String),
      updated_at: webhook.created_at,
      secret: expect.stringMatching(SECRET),
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');

    const one = await call('GET', `/webhooks/${webhook.id}`, owner.key);
    expect(one.status).toBe(200);
    expectDocumented('get', '/webhooks/{id}', one);
    const { secret: _secret, ...withoutSecret } = webhook;
    expect(one.body.data).toEqual(withoutSecret);
    expect((await call('GET', `/webhooks/${webhook.id}`, owner.key, undefined, { 'if-none-match': one.headers.get('etag')! })).status).toBe(
      304,
    );

    await api.settle();
    const list = await call('GET', '/webhooks?per_page=5', owner.key);
    expect(list.status).toBe(200);
    expectDocumented('get', '/webhooks', list);
    expect(list.body.data).toContainEqual(withoutSecret);
    expect(list.body.meta.pagination).toMatchObject({ page: 1, per_page: 5 });
    expect(JSON.stringify([one.body, list.body])).not.toContain(webhook.secret);

    // Stored sealed only; the log never holds the secret, nor the read model.
    const doc = await api.app.readStore.get<WebhookDoc>(WEBHOOKS, webhook.id);
    expect(doc?.secrets).toHaveLength(1);
    expect(JSON.stringify(doc)).not.toContain(webhook.secret.slice('whsec_'.length));
    expect(logText).not.toContain(webhook.secret.slice('whsec_'.length));
  });

  it('when a webhook is updated partially, then only the fields sent change; status disabled and active again are the client’s', async () => {
    const webhook = await created(owner.key);
    const renamed = await call('PUT', `/webhooks/${webhook.id}`, owner.key, { name: 'Renamed', url: 'https://93.184.215.14:443/v2' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expectDocumented('put', '/webhooks/{id}', renamed);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', url: 'https://93.184.215.14/v2', events: webhook.events, status: 'active' });
    expect(renamed.body.data.secret).toBeUndefined();

    const disabled = await call('PUT', `/webhooks/${webhook.id}`, owner.key, { status: 'disabled', events: ['community.updated'] });
    expect(disabled.body.data).toMatchObject({ status: 'disabled', disabled_reason: 'client', events: ['community.updated'] });
    const enabled = await call('PUT', `/webhooks/${webhook.id}`, owner.key, { status: 'active' });
    expect(enabled.body.data.status).toBe('active');
    expect(enabled.body.data).not.toHaveProperty('disabled_reason');
    const unchanged = await call('PUT', `/webhooks/${webhook.id}`, owner.key, {});
    expect(unchanged.body.data).toEqual(enabled.body.data);
  });

  it('when the secret is rotated, then the new secret is shown once and the replaced one is kept sealed for the overlap', async () => {
    const webhook = await created(owner.key);
    const rotated = await call('POST', `/webhooks/${webhook.id}/rotate-secret`, owner.key);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expectDocumented('post', '/webhooks/{id}/rotate-secret', rotated);
    expect(rotated.body.data.secret).toMatch(SECRET);
    expect(rotated.body.data.secret).not.toBe(webhook.secret);
    expect((await call('GET', `/webhooks/${webhook.id}`, owner.key)).body.data.secret).toBeUndefined();
    await api.settle();
    const doc = await api.app.readStore.get<WebhookDoc>(WEBHOOKS, webhook.id);
    expect(doc?.secrets.map((secret) => secret.retire_at === null)).toEqual([true, false]);
    const retireAt = Date.parse(doc!.secrets[1]!.retire_at!);
    expect(retireAt - Date.parse(rotated.body.data.updated_at)).toBe(86_400_000);
  });

  it('when a webhook is deleted, then 200 { id, deleted: true }, and from then on it is 404 and out of the list', async () => {
    const webhook = await created(owner.key);
    const deleted = await call('DELETE', `/webhooks/${webhook.id}`, owner.key);
    expect(deleted.status).toBe(200);
    expectDocumented('delete', '/webhooks/{id}', deleted);
    expect(deleted.body.data).toEqual({ id: webhook.id, deleted: true });
    for (const [method, path] of [
      ['GET', `/webhooks/${webhook.id}`],
      ['PUT', `/webhooks/${webhook.id}`],
      ['DELETE', `/webhooks/${webhook.id}`],
      ['POST', `/webhooks/${webhook.id}/rotate-secret`],
    ] as const) {
      const answer = await call(method, path, owner.key, method === 'PUT' ? { name: 'Again' } : undefined);
      expect([method, answer.status, answer.body.error?.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    await api.settle();
    expect((await call('GET', '/webhooks?per_page=100', owner.key)).body.data.map((hook: { id: string }) => hook.id)).not.toContain(
      webhook.id,
    );
  });
});

describe('/v1/webhooks refusals', () => {
  it('when the key lacks the scope or the plan the entitlement, then 403 INSUFFICIENT_SCOPE or ENTITLEMENT_REQUIRED, on every operation', async () => {
    const noScope = await api.key({ scopes: ['projects:read'], entitlements: ['webhooks'] });
    const noEntitlement = await api.key({ scopes: ['webhooks:manage'], entitlements: [] });
    const id = 'wh_000000000000000000000000';
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', `/webhooks/${id}`],
      ['PUT', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate-secret`],
    ] as const) {
      const scope = await call(method, path, noScope, method === 'GET' || method === 'DELETE' ? undefined : aWebhook());
      expect([path, scope.status, scope.body.error.code, scope.body.error.details.missing_scopes]).toEqual([
        path,
        403,
        'INSUFFICIENT_SCOPE',
        ['webhooks:manage'],
      ]);
      const entitlement = await call(method, path, noEntitlement);
      expect([path, entitlement.status, entitlement.body.error.code, entitlement.body.error.details.missing_entitlements]).toEqual([
        path,
        403,
        'ENTITLEMENT_REQUIRED',
        ['webhooks'],
      ]);
    }
    expectDocumented('post', '/webhooks', await call('POST', '/webhooks', noScope, aWebhook()));
  });

  it("when another client's webhook id is used, then the one 404, and the webhook is unchanged", async () => {
    const webhook = await created(owner.key);
    const other = await api.key();
    for (const [method, path, body] of [
      ['GET', `/webhooks/${webhook.id}`, undefined],
      ['PUT', `/webhooks/${webhook.id}`, { status: 'disabled' }],
      ['POST', `/webhooks/${webhook.id}/rotate-secret`, undefined],
      ['DELETE', `/webhooks/${webhook.id}`, undefined],
    ] as const) {
      const answer = await call(method, path, other, body);
      expect([method, answer.status, answer.body.error.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expectDocumented('get', '/webhooks/{id}', await call('GET', `/webhooks/${webhook.id}`, other));
    expect((await call('GET', `/webhooks/${webhook.id}`, owner.key)).body.data.status).toBe('active');
    await api.settle();
    expect((await call('GET', '/webhooks', other)).body.data).toEqual([]);
  });

  it('when the id is malformed or the list has an unknown or bad parameter, then 422 naming each', async () => {
    expectValidation(await call('GET', '/webhooks/42', owner.key), { 'params.id': expect.stringMatching(/webhook id/) });
    expectValidation(await call('DELETE', '/webhooks/WH_000000000000000000000000', owner.key), {
      'params.id': expect.stringMatching(/webhook id/),
    });
    const list = await call('GET', '/webhooks?per_page=101&status=active', owner.key);
    expectValidation(list, { 'query.per_page': 'must be at most 100', 'query.status': 'is not a known field' });
    expectDocumented('get', '/webhooks', list);
  });

  it('when the url is not an absolute https URL without credentials, or too long, then 422 naming body.url', async () => {
    const badUrls = [
      'http://93.184.215.14/hook',
      'https://user:password@93.184.215.14/hook',
      `https://93.184.215.14/${'a'.repeat(2048)}`,
      'hooks.example.com/catalogue',
      'not a url',
      'ftp://93.184.215.14/hook',
    ];
    for (const url of badUrls) {
      const answer = await call('POST', '/webhooks', owner.key, aWebhook({ url }));
      expectValidation(answer, { 'body.url': expect.any(String) });
    }
    expectDocumented('post', '/webhooks', await call('POST', '/webhooks', owner.key, aWebhook({ url: 'http://93.184.215.14/hook' })));
  });

  it('when the url targets a private, loopback, link-local or metadata address outside the allow list, then 422 naming body.url', async () => {
    for (const url of [
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:10.0.0.1]/x',
    ]) {
      const answer = await call('POST', '/webhooks', owner.key, aWebhook({ url }));
      expectValidation(answer, { 'body.url': expect.stringMatching(/public/) });
    }
    const webhook = await created(owner.key);
    expectValidation(await call('PUT', `/webhooks/${webhook.id}`, owner.key, { url: 'https://192.168.1.10/hook' }), {
      'body.url': expect.stringMatching(/public/),
    });
  });

  it('when 127.0.0.1 is inside WEBHOOK_ALLOWED_PRIVATE_CIDRS, then it is accepted over http; without the allow list it is refused', async () => {
    const allowed = await created(owner.key, { url: 'http://127.0.0.1:8099/hook' });
    expect(allowed.url).toBe('http://127.0.0.1:8099/hook');
    const strict = await startApiFixture();
    try {
      const key = await strict.key();
      for (const url of ['http://127.0.0.1:8099/hook', 'https://127.0.0.1/hook', 'https://localhost/hook']) {
        const answer = await request(strict.app.baseUrl, '/v1/webhooks', { method: 'POST', token: key, body: aWebhook({ url }) });
        expectValidation(answer, { 'body.url': expect.any(String) });
      }
    } finally {
      await strict.close();
    }
  });

  it('when events are unknown, repeated or none, a name is empty, fields are unknown or the body is no JSON object, then 422 names each field', async () => {
    const answer = await call('POST', '/webhooks', owner.key, {
      name: '',
      url: PUBLIC_URL,
      events: ['project.created', 'project.moved', 'project.created'],
      secret: 'mine',
    });
    expectValidation(answer, {
      'body.name': expect.any(String),
      'body.events.1': expect.stringMatching(/project.created/),
      'body.events': 'must not name an event type twice',
      'body.secret': 'is not a known field',
    });
    expectValidation(await call('POST', '/webhooks', owner.key, aWebhook({ events: ['project.deleted', 'project.deleted'] })), {
      'body.events': 'must not name an event type twice',
    });
    expectValidation(await call('POST', '/webhooks', owner.key, aWebhook({ events: [] })), {
      'body.events': 'must name at least one event type',
    });
    const webhook = await created(owner.key);
    expectValidation(await call('PUT', `/webhooks/${webhook.id}`, owner.key, { status: 'paused', id: 'wh_x' }), {
      'body.status': expect.any(String),
      'body.id': 'is not a known field',
    });
    expectValidation(await call('POST', '/webhooks', owner.key, '{"name": '), { body: 'must be a valid JSON object or array' });
    expectValidation(await call('POST', '/webhooks', owner.key), { body: expect.any(String) });
    expect((await call('POST', '/webhooks', owner.key, 'name=x', { 'content-type': 'text/plain' })).status).toBe(415);
    const gzipped = await call('POST', '/webhooks', owner.key, JSON.stringify(aWebhook()), { 'content-encoding': 'gzip' });
    expect([gzipped.status, gzipped.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expectDocumented('post', '/webhooks', gzipped);
  });

  it(`when a client has ${MAX_WEBHOOKS_PER_CLIENT} webhooks, then the next is refused with 422 WEBHOOK_LIMIT_REACHED until one is deleted`, async () => {
    const key = await api.key();
    const ids: string[] = [];
    for (let index = 0; index < MAX_WEBHOOKS_PER_CLIENT; index++) ids.push((await created(key, { name: `Hook ${index}` })).id);
    await api.settle();
    const refused = await call('POST', '/webhooks', key, aWebhook());
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'WEBHOOK_LIMIT_REACHED',
      { limit: MAX_WEBHOOKS_PER_CLIENT },
    ]);
    expectDocumented('post', '/webhooks', refused);
    const list = await call('GET', '/webhooks?per_page=10&page=2', key);
    expect(list.body.data.map((hook: { id: string }) => hook.id)).toEqual(ids.slice(10));
    expect(list.body.meta.pagination).toEqual({ page: 2, per_page: 10, total: MAX_WEBHOOKS_PER_CLIENT, total_pages: 2 });
    expect((await call('DELETE', `/webhooks/${ids[0]}`, key)).status).toBe(200);
    await api.settle();
    await created(key);
  });

  it('when the client signs its requests, then a write is signed over its body as sent: a signature over another body is refused', async () => {
    const signer = await api.issue();
    const noControls = { domain: null, ip_allow: [], ip_deny: [] };
    const controls = await api.admin('PUT', `/clients/${signer.clientId}/controls`, {
      request_signing: true,
      environments: { live: noControls, test: noControls },
    });
    expect(controls.status).toBe(200);
    await api.settle();
    const body = JSON.stringify(aWebhook());
    const signed = (signedBody: string) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(16).toString('hex');
      const lines = [timestamp, nonce, 'POST', '/v1/webhooks', createHash('sha256').update(signedBody).digest('hex')];
      const signature = createHmac('sha256', signer.key).update(lines.join('\n')).digest('hex');
      return { 'X-API-Timestamp': timestamp, 'X-API-Nonce': nonce, 'X-API-Signature': `v1=${signature}` };
    };
    const refused = await call('POST', '/webhooks', signer.key, body, signed(''));
    expect([refused.status, refused.body.error.code]).toEqual([401, 'SIGNATURE_INVALID']);
    const accepted = await call('POST', '/webhooks', signer.key, body, signed(body));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  });

  it('when a write passes the rate limit, then it is refused with 429 before its command runs and nothing is appended', async () => {
    const limited = await api.key({ limits: { ...UNLIMITED_FOR_TESTS, burst: { requests: 2, window_ms: 60_000 } } });
    const list = await call('GET', '/webhooks', limited);
    expect(list.headers.get('ratelimit-limit')).toBe(String(UNLIMITED_FOR_TESTS.per_minute));
    expect((await call('POST', '/webhooks', limited, aWebhook())).status).toBe(201);
    const headBefore = await api.app.eventStore.headPosition();
    const refused = await call('POST', '/webhooks', limited, aWebhook());
    expect([refused.status, refused.body.error.code]).toEqual([429, 'BURST_LIMIT_EXCEEDED']);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expectDocumented('post', '/webhooks', refused);
    expect(await api.app.eventStore.headPosition()).toBe(headBefore);
  });

  it('when a webhook secret appears in a request path, then the log keeps its prefix only', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    await call('GET', `/webhooks/${secret}`, owner.key);
    expect(logText).not.toContain(secret.slice('whsec_'.length));
    expect(logText).toContain('whsec_[Redacted]');
  });
});

describe('/admin/v1/webhooks', () => {
  let adminDocument: any;
  let adminAjv: Ajv2020;

  beforeAll(async () => {
    adminDocument = parse((await request(api.app.baseUrl, '/admin/openapi.yaml', { token: api.app.adminToken })).body);
    adminAjv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(adminAjv);
    adminAjv.addSchema(adminDocument, 'admin');
  });

  function expectAdminDocumented(method: string, openApiPath: string, answer: Answer): void {
    const responseNode = adminDocument.paths[openApiPath]?.[method]?.responses[String(answer.status)];
    expect(responseNode, `${method} ${openApiPath} documents ${answer.status}`).toBeDefined();
    const pointer =
      typeof responseNode.$ref === 'string'
        ? responseNode.$ref.slice(1)
        : `/paths/${openApiPath.replaceAll('/', '~1')}/${method}/responses/${answer.status}`;
    const validate = adminAjv.compile({ $ref: `admin#${pointer}/content/application~1json/schema` });
    expect(validate(answer.body), `${method} ${openApiPath} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }

  it('when an administrator disables a webhook, then its client cannot enable it again; the administrator can', async () => {
    const webhook = await created(owner.key);
    const disabled = await api.admin('POST', `/webhooks/${webhook.id}/disable`);
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expectAdminDocumented('post', '/webhooks/{webhookId}/disable', disabled);
    expect(disabled.body.data).toMatchObject({ id: webhook.id, client_id: owner.clientId, status: 'disabled', disabled_reason: 'admin' });
    expect(disabled.headers.get('etag')).toBe(`"${disabled.body.data.revision}"`);

    const byClient = await call('PUT', `/webhooks/${webhook.id}`, owner.key, { status: 'active' });
    expect([byClient.status, byClient.body.error.code]).toEqual([409, 'CONFLICT']);
    expectDocumented('put', '/webhooks/{id}', byClient);
    expect((await call('GET', `/webhooks/${webhook.id}`, owner.key)).body.data).toMatchObject({
      status: 'disabled',
      disabled_reason: 'admin',
    });

    const enabled = await api.admin('POST', `/webhooks/${webhook.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: 'active', disabled_reason: null, previous_secret_retire_at: null });
    expect(JSON.stringify(enabled.body)).not.toMatch(/whsec_|v1:/);
  });

  it('when webhooks are listed and read by an administrator, then filters by client and status apply and no secret is shown', async () => {
    const other = await api.issue();
    const mine = await created(other.key, { name: 'Mine' });
    const paused = await created(other.key, { name: 'Paused' });
    await call('PUT', `/webhooks/${paused.id}`, other.key, { status: 'disabled' });
    await call('POST', `/webhooks/${mine.id}/rotate-secret`, other.key);
    await api.settle();

    const all = await api.admin('GET', `/webhooks?client_id=${other.clientId}`);
    expect(all.status).toBe(200);
    expectAdminDocumented('get', '/webhooks', all);
    expect(all.body.data.map((hook: { id: string }) => hook.id)).toEqual([mine.id, paused.id]);
    const disabledOnly = await api.admin('GET', `/webhooks?client_id=${other.clientId}&status=disabled`);
    expect(disabledOnly.body.data).toEqual([expect.objectContaining({ id: paused.id, disabled_reason: 'client' })]);

    const one = await api.admin('GET', `/webhooks/${mine.id}`);
    expectAdminDocumented('get', '/webhooks/{webhookId}', one);
    expect(one.body.data.previous_secret_retire_at).toEqual(expect.any(String));
    expect(JSON.stringify([all.body, one.body])).not.toMatch(/whsec_|v1:/);

    const unknownFilter = await api.admin('GET', '/webhooks?owner=1');
    expect(unknownFilter.body.error.details.fields).toEqual({ 'query.owner': 'is not a known field' });
    expect((await api.admin('GET', '/webhooks/wh_ffffffffffffffffffffffff')).status).toBe(404);
  });
});

describe('the webhook secret key', () => {
  it('when no WEBHOOK_SECRET_KEY is set (embedded mode), then a key is generated into DATA_DIR/webhook-secret-key (0600) and opens the sealed secrets after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'webhook-key-'));
    try {
      const first = await startApiFixture({ dataDir, env: { DATA_DIR: dataDir } });
      let webhook: { id: string; secret: string };
      try {
        const key = await first.key();
        const answer = await request(first.app.baseUrl, '/v1/webhooks', { method: 'POST', token: key, body: aWebhook() });
        expect(answer.status).toBe(201);
        webhook = answer.body.data;
        await first.settle();
      } finally {
        await first.close();
      }
      const keyFile = join(dataDir, 'webhook-secret-key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const box = createWebhookSecretBox(decodeSecretKey(readFileSync(keyFile, 'utf8'))!);

      const restarted = await startApiFixture({ dataDir, env: { DATA_DIR: dataDir } });
      try {
        const doc = await restarted.app.readStore.get<WebhookDoc>(WEBHOOKS, webhook.id);
        expect(box.open(webhook.id, doc!.secrets[0]!.sealed)).toBe(webhook.secret);
        expect(readFileSync(keyFile, 'utf8')).not.toContain(webhook.secret);
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
