import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyEnvironment } from '../../src/access/accessContext.js';
import { limitPolicyOf } from '../../src/limits/planLimits.js';
import { demoPlans } from '../../src/seed/demoCatalogueData.js';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { API_KEY_PATTERN } from '../../src/access/apiKeys.js';
import { lookupAccess } from '../../src/http/lookupAccess.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { DEMO_API_KEYS_FILE_NAME } from '../../src/seed/demoClient.js';
import { startService, type RunningService } from '../../src/service.js';
import { readWholeLog } from '../support/projectionHarness.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The real service on `dataDir` with its own stores there, seeding on an empty log; its log lines as text. */
async function startOn(dataDir: string): Promise<{ service: RunningService; logText: () => string }> {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    SEED_PROJECTS: '0',
    LOG_LEVEL: 'debug',
  });
  const service = await startService({ config, logger: createLogger({ level: 'debug', destination }) });
  cleanups.push(() => service.stop());
  return { service, logText: () => text };
}

function keysIn(file: string): { test: string; live: string } {
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(file)?.[1] ?? '';
  return { test: value('DEMO_API_KEY_TEST'), live: value('DEMO_API_KEY_LIVE') };
}

describe('demo client on the first embedded start', () => {
  it('when the service first starts on an empty data directory, then the demo keys are in an owner-only file and work, and the log names only the file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-demo-keys-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { service, logText } = await startOn(dataDir);
    const path = join(dataDir, DEMO_API_KEYS_FILE_NAME);

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const file = await readFile(path, 'utf8');
    expect(file).toMatch(/^# API keys of the demo client "Demo Agency" \(client 1, plan enterprise\)/);
    const keys = keysIn(file);
    expect(keys.test).toMatch(API_KEY_PATTERN);
    expect(keys.test.startsWith('svc_test_')).toBe(true);
    expect(keys.live.startsWith('svc_live_')).toBe(true);

    await service.projector!.waitForPosition((await service.eventStore.headPosition())!, 10_000);
    for (const [environment, key] of Object.entries(keys)) {
      await expect(lookupAccess(service.readStore, key)).resolves.toEqual({
        clientId: 1,
        keyId: expect.any(Number),
        environment,
        plan: 'enterprise',
        scopes: new Set(SCOPES),
        entitlements: new Set(ENTITLEMENTS),
        requestSigning: false,
        networkControls: { domain: null, ip_allow: [], ip_deny: [] },
        liveDomain: null,
        restriction: null,
        evaluation: null,
        detailFields: null,
        limitPolicy: limitPolicyOf(demoPlans.find((plan) => plan.key === 'enterprise')!.limits!, environment as KeyEnvironment),
      });
    }

    expect(logText()).toContain(path);
    for (const key of Object.values(keys)) expect(logText()).not.toContain(key.slice('svc_test_'.length));
  });

  it('when the service starts again on the same data directory, then no second demo client is registered and the key file is left alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-demo-keys-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startOn(dataDir);
    const file = await readFile(join(dataDir, DEMO_API_KEYS_FILE_NAME), 'utf8');
    await first.service.stop();

    const second = await startOn(dataDir);

    expect(await readFile(join(dataDir, DEMO_API_KEYS_FILE_NAME), 'utf8')).toBe(file);
    const log = await readWholeLog(second.service.eventStore);
    expect(log.filter((event) => event.type === 'ClientRegistered')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'ApiKeyIssued')).toHaveLength(2);
    expect(second.logText()).not.toContain('demo client');
  });
});
