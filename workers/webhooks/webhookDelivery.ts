import { setMaxListeners } from 'node:events';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import type { Job, JobConsumer, JobOutcome, JobQueue } from '../../src/jobQueue/jobQueue.js';
import type { Logger } from '../../src/logger.js';
import type { ReadStore, WriteOp } from '../../src/readStore/readStore.js';
import { nextAttemptAt } from '../../src/webhooks/retrySchedule.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { checkWebhookTarget, type Resolve, type WebhookTargetPolicy } from '../../src/webhooks/targetPolicy.js';
import type { WebhookDisabledReason } from '../../src/webhooks/webhook.js';
import {
  deliveryAttemptIdOf,
  deliveryIdOf,
  DELIVERY_LOG_RETENTION_DAYS,
  WEBHOOK_DELIVERIES,
  webhookDeliveriesIndexes,
  webhookDeliveryJobSchema,
  type DeliveryOutcome,
  type WebhookDeliveryAttemptDoc,
  type WebhookDeliveryJob,
} from '../../src/webhooks/webhookDeliveries.js';
import type { WebhookSecretBox } from '../../src/webhooks/webhookSecrets.js';
import { deliverAttempt, type DeliveryResult } from './deliverAttempt.js';

/** Since when each endpoint has failed without a success in between; one document per webhook that failed. */
export const WEBHOOK_ENDPOINT_HEALTH = 'webhook_endpoint_health';

type EndpointHealthDoc = { _id: string; failing_since: string | null };

/** An endpoint failing continuously (no 2xx in between) this long is disabled with reason `failing`. */
export const DISABLE_FAILING_AFTER_MS = 5 * 86_400_000;

/** How long a delivery waits when its endpoint already has its cap of deliveries in flight. */
const ENDPOINT_BUSY_DELAY_MS = 200;

const PRUNE_INTERVAL_MS = 3_600_000;
/** How long the log writes of concurrent attempts are gathered into one read-store write. */
const LOG_GATHER_MS = 2;
const PRUNE_BATCH = 1_000;

/** Names the service to receivers (DESIGN: a User-Agent naming the service). */
export const WEBHOOK_USER_AGENT = 'PropertyCatalogueAPI-Webhooks/1.0';

export interface WebhookDeliveryOptions {
  queue: JobQueue;
  readStore: ReadStore;
  secretBox: WebhookSecretBox;
  targetPolicy: WebhookTargetPolicy;
  /** DNS of the target check; the system's by default. */
  resolve?: Resolve;
  /** Runs the disableWebhook command (reason gone or failing). */
  disableWebhook: (webhookId: string, reason: Extract<WebhookDisabledReason, 'gone' | 'failing'>) => Promise<void>;
  /** Deliveries in flight in this process. */
  concurrency: number;
  /** Deliveries in flight per webhook in this process: a slow receiver holds at most this many. */
  endpointConcurrency: number;
  timeoutMs: number;
  maxResponseBytes: number;
  logger: Logger;
  clock?: () => Date;
  /** Jitter of the retry schedule, in [0, 1). */
  random?: () => number;
  /** Aborts the attempts in flight (a stop): each is neither logged nor counted, and runs again later. */
  signal?: AbortSignal;
}

export interface WebhookDeliveryWorker {
  /** Takes no new delivery, lets those in flight finish (and record their outcome), stops pruning. */
  stop(): Promise<void>;
}

/**
 * The delivery side: consumes the queue, and for each delivery re-checks the target (DNS may have changed;
 * a refused target is a failed attempt), signs the frozen body with every live secret (the current one and,
 * during a rotation overlap, the previous: `v1=<new> v1=<old>`), posts it (15 s timeout, no redirects, the
 * response read up to a cap), records the attempt in `webhook_deliveries`, and answers the queue:
 * 2xx completes; 410 disables the webhook (gone) and fails the delivery; anything else is retried on the
 * schedule of src/webhooks/retrySchedule.ts until the last attempt fails it; an endpoint that has failed
 * continuously for 5 days is disabled (failing). A webhook disabled or deleted by the time of an attempt:
 * the delivery completes as skipped, nothing sent.
 */
export async function startWebhookDelivery(options: WebhookDeliveryOptions): Promise<WebhookDeliveryWorker> {
  const { readStore, logger } = options;
  await readStore.ensureIndexes(WEBHOOK_DELIVERIES, webhookDeliveriesIndexes);
  const stopping = new AbortController();
  // Every attempt in flight listens to it.
  setMaxListeners(options.concurrency + 1, stopping.signal);
  const handler = createDeliveryHandler({ ...options, signal: stopping.signal });
  const consumer: JobConsumer = options.queue.consume(handler, { concurrency: options.concurrency });
  const clock = options.clock ?? (() => new Date());
  const prune = () =>
    pruneDeliveryLog(readStore, clock()).catch((error: unknown) => logger.warn({ err: error }, 'pruning the delivery log failed'));
  const pruneTimer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  void prune();
  logger.info({ concurrency: options.concurrency, endpointConcurrency: options.endpointConcurrency }, 'webhook delivery started');
  return {
    async stop() {
      clearInterval(pruneTimer);
      // Attempts in flight are cut rather than waited for (up to WEBHOOK_TIMEOUT_MS): their jobs run again.
      stopping.abort();
      await consumer.stop();
      logger.info('webhook delivery stopped');
    },
  };
}

/** Deletes the attempts older than the retention, a batch at a time. */
export async function pruneDeliveryLog(readStore: ReadStore, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - DELIVERY_LOG_RETENTION_DAYS * 86_400_000).toISOString();
  let deleted = 0;
  for (;;) {
    const { items } = await readStore.find<WebhookDeliveryAttemptDoc>(WEBHOOK_DELIVERIES, {
      filter: { attempted_at: { $lt: cutoff } },
      limit: PRUNE_BATCH,
    });
    if (items.length === 0) return deleted;
    await readStore.write(items.map((item) => ({ op: 'delete', collection: WEBHOOK_DELIVERIES, id: item._id })));
    deleted += items.length;
  }
}

/** The queue handler, exported for tests that drive it job by job. */
export function createDeliveryHandler(options: WebhookDeliveryOptions): (job: Job) => Promise<JobOutcome> {
  const { readStore, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const random = options.random ?? Math.random;
  const inFlight = new Map<string, number>();
  const opened = new Map<string, string>();
  /** Known failing_since per webhook (null = not failing), so a success writes nothing when nothing changes. */
  const failingSince = new Map<string, string | null>();
  const writeLog = gatheredWrites(readStore);

  const openSecret = (webhookId: string, sealed: string): string => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      secret = options.secretBox.open(webhookId, sealed);
      if (opened.size >= 10_000) opened.clear();
      opened.set(sealed, secret);
    }
    return secret;
  };

  const knownFailingSince = async (webhookId: string): Promise<string | null> => {
    if (!failingSince.has(webhookId)) {
      const doc = await readStore.get<EndpointHealthDoc>(WEBHOOK_ENDPOINT_HEALTH, webhookId);
      failingSince.set(webhookId, doc?.failing_since ?? null);
    }
    return failingSince.get(webhookId) ?? null;
  };

  /** The attempt's number: deferrals for a busy endpoint re-run a job without an attempt, so the log counts. */
  const attemptNumber = async (job: Job, deliveryId: string): Promise<number> => {
    if (job.attempt === 1) return 1;
    const { total } = await readStore.find(WEBHOOK_DELIVERIES, { filter: { delivery_id: deliveryId }, limit: 0 });
    return total + 1;
  };

  const disable = async (webhookId: string, reason: 'gone' | 'failing') => {
    try {
      await options.disableWebhook(webhookId, reason);
      logger.warn({ webhookId, reason }, 'webhook disabled');
    } catch (error) {
      logger.error({ err: error, webhookId, reason }, 'disabling the webhook failed');
    }
  };

  return async (job) => {
    const parsed = webhookDeliveryJobSchema.safeParse(job.data);
    if (!parsed.success) return { status: 'failed', reason: 'not a webhook delivery job' };
    const delivery = parsed.data;
    const deliveryId = deliveryIdOf(delivery.event_id, delivery.webhook_id);
    const webhook = await readStore.get<WebhookDoc>(WEBHOOKS, delivery.webhook_id);
    if (!webhook || webhook.deleted || webhook.status !== 'active') {
      const attempt = await attemptNumber(job, deliveryId);
      await writeLog([logEntry(delivery, deliveryId, attempt, clock(), { outcome: 'skipped', latencyMs: 0, nextAttemptAt: null })]);
      return { status: 'completed' };
    }
    const busy = inFlight.get(webhook.id) ?? 0;
    if (busy >= options.endpointConcurrency) {
      return { status: 'retry', runAt: new Date(clock().getTime() + ENDPOINT_BUSY_DELAY_MS) };
    }
    inFlight.set(webhook.id, busy + 1);
    try {
      const attempt = await attemptNumber(job, deliveryId);
      const result = await send(webhook, delivery);
      if (result.kind === 'failed' && result.error === 'aborted')
        throw new Error('The attempt was cut by a stop; the delivery runs again.');
      const now = clock();
      const ops: WriteOp[] = [];
      let outcome: DeliveryOutcome;
      let jobOutcome: JobOutcome;
      let next: Date | null = null;
      const succeeded = result.kind === 'answered' && result.status >= 200 && result.status < 300;
      if (succeeded) {
        outcome = 'succeeded';
        jobOutcome = { status: 'completed' };
        if ((await knownFailingSince(webhook.id)) !== null) {
          failingSince.set(webhook.id, null);
          ops.push({ op: 'put', collection: WEBHOOK_ENDPOINT_HEALTH, doc: { _id: webhook.id, failing_since: null } });
        }
      } else {
        const since = (await knownFailingSince(webhook.id)) ?? now.toISOString();
        if (failingSince.get(webhook.id) !== since) {
          failingSince.set(webhook.id, since);
          ops.push({ op: 'put', collection: WEBHOOK_ENDPOINT_HEALTH, doc: { _id: webhook.id, failing_since: since } });
        }
        const gone = result.kind === 'answered' && result.status === 410;
        // Counted from the webhook's last change too: one enabled again after `failing` gets 5 days afresh.
        const failingFrom = Math.max(Date.parse(since), Date.parse(webhook.updated_at));
        const failingTooLong = now.getTime() - failingFrom >= DISABLE_FAILING_AFTER_MS;
        next = gone || failingTooLong ? null : nextAttemptAt(attempt, now, random);
        if (gone) await disable(webhook.id, 'gone');
        else if (failingTooLong) await disable(webhook.id, 'failing');
        outcome = next ? 'retrying' : 'failed';
        jobOutcome = next
          ? { status: 'retry', runAt: next }
          : { status: 'failed', reason: gone ? 'gone (410)' : failingTooLong ? 'endpoint failing for 5 days' : 'last attempt failed' };
      }
      ops.unshift(logEntry(delivery, deliveryId, attempt, now, { outcome, result, latencyMs: result.latencyMs, nextAttemptAt: next }));
      await writeLog(ops);
      logger.debug({ deliveryId, attempt, outcome, status: result.kind === 'answered' ? result.status : result.error }, 'webhook attempt');
      return jobOutcome;
    } finally {
      const left = (inFlight.get(webhook.id) ?? 1) - 1;
      if (left === 0) inFlight.delete(webhook.id);
      else inFlight.set(webhook.id, left);
    }
  };

  async function send(webhook: WebhookDoc, delivery: WebhookDeliveryJob): Promise<DeliveryResult | RefusedTarget> {
    const target = await checkWebhookTarget(webhook.url, options.targetPolicy, options.resolve);
    if (!target.ok) return { kind: 'refused', error: 'target_refused', message: target.reason, latencyMs: 0 };
    const now = clock();
    const secrets = webhook.secrets
      .filter((secret) => secret.retire_at === null || Date.parse(secret.retire_at) > now.getTime())
      .map((secret) => openSecret(webhook.id, secret.sealed));
    const timestamp = Math.floor(now.getTime() / 1000);
    return deliverAttempt({
      target: { url: target.url, address: target.address, family: target.family },
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        'X-Service-Event': delivery.event_type,
        'X-Service-Event-Id': delivery.event_id,
        'X-Service-Timestamp': String(timestamp),
        'X-Service-Signature': signatureHeader(secrets, timestamp, delivery.event_id, delivery.body),
      },
      body: delivery.body,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}

/**
 * Writes through one read-store write per LOG_GATHER_MS: each caller's operations are durable when its
 * promise resolves (an attempt's outcome goes to the queue only after its log entry is written), and the
 * attempts in flight together share one transaction instead of one each.
 */
function gatheredWrites(readStore: ReadStore): (ops: WriteOp[]) => Promise<void> {
  let gathering: { ops: WriteOp[]; written: Promise<void> } | null = null;
  return (ops) => {
    if (!gathering) {
      const batch: { ops: WriteOp[]; written: Promise<void> } = { ops: [], written: Promise.resolve() };
      batch.written = new Promise<void>((resolve) => setTimeout(resolve, LOG_GATHER_MS)).then(() => {
        gathering = null;
        return readStore.write(batch.ops);
      });
      gathering = batch;
    }
    gathering.ops.push(...ops);
    return gathering.written;
  };
}

/** The SSRF guard refused the target at attempt time: a failed attempt, nothing sent. */
interface RefusedTarget {
  kind: 'refused';
  error: 'target_refused';
  message: string;
  latencyMs: number;
}

function logEntry(
  delivery: WebhookDeliveryJob,
  deliveryId: string,
  attempt: number,
  at: Date,
  facts: { outcome: DeliveryOutcome; result?: DeliveryResult | RefusedTarget; latencyMs: number; nextAttemptAt: Date | null },
): WriteOp {
  const { result } = facts;
  const doc: WebhookDeliveryAttemptDoc = {
    _id: deliveryAttemptIdOf(deliveryId, attempt),
    delivery_id: deliveryId,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    webhook_id: delivery.webhook_id,
    attempt,
    attempted_at: at.toISOString(),
    status_code: result?.kind === 'answered' ? result.status : null,
    error: result && result.kind !== 'answered' ? result.error : null,
    error_message: result && result.kind !== 'answered' ? result.message : null,
    latency_ms: Math.round(facts.latencyMs),
    next_attempt_at: facts.nextAttemptAt?.toISOString() ?? null,
    outcome: facts.outcome,
  };
  return { op: 'put', collection: WEBHOOK_DELIVERIES, doc };
}
