import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { request, type Answer } from '../support/http.js';
import { storedImage } from '../support/storedFiles.js';
import { startTestApp } from '../support/testApp.js';
import { DEMO_API_KEYS_FILE_NAME } from '../../src/seed/demoClient.js';

let api: ApiFixture;
let own: IssuedKey;
let other: IssuedKey;
let validateList: (body: unknown) => boolean;
let validateError: (body: unknown) => boolean;
const profileIds: Record<string, number> = {};

/** Creates a profile for the client through the admin API and takes it through the given review steps. */
async function profile(clientId: number, agentName: string, steps: string[], extra: Record<string, unknown> = {}): Promise<number> {
  const created = await api.admin('POST', `/clients/${clientId}/agent-profiles`, {
    agent_name: agentName,
    company_name: `Agency ${clientId}`,
    email: `${agentName.toLowerCase().replace(/\W+/g, '.')}@agency.example`,
    phone: '+971 50 123 4567',
    ...extra,
  });
  if (created.status !== 201) throw new Error(`creating ${agentName} answered ${created.status}: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as number;
  for (const step of steps) {
    const answer =
      step === 'delete'
        ? await api.admin('DELETE', `/agent-profiles/${id}`)
        : await api.admin('POST', `/agent-profiles/${id}/${step}`, step === 'reject' ? { reason: 'Wrong number' } : undefined);
    if (answer.status !== 200) throw new Error(`${step} of ${agentName} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return id;
}

const approved = ['submit', 'approve'];
const names = (answer: Answer) => (answer.body.data as Array<{ agent_name: string }>).map((item) => item.agent_name);

beforeAll(async () => {
  api = await startApiFixture();
  own = await api.issue();
  other = await api.issue();
  const portrait = await storedImage(api.app.blobStore, { width: 1200, height: 1500, seed: 41, fileName: 'yasmin.jpg' });
  profileIds.yasmin = await profile(own.clientId, 'Yasmin Saleh', approved, { picture: portrait, whatsapp: '+971 55 000 1111' });
  profileIds.omar = await profile(own.clientId, 'Omar Farouk', approved);
  profileIds.karim = await profile(own.clientId, 'Karim Nasser', approved);
  profileIds.draft = await profile(own.clientId, 'Dana Draft', []);
  profileIds.submitted = await profile(own.clientId, 'Sami Submitted', ['submit']);
  profileIds.rejected = await profile(own.clientId, 'Rana Rejected', ['submit', 'reject']);
  profileIds.deleted = await profile(own.clientId, 'Adel Deleted', [...approved, 'delete']);
  profileIds.others = await profile(other.clientId, 'Lina Other', approved);
  await api.settle();

  const document = parse((await request(api.app.baseUrl, '/v1/openapi.yaml')).body);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
  const responses = document.paths['/agent-profiles'].get.responses;
  const schemaOf = (status: string) => {
    const node = responses[status];
    const pointer = typeof node.$ref === 'string' ? node.$ref.slice(1) : `/paths/~1agent-profiles/get/responses/${status}`;
    return ajv.compile({ $ref: `openapi#${pointer}/content/application~1json/schema` });
  };
  validateList = schemaOf('200');
  validateError = schemaOf('403');
});
afterAll(() => api.close());

describe('GET /v1/agent-profiles', () => {
  it('when the account asks, then only its own approved, not deleted profiles are listed, by agent name, as the OpenAPI document says', async () => {
    const answer = await api.get('/agent-profiles', own.key);

    expect(answer.status).toBe(200);
    expect(names(answer)).toEqual(['Karim Nasser', 'Omar Farouk', 'Yasmin Saleh']);
    expect(answer.body.data[2]).toEqual({
      id: profileIds.yasmin,
      agent_name: 'Yasmin Saleh',
      company_name: `Agency ${own.clientId}`,
      email: 'yasmin.saleh@agency.example',
      phone: '+971 50 123 4567',
      whatsapp: '+971 55 000 1111',
      image_url: expect.stringMatching(new RegExp(`/v1/media/agent-profile-${profileIds.yasmin}/[0-9a-f]{64}-800\\.webp$`)),
    });
    expect(answer.body.data[0].image_url).toBeNull();
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    expect(validateList(answer.body)).toBe(true);
    expect(names(await api.get('/agent-profiles', other.key))).toEqual(['Lina Other']);
  });

  it('when the image_url is fetched, then it is a WebP 800 px wide of the portrait', async () => {
    const answer = await api.get('/agent-profiles?q=yasmin', own.key);
    const image = await fetch(answer.body.data[0].image_url as string);

    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');
    const metadata = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect(metadata).toMatchObject({ format: 'webp', width: 800, height: 1000 });
  });

  it('when pages, sorts and a search are asked for, then the list follows them', async () => {
    const second = await api.get('/agent-profiles?sort=-agent_name&per_page=2&page=2', own.key);
    expect(names(second)).toEqual(['Karim Nasser']);
    expect(second.body.meta.pagination).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    expect(names(await api.get('/agent-profiles?q=OMAR', own.key))).toEqual(['Omar Farouk']);
    expect(names(await api.get('/agent-profiles?q=Lina', own.key))).toEqual([]);
  });

  it('when an approved profile is edited, then it leaves the list until it is approved again', async () => {
    await api.admin('PATCH', `/agent-profiles/${profileIds.omar}`, { phone: '+971 4 555 0000' });
    await api.settle();
    expect(names(await api.get('/agent-profiles', own.key))).toEqual(['Karim Nasser', 'Yasmin Saleh']);
    await api.admin('POST', `/agent-profiles/${profileIds.omar}/approve`);
    await api.settle();
    expect(names(await api.get('/agent-profiles', own.key))).toEqual(['Karim Nasser', 'Omar Farouk', 'Yasmin Saleh']);
  });

  it('when the list is asked again with its ETag, then 304', async () => {
    const first = await api.get('/agent-profiles', own.key);
    const again = await api.get('/agent-profiles', own.key, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('when an unknown parameter, a bad sort or too many per page is sent, then 422 naming each', async () => {
    const answer = await api.get('/agent-profiles?status=draft&sort=email&per_page=101', own.key);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(['query.per_page', 'query.sort', 'query.status']);
  });

  it('when the key lacks the scope or the plan the entitlement, then 403 naming what is missing, as documented', async () => {
    const noScope = await api.get('/agent-profiles', await api.key({ scopes: SCOPES.filter((scope) => scope !== 'project-pdf:generate') }));
    expect(noScope.status).toBe(403);
    expect(noScope.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { missing_scopes: ['project-pdf:generate'] } });
    expect(validateError(noScope.body)).toBe(true);

    const noEntitlement = await api.get(
      '/agent-profiles',
      await api.key({ entitlements: ENTITLEMENTS.filter((entitlement) => entitlement !== 'project_pdf') }),
    );
    expect(noEntitlement.status).toBe(403);
    expect(noEntitlement.body.error).toMatchObject({ code: 'ENTITLEMENT_REQUIRED', details: { missing_entitlements: ['project_pdf'] } });
  });

  it('when the account is in Evaluation Mode, then 403 EVALUATION_PREVIEW_ONLY (PDFs are refused there too)', async () => {
    const projects: StreamEvent[] = Array.from({ length: 60 }, (_, index) => [
      projectCreated(index + 1, {}, minute(index)),
      projectEvent('ProjectPublished', index + 1, {}, minute(index)),
    ]).flat();
    await api.given([...publishedReferenceCatalogue(), ...projects]);
    const evaluating = await api.issue();
    await profile(evaluating.clientId, 'Eva Sample', approved);
    const testKey = (await api.admin('POST', `/clients/${evaluating.clientId}/keys`, { environment: 'test' })).body.data.key as string;
    expect((await api.admin('POST', `/clients/${evaluating.clientId}/evaluation`, { sample_size: 50 })).status).toBe(200);
    await api.settle();

    const answer = await api.get('/agent-profiles', testKey);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('EVALUATION_PREVIEW_ONLY');
    expect(validateError(answer.body)).toBe(true);
  });
});

describe('the demo client', () => {
  it('when the service first starts with the demo seed, then the demo key lists three approved agents whose portraits resolve', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-profiles-demo-'));
    const app = await startTestApp({ dataDir, env: { DATA_DIR: dataDir, SEED_DEMO: 'true', SEED_PROJECTS: '0' } });
    try {
      const keyFile = await readFile(join(dataDir, DEMO_API_KEYS_FILE_NAME), 'utf8');
      const liveKey = /^DEMO_API_KEY_LIVE=(.*)$/m.exec(keyFile)![1]!;
      await app.projector.waitForPosition((await app.eventStore.headPosition())!, 10_000);

      const answer = await request(app.baseUrl, '/v1/agent-profiles', { token: liveKey });

      expect(answer.status).toBe(200);
      expect(names(answer)).toEqual(['Layla Haddad', 'Omar Al Mansoori', 'Priya Nair']);
      for (const agent of answer.body.data as Array<{ image_url: string; company_name: string }>) {
        expect(agent.company_name).toBe('Demo Agency');
        const image = await fetch(agent.image_url);
        expect(image.status).toBe(200);
        expect(await sharp(Buffer.from(await image.arrayBuffer())).metadata()).toMatchObject({ format: 'webp', width: 800, height: 1000 });
      }
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
