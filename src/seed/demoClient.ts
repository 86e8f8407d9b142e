import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { KeyEnvironment } from '../access/accessContext.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../dataDir.js';
import type { AdminDeps } from '../http/adminRoute.js';
import { CommandRunner } from './demoCatalogue.js';

const DEMO_CLIENT_NAME = 'Demo Agency';
const DEMO_CLIENT_PLAN = 'enterprise';
export const DEMO_API_KEYS_FILE_NAME = 'demo-api-keys';

export interface DemoClient {
  clientId: number;
  /** The keys as issued: nowhere else once the demo key file is written. */
  keys: Record<KeyEnvironment, string>;
}

const issuedSchema = z.looseObject({ key: z.string() });

/**
 * Registers the demo client on the enterprise plan (seedDemoCatalogue defines it) and issues it one test
 * and one live key, through the admin commands like the rest of the demo data.
 */
export async function seedDemoClient(deps: AdminDeps): Promise<DemoClient> {
  const commands = new CommandRunner(deps);
  const clientId = await commands.create('registerClient', { name: DEMO_CLIENT_NAME, plan: DEMO_CLIENT_PLAN });
  const issue = async (environment: KeyEnvironment) =>
    issuedSchema.parse((await commands.run('issueApiKey', { clientId }, { environment })).data).key;
  return { clientId, keys: { test: await issue('test'), live: await issue('live') } };
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
