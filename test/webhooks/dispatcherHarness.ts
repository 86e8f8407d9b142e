import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allProjections } from '../../projections/index.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { Job, JobQueue } from '../../src/jobQueue/jobQueue.js';
import { createSqliteJobQueue } from '../../src/jobQueue/sqliteJobQueue.js';
import { createLogger } from '../../src/logger.js';
import { startProjector, type Projector } from '../../src/projectionEngine/runtime.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { webhookStream, type WebhookEvent, type WebhookEventType } from '../../src/webhooks/webhook.js';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../workers/webhooks/webhookDispatcher.js';
import { appendEvents, minute, type StreamEvent } from '../support/catalogueEvents.js';

export const silentLogger = createLogger({ level: 'silent', pretty: false });

/** A webhook's creation event, as W2's createWebhook command appends it (the secret sealed). */
export function webhookCreated(
  webhookId: string,
  clientId: number,
  events: readonly WebhookEventType[],
  options: { url?: string; sealedSecret?: string } = {},
): StreamEvent {
  const event: WebhookEvent = {
    type: 'WebhookCreated',
    data: {
      webhook_id: webhookId,
      client_id: clientId,
      name: `Webhook ${webhookId}`,
      url: options.url ?? 'https://receiver.example.com/hooks',
      events: [...events],
      sealed_secret: options.sealedSecret ?? 'v1:sealed-secret-placeholder-that-is-never-opened-here',
      at: minute(0),
    },
  };
  return { stream: webhookStream(webhookId), event };
}

export const webhookIdOf = (n: number): string => `wh_${n.toString(16).padStart(24, '0')}`;

/**
 * The stores, the projector and the dispatcher of one worker, on an in-memory event store, a read store
 * and a job queue in a temporary folder; `jobs()` reads what the queue received, by consuming it.
 */
export interface DispatcherHarness {
  eventStore: EventStore;
  readStore: ReadStore;
  queue: JobQueue;
  projector: Projector;
  dispatcher: WebhookDispatcher;
  /** Appends, then waits for the projector and the dispatcher to pass the last event. */
  given(events: readonly StreamEvent[]): Promise<void>;
  /** Every job the queue has run so far (consumed as they come, completed at once). */
  jobs(): Promise<Job[]>;
  restartDispatcher(): Promise<void>;
  close(): Promise<void>;
}

export async function startDispatcherHarness(): Promise<DispatcherHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-dispatcher-'));
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore({ file: join(dir, 'read-models.sqlite') });
  const queue = createSqliteJobQueue({
    file: join(dir, 'jobs.sqlite'),
    queue: 'webhook-deliveries',
    leaseMs: 5_000,
    completedRetentionMs: 86_400_000,
    pollIntervalMs: 10,
  });
  const seen: Job[] = [];
  const consumer = queue.consume(
    async (job) => {
      seen.push(job);
      return { status: 'completed' };
    },
    { concurrency: 4 },
  );
  const projector = await startProjector({ eventStore, readStore, projections: allProjections, logger: silentLogger });
  const startDispatcher = () =>
    startWebhookDispatcher({
      eventStore,
      readStore,
      queue,
      publicBaseUrl: 'https://api.example.com/v1',
      readModelsReached: (position) => projector.waitForPosition(position),
      logger: silentLogger,
    });
  const harness: DispatcherHarness = {
    eventStore,
    readStore,
    queue,
    projector,
    dispatcher: await startDispatcher(),
    async given(events) {
      const position = await appendEvents(eventStore, events);
      await projector.waitForPosition(position);
      await harness.dispatcher.waitForPosition(position);
    },
    async jobs() {
      // The consumer polls every 10 ms: wait until nothing is waiting and nothing runs.
      for (;;) {
        const counts = await queue.counts();
        if (counts.waiting === 0 && counts.active === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return [...seen];
    },
    async restartDispatcher() {
      await harness.dispatcher.stop();
      harness.dispatcher = await startDispatcher();
    },
    async close() {
      await harness.dispatcher.stop();
      await consumer.stop();
      await queue.close();
      await projector.stop();
      await readStore.close();
      await eventStore.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
