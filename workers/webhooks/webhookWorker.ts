import * as disableWebhook from '../../commands/webhooks/disableWebhook.js';
import { runWebhookCommand } from '../../commands/webhooks/webhookHandlers.js';
import type { WebhookDeliveryConfig } from '../../src/config.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { webhookFactsReader } from '../../src/http/webhookApi.js';
import type { JobQueue } from '../../src/jobQueue/jobQueue.js';
import type { Logger } from '../../src/logger.js';
import type { LeaseSettings } from '../../src/projectionEngine/leaseKeeper.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import type { Resolve, WebhookTargetPolicy } from '../../src/webhooks/targetPolicy.js';
import type { WebhookSecretBox } from '../../src/webhooks/webhookSecrets.js';
import { startWebhookDelivery } from './webhookDelivery.js';
import { startWebhookDispatcher } from './webhookDispatcher.js';

export interface WebhookWorkerOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  queue: JobQueue;
  secretBox: WebhookSecretBox;
  targetPolicy: WebhookTargetPolicy;
  delivery: WebhookDeliveryConfig;
  publicBaseUrl: string;
  readModelsReached: (position: bigint) => Promise<void>;
  logger: Logger;
  clock: () => Date;
  random?: () => number;
  resolve?: Resolve;
  /** The dispatcher's lease: one worker process dispatches, the others stand by (see startWebhookDispatcher). */
  dispatcherLease?: LeaseSettings;
}

export interface WebhookWorker {
  /** Resolves once the dispatcher has enqueued the log up to `position` (tests). */
  dispatchedUpTo(position: bigint, timeoutMs?: number): Promise<void>;
  /** Stops the dispatcher (its batch in flight checkpointed), then drains the deliveries in flight. */
  stop(): Promise<void>;
}

/** The worker role's webhook side: the dispatcher (log to queue) and the delivery consumer (queue to receivers). */
export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<WebhookWorker> {
  const { eventStore, readStore, logger, clock } = options;
  const dispatcher = await startWebhookDispatcher({
    eventStore,
    readStore,
    queue: options.queue,
    publicBaseUrl: options.publicBaseUrl,
    readModelsReached: options.readModelsReached,
    logger: logger.child({ component: 'webhookDispatcher' }),
    ...(options.dispatcherLease ? { lease: options.dispatcherLease } : {}),
  });
  try {
    const delivery = await startWebhookDelivery({
      queue: options.queue,
      readStore,
      secretBox: options.secretBox,
      targetPolicy: options.targetPolicy,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      disableWebhook: async (webhookId, reason) => {
        await runWebhookCommand({ eventStore, clock }, webhookFactsReader(readStore), {
          webhookId,
          actor: 'webhook-delivery',
          command: { reason },
          slice: disableWebhook,
        });
      },
      concurrency: options.delivery.concurrency,
      endpointConcurrency: options.delivery.endpointConcurrency,
      timeoutMs: options.delivery.timeoutMs,
      maxResponseBytes: options.delivery.maxResponseBytes,
      logger: logger.child({ component: 'webhookDelivery' }),
      clock,
      ...(options.random ? { random: options.random } : {}),
    });
    // The subscription and the queue's polling wait on timers that do not hold the process open, so a process
    // that only works (`--role worker`) would exit once idle; the worker holds it open until stopped.
    const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);
    return {
      dispatchedUpTo: (position, timeoutMs) => dispatcher.waitForPosition(position, timeoutMs),
      async stop() {
        clearInterval(keepAlive);
        await dispatcher.stop();
        await delivery.stop();
      },
    };
  } catch (error) {
    await dispatcher.stop();
    throw error;
  }
}
