import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, catalogueHistory } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import { readModelOf } from '../support/projectionHarness.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `npm start -- --role projector` on `dataDir`, as an operator runs it (tsx, no build step). */
function startProjectorProcess(dataDir: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', 'projector'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PROJECTION_BATCH_SIZE: '20', SEED_DEMO: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

/**
 * A projection that has committed nothing yet is behind every position. Skipping it would let the test
 * signal a process whose projector is still starting, before it handles SIGTERM.
 */
async function lowestCheckpoint(readStore: ReadStore): Promise<bigint> {
  const checkpoints = await Promise.all(allProjections.map((projection) => readStore.getCheckpoint(checkpointNameOf(projection))));
  return checkpoints.map((checkpoint) => checkpoint ?? -1n).reduce((lowest, checkpoint) => (checkpoint < lowest ? checkpoint : lowest));
}

describe('projector crash recovery', () => {
  it('when the projector process is killed mid-backlog and started again, then the read models equal a clean rebuild', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    cleanups.push(() => eventStore.close());
    const head = await appendEvents(eventStore, catalogueHistory({ projects: 150, seed: 23, editsPerProject: 6 }));
    const live = createEmbeddedReadStore({ file: join(dataDir, 'readmodels.sqlite') });
    cleanups.push(() => live.close());

    const first = startProjectorProcess(dataDir);
    // Some projections have committed batches, none has reached the head: the kill lands mid-backlog.
    await eventually(
      'a first batch to be committed',
      async () => (await live.getCheckpoint(checkpointNameOf(allProjections[0]!))) !== null,
      {
        timeoutMs: 60_000,
      },
    );
    first.kill('SIGKILL');
    await once(first, 'exit');
    expect(await lowestCheckpoint(live)).toBeLessThan(head);

    const second = startProjectorProcess(dataDir);
    await eventually('every projection to reach the head', async () => (await lowestCheckpoint(live)) >= head, { timeoutMs: 60_000 });
    second.kill('SIGTERM');
    const [exitCode] = (await once(second, 'exit')) as [number | null];
    expect(exitCode).toBe(0);

    const rebuilt = createEmbeddedReadStore();
    cleanups.push(() => rebuilt.close());
    await rebuildProjections({ eventStore, readStore: rebuilt, projections: allProjections });
    expect(await readModelOf(live, allProjections)).toEqual(await readModelOf(rebuilt, allProjections));
  }, 120_000);
});
