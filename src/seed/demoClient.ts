import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { KeyEnvironment } from '../access/accessContext.js';
import type { BlobStore } from '../blobStore/blobStore.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../dataDir.js';
import type { AdminDeps } from '../http/adminRoute.js';
import { agentProfileRoutes } from '../http/adminRoutes/agentProfileRoutes.js';
import { CommandRunner } from './demoCatalogue.js';
import { DemoMedia, type DemoPicture } from './demoMedia.js';

const DEMO_CLIENT_NAME = 'Demo Agency';
const DEMO_CLIENT_PLAN = 'enterprise';
export const DEMO_API_KEYS_FILE_NAME = 'demo-api-keys';
/** Recorded as the actor of the demo's agent profile commands, as the catalogue seed's are. */
const SEED_ACTOR = 'seed';

export interface DemoClient {
  clientId: number;
  /** The keys as issued: nowhere else once the demo key file is written. */
  keys: Record<KeyEnvironment, string>;
}

const issuedSchema = z.looseObject({ key: z.string() });
const createdSchema = z.looseObject({ id: z.number() });

/** The demo agency's agents, as GET /v1/agent-profiles lists them once approved. */
const DEMO_AGENTS = [
  {
    agent_name: 'Layla Haddad',
    email: 'layla.haddad@demo-agency.example',
    phone: '+971 50 214 7730',
    whatsapp: '+971 50 214 7730',
    longHair: true,
  },
  {
    agent_name: 'Omar Al Mansoori',
    email: 'omar.almansoori@demo-agency.example',
    phone: '+971 4 388 1200',
    whatsapp: null,
    longHair: false,
  },
  {
    agent_name: 'Priya Nair',
    email: 'priya.nair@demo-agency.example',
    phone: '+971 55 907 4418',
    whatsapp: '+971 55 907 4418',
    longHair: true,
  },
];

/**
 * Registers the demo client on the enterprise plan (seedDemoCatalogue defines it), issues it one test and
 * one live key, and gives it three approved agent profiles with drawn portraits, through the admin commands
 * like the rest of the demo data. The portraits are drawn while the keys are issued.
 */
export async function seedDemoClient(deps: AdminDeps & { blobStore: BlobStore }): Promise<DemoClient> {
  const media = new DemoMedia(deps.blobStore);
  const portraits = DEMO_AGENTS.map((agent) => {
    const portrait = media.picture({ kind: 'portrait', name: agent.agent_name, longHair: agent.longHair } satisfies DemoPicture);
    // A failure is reported where the portrait is awaited, not as an unhandled rejection.
    portrait.catch(() => undefined);
    return portrait;
  });
  const commands = new CommandRunner(deps);
  const clientId = await commands.create('registerClient', { name: DEMO_CLIENT_NAME, plan: DEMO_CLIENT_PLAN });
  const issue = async (environment: KeyEnvironment) =>
    issuedSchema.parse((await commands.run('issueApiKey', { clientId }, { environment })).data).key;
  const keys = { test: await issue('test'), live: await issue('live') };
  for (const [index, { longHair: _drawing, ...agent }] of DEMO_AGENTS.entries()) {
    const stored = await portraits[index]!;
    const picture = { ...stored, file_name: `${agent.agent_name.toLowerCase().replace(/\W+/g, '-')}.jpg` };
    const created = await runAgentProfileRoute(
      'createAgentProfile',
      { clientId },
      { ...agent, company_name: DEMO_CLIENT_NAME, picture },
      deps,
    );
    const agentProfileId = createdSchema.parse(created).id;
    await runAgentProfileRoute('submitAgentProfile', { agentProfileId }, undefined, deps);
    await runAgentProfileRoute('approveAgentProfile', { agentProfileId }, undefined, deps);
  }
  return { clientId, keys };
}

/** Parses params and body with the route's schemas, as the admin router does, then runs its handler. */
async function runAgentProfileRoute(operationId: string, params: Record<string, number>, body: unknown, deps: AdminDeps): Promise<unknown> {
  const route = agentProfileRoutes.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`The agent profile routes have no operation ${operationId}.`);
  const input = { params: route.params.parse(params), body: route.body?.parse(body ?? {}), actor: SEED_ACTOR };
  return (await route.handle(input, deps)).data;
}

/**
 * Writes the demo keys to DATA_DIR/demo-api-keys, readable by the owner only, as shell assignments. The
 * file is written under a fresh name and renamed into place, so the keys never sit in a file that an
 * earlier run left with wider permissions. Returns its path.
 */
export async function writeDemoApiKeyFile(dataDir: string, demo: DemoClient): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = join(dataDir, DEMO_API_KEYS_FILE_NAME);
  const text = [
    `# API keys of the demo client "${DEMO_CLIENT_NAME}" (client ${demo.clientId}, plan ${DEMO_CLIENT_PLAN}), issued on the first start.`,
    '# The service keeps only their SHA-256 hashes, so this file is the one copy. Send one as: Authorization: Bearer <key>',
    `DEMO_API_KEY_TEST=${demo.keys.test}`,
    `DEMO_API_KEY_LIVE=${demo.keys.live}`,
    '',
  ].join('\n');
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  await rename(temporary, path);
  return path;
}
