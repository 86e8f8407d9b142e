import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectSubResourceRoutes } from '../../queries/projectResources.js';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import type { ReadCall } from '../../src/readStore/readCall.js';
import type { IndexSpec, ReadStore } from '../../src/readStore/readStore.js';
import { startService } from '../../src/service.js';
import { UNLIMITED_FOR_TESTS } from '../support/apiFixture.js';
import { request } from '../support/http.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';
import { recordReads } from './recordingReadStore.js';

/** Enough published projects for an evaluation sample (50 at least) and for deep pages of 10. */
const SEED_PROJECTS = 80;
/** A moment before the demo catalogue's first edit: every project changed after it. */
const LONG_AGO = '2000-01-01T00:00:00Z';
const DEEP = 'page=3&per_page=10';
const PROJECT_SORTS = ['updated_at', '-updated_at', 'starting_from', '-starting_from', 'name', '-name'];
const REFERENCE_SORTS = ['name', '-name', 'updated_at', '-updated_at'];
const AGENT_PROFILE_SORTS = ['agent_name', '-agent_name', 'company_name', '-company_name', 'updated_at', '-updated_at'];
/** Every `/projects/{project}/...` route the service mounts, so a new one is swept without being named here. */
const SUB_RESOURCES = projectSubResourceRoutes.map((route) => route.path.slice(route.path.lastIndexOf('/') + 1));

/** One request of the sweep and the reads it made, in order. */
export interface SweptRead {
  /** The read shape: the request as a client sends it, with the client it is sent as when not the whole catalogue's. */
  shape: string;
  /** Sent with an API key (everything but the image addresses). */
  authenticated: boolean;
  status: number;
  calls: ReadCall[];
}

export interface ReadSweep {
  reads: SweptRead[];
  /** The indexes declared through the read store while the service ran, by collection. */
  declared: ReadonlyMap<string, readonly IndexSpec[]>;
}

type Json = Record<string, any>;

/** A word of a name, lower-cased, as a client searches with `q`. */
const firstWord = (name: string): string => name.split(' ')[0]!.toLowerCase();

/**
 * The real service on `readStore` (through a recording decorator; the store is left open for the caller to
 * explain the reads on), with the demo catalogue seeded through the import and the commands on an empty log, then every
 * /v1 read operation over HTTP, each read shape recorded on its own: each list in each sort at its first and
 * a deep page, each filter of the spec alone and combined, ids batches in their own order and sorted, detail
 * batches, related-resource batches, every sub-resource, the change feed by updated_since and by cursor, the
 * same reads as a restricted and as an evaluation client, webhooks, agent profiles and image addresses.
 */
export async function sweepV1Reads(readStore: ReadStore): Promise<ReadSweep> {
  const recording = recordReads(readStore);
  const dataDir = mkdtempSync(join(tmpdir(), 'v1-read-sweep-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    SEED_PROJECTS: String(SEED_PROJECTS),
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const service = await startService({
    config,
    logger: createLogger({ level: config.logLevel, pretty: false }),
    // The caller's store outlives the service, so that the reads can be explained on it afterwards.
    stores: { eventStore: createSqliteEventStore({ file: ':memory:' }), readStore: { ...recording.store, close: async () => undefined } },
    blobStore: createEmbeddedBlobStore({ dataDir: join(dataDir, 'blobs') }),
  });
  try {
    const baseUrl = service.url!;
    const settle = async () => {
      const head = await service.eventStore.headPosition();
      if (head !== null) await service.projector!.waitForPosition(head, 60_000);
    };
    const admin = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await request(baseUrl, `/admin/v1${path}`, {
        method,
        token: TEST_ADMIN_TOKEN,
        ...(body === undefined ? {} : { body }),
      });
      if (answer.status >= 300) throw new Error(`${method} /admin/v1${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      await settle();
      return answer.body.data;
    };
    let clients = 0;
    const client = async (environment: 'live' | 'test' = 'live') => {
      clients += 1;
      await admin('POST', '/plans', {
        key: `sweep-${clients}`,
        name: `Sweep ${clients}`,
        scopes: SCOPES,
        entitlements: ENTITLEMENTS,
        limits: UNLIMITED_FOR_TESTS,
      });
      const created = await admin('POST', '/clients', { name: `Sweep client ${clients}`, plan: `sweep-${clients}` });
      const issued = await admin('POST', `/clients/${created.id}/keys`, { environment });
      return { id: created.id as number, key: issued.key as string };
    };
    await settle();

    const whole = await client();
    const restricted = await client();
    const evaluating = await client('test');
    await admin('POST', `/clients/${evaluating.id}/evaluation`, { sample_size: 50 });
    const { account_token: accountToken } = await admin('POST', `/clients/${whole.id}/account-token`);

    const get = (path: string, key: string | null) => request(`${baseUrl}/v1`, path, key === null ? {} : { token: key });
    const data = async (path: string, key = whole.key): Promise<Json[]> => (await get(path, key)).body.data;
    const [developer] = await data('/developers?per_page=1');
    const [community] = await data('/communities?per_page=1');
    const [subCommunity] = await data('/sub-communities?per_page=1');
    const state = community!.state;
    const [project] = await data('/projects?sort=name&per_page=1');
    const projectIds = (await data('/projects?sort=updated_at&per_page=100')).map((item) => item.id as number);
    const pictured = (await data('/projects?per_page=100')).find((item) => item.cover_image !== null);
    const image = new URL(pictured!.cover_image.url_400 as string);
    await admin('PUT', `/clients/${restricted.id}/restriction`, {
      restriction: { states: [{ state_id: state.id, community_ids: [] }] },
    });
    const webhook = await request(`${baseUrl}/v1`, '/webhooks', {
      method: 'POST',
      token: whole.key,
      body: { name: 'Sweep', url: 'http://127.0.0.1:9/hook', events: ['project.updated'] },
    });
    if (webhook.status !== 201) throw new Error(`POST /v1/webhooks answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
    await settle();
    const firstCursorPage = await get('/projects/changes?cursor=start&per_page=10', whole.key);

    const ids = (count: number, from = 0) => projectIds.slice(from, from + count).join(',');
    const mediaFile = image.pathname.split('/media/')[1]!;
    // The shapes name what a request chooses by placeholder, so that the table reads the same on every run.
    const values: Record<string, string> = {
      developer: String(developer!.id),
      developer_slug: developer!.slug,
      developer_word: firstWord(developer!.name),
      community: String(community!.id),
      community_slug: community!.slug,
      community_word: firstWord(community!.name),
      state: String(state.id),
      state_slug: state.slug,
      sub_community: String(subCommunity!.id),
      sub_community_slug: subCommunity!.slug,
      sub_community_word: firstWord(subCommunity!.name),
      project: String(project!.id),
      project_slug: project!.slug,
      project_word: firstWord(project!.name),
      '10 ids': ids(10),
      '25 ids': ids(25),
      'every id': ids(projectIds.length),
      '5 other ids': ids(5, 30),
      cursor: encodeURIComponent(firstCursorPage.body.meta.cursor as string),
      webhook: webhook.body.data.id as string,
      'media_id/file': mediaFile,
      account_token: accountToken as string,
    };
    const shapes: Array<{ shape: string; path: string; key: string | null }> = [];
    const read = (shape: string, key: string | null = whole.key, scope: Record<string, string> = values, as?: string) =>
      shapes.push({
        shape: as ? `${shape} (${as})` : shape,
        path: shape.replace(/\{([^}]+)\}/g, (placeholder, name: string) => scope[name] ?? placeholder),
        key,
      });

    read('/projects');
    for (const sort of PROJECT_SORTS) {
      read(`/projects?sort=${sort}`);
      read(`/projects?sort=${sort}&${DEEP}`);
    }
    read('/projects?developer={developer}');
    read('/projects?developer={developer_slug}');
    read('/projects?community={community}');
    read('/projects?community={community_slug}');
    read('/projects?state={state}');
    read('/projects?state={state_slug}');
    read('/projects?nature=off_plan');
    read('/projects?min_price=1000000');
    read('/projects?max_price=3000000');
    read('/projects?min_price=1000000&max_price=3000000&sort=starting_from');
    read(`/projects?updated_since=${LONG_AGO}`);
    read('/projects?q={project_word}');
    read(`/projects?q={project_word}&sort=-updated_at&${DEEP}`);
    read('/projects?state={state_slug}&nature=off_plan&sort=-starting_from');
    read(
      '/projects?developer={developer}&community={community}&state={state}&nature=ready&min_price=1&max_price=900000000' +
        `&updated_since=${LONG_AGO}&q={project_word}&sort=name`,
    );
    read('/projects?ids={10 ids}');
    read('/projects?ids={every id}&sort=-starting_from&page=2&per_page=20');
    read('/projects?ids={10 ids}&view=detail');
    read('/projects?ids={every id}&view=detail');
    read('/projects/{project}');
    read('/projects/{project_slug}');
    for (const resource of SUB_RESOURCES) read(`/projects/{project}/${resource}`);
    read('/projects/{project_slug}/floor-plans');
    read('/projects/resources?ids={25 ids}&include=media,floor_plans,amenities,payment_plans,payment_methods');
    read('/projects/resources?ids={5 other ids}&include=floor-plans');
    read(`/projects/changes?updated_since=${LONG_AGO}`);
    read(`/projects/changes?updated_since=${LONG_AGO}&${DEEP}`);
    read('/projects/changes?cursor=start');
    read('/projects/changes?cursor={cursor}&per_page=10');

    read('/developers');
    for (const sort of REFERENCE_SORTS) read(`/developers?sort=${sort}&${DEEP}`);
    read('/developers?q={developer_word}');
    read(`/developers?updated_since=${LONG_AGO}`);
    read('/developers/{developer}');
    read('/developers/{developer_slug}');
    read('/communities');
    for (const sort of REFERENCE_SORTS) read(`/communities?sort=${sort}&page=2&per_page=2`);
    read('/communities?state={state}');
    read(`/communities?state={state_slug}&q={community_word}&updated_since=${LONG_AGO}`);
    read('/communities/{community}');
    read('/communities/{community_slug}');
    read('/states/{state}');
    read('/states/{state_slug}');
    read('/sub-communities');
    for (const sort of REFERENCE_SORTS) read(`/sub-communities?sort=${sort}&page=2&per_page=2`);
    read('/sub-communities?state={state_slug}');
    read('/sub-communities?community={community_slug}&q={sub_community_word}');
    read(`/sub-communities?state={state}&community={community}&updated_since=${LONG_AGO}`);
    read('/sub-communities/{sub_community}');
    read('/sub-communities/{sub_community_slug}');
    read('/catalog/metadata');

    read('/agent-profiles');
    for (const sort of AGENT_PROFILE_SORTS) read(`/agent-profiles?sort=${sort}&${DEEP}`);
    read('/agent-profiles?q=agent');
    read('/pdf-templates');
    read('/webhooks');
    read('/webhooks/{webhook}');
    read('/webhooks/{webhook}/deliveries');
    read('/media/{media_id/file}', null);
    read('/media/c/{account_token}/{media_id/file}', null);

    for (const [scoped, as] of [
      [restricted, 'restricted client'],
      [evaluating, 'evaluation client'],
    ] as const) {
      // Records this client sees, so that each read is answered as a client of the scope meets it.
      const [visibleProject] = await data('/projects?per_page=1', scoped.key);
      const [visibleCommunity] = await data('/communities?per_page=1', scoped.key);
      const scope = { ...values, visible_project: String(visibleProject!.id), visible_community_slug: visibleCommunity!.slug };
      for (const shape of [
        '/projects',
        `/projects?state={state_slug}&sort=name&${DEEP}`,
        '/projects?ids={10 ids}&view=detail',
        '/projects/{visible_project}',
        '/projects/resources?ids={25 ids}&include=media,amenities',
        `/projects/changes?updated_since=${LONG_AGO}`,
        '/projects/changes?cursor=start',
        '/developers',
        '/communities',
        '/communities/{visible_community_slug}',
        '/sub-communities',
      ]) {
        read(shape, scoped.key, scope, as);
      }
    }

    const reads: SweptRead[] = [];
    for (const { shape, path, key } of shapes) {
      recording.start();
      const answer = await get(path, key);
      reads.push({ shape: `GET /v1${shape}`, authenticated: key !== null, status: answer.status, calls: recording.stop() });
    }
    return { reads, declared: recording.declared };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
