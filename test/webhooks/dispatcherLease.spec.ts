import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createSqliteJobQueue } from '../../src/jobQueue/sqliteJobQueue.js';
import { startProjector } from '../../src/projectionEngine/runtime.js';
import { createSqliteProjectorLease } from '../../src/projectionEngine/sqliteProjectorLease.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { WEBHOOK_DISPATCHER_CHECKPOINT, startWebhookDispatcher, type WebhookDispatcher } from '../../workers/webhooks/webhookDispatcher.js';
import { appendEvents, projectCreated, referenceCatalogue } from '../support/catalogueEvents.js';
import { capturingLogger, recordingWrites, silentLogger } from '../support/projectionHarness.js';

/*
 * Two worker processes' dispatchers, in one process: one event store, read store, job queue and lease file,
 * each dispatcher with a lease store of its own (another holder).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'dispatcher-lease-'));
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore({ file: join(dir, 'read-models.sqlite') });
  const queue = createSqliteJobQueue({
    file: join(dir, 'jobs.sqlite'),
    queue: 'webhook-deliveries',
    leaseMs: 5_000,
    completedRetentionMs: 86_400_000,
    pollIntervalMs: 10,
  });
  const projector = await startProjector({ eventStore, readStore, projections: allProjections, logger: silentLogger() });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => eventStore.close(),
    () => readStore.close(),
    () => queue.close(),
    () => projector.stop(),
  );
  const dispatcher = async (logger = silentLogger()) => {
    const recording = recordingWrites(readStore);
    const lease = createSqliteProjectorLease({ file: join(dir, 'leases.sqlite'), ttlMs: 10_000 });
    const started: WebhookDispatcher = await startWebhookDispatcher({
      eventStore,
      readStore: recording.readStore,
      queue,
      publicBaseUrl: 'https://api.example.com/v1',
      readModelsReached: (position) => projector.waitForPosition(position),
      logger,
      lease: { store: lease, retryIntervalMs: 20 },
    });
    cleanups.push(
      () => lease.close(),
      () => started.stop(),
    );
    const checkpointWrites = () =>
      recording.writes.filter((write) => write.checkpoints.some((name) => name.startsWith(WEBHOOK_DISPATCHER_CHECKPOINT)));
    return { started, checkpointWrites };
  };
  return { eventStore, readStore, dispatcher };
}

describe('webhook dispatcher lease', () => {
  it('when two dispatchers share a lease, then only the holder dispatches; once it stops, the standby takes over from its checkpoint', async () => {
    const { eventStore, readStore, dispatcher } = await setup();
    await appendEvents(eventStore, referenceCatalogue());
    const active = await dispatcher();
    const standbyLog = capturingLogger();
    const standby = await dispatcher(standbyLog.logger);

    const first = await appendEvents(eventStore, [projectCreated(1)]);
    await active.started.waitForPosition(first, 5_000);
    await standby.started.waitForPosition(first, 5_000);

    expect(active.checkpointWrites().length).toBeGreaterThan(0);
    expect(standby.checkpointWrites()).toEqual([]);
    expect(standbyLog.lines.map((line) => line.msg)).toContain('standby: another process holds the lease');

    await active.started.stop();
    const second = await appendEvents(eventStore, [projectCreated(2)]);
    await standby.started.waitForPosition(second, 5_000);

    expect(standby.checkpointWrites().length).toBeGreaterThan(0);
    expect(standbyLog.lines.map((line) => line.msg)).toContain('lease acquired');
    expect(await readStore.getCheckpoint(WEBHOOK_DISPATCHER_CHECKPOINT)).toBe(second);
  });
});
