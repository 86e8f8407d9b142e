import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore, LogReadAhead } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { Job, JobConsumer, JobOutcome, JobQueue } from '../../src/jobQueue/jobQueue.js';
import { createInProcessLimits } from '../../src/limits/inProcessLimits.js';
import type { ConsumeRequest } from '../../src/limits/limits.js';
import { forwardEventStore } from '../../src/metrics/forwardingStores.js';
import { countWebhookDeliveries, instrumentBrochureRenderer, instrumentJobQueue } from '../../src/metrics/instrumentedJobs.js';
import { instrumentLimits, instrumentPdfLimiter } from '../../src/metrics/instrumentedLimits.js';
import { instrumentEventStore, instrumentReadStore } from '../../src/metrics/instrumentedStores.js';
import { ServiceMetrics } from '../../src/metrics/serviceMetrics.js';
import { createInProcessPdfLimiter } from '../../src/pdf/pdfLimits.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { WEBHOOK_DELIVERIES, type DeliveryOutcome, type WebhookDeliveryAttemptDoc } from '../../src/webhooks/webhookDeliveries.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The value of one series (`name` with its _count/_sum suffix for a histogram) with these labels; undefined when absent. */
async function valueOf(
  metrics: ServiceMetrics,
  family: string,
  series: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(family);
  if (!metric) throw new Error(`no metric ${family}`);
  const { values } = await metric.get();
  return values.find(
    (value) =>
      ((value as { metricName?: string }).metricName ?? family) === series &&
      Object.entries(labels).every(([name, expected]) => String(value.labels[name]) === expected),
  )?.value;
}

const request = (daily: number): ConsumeRequest => ({
  clientId: 7,
  environment: 'live',
  policy: { burst: { limit: 100, windowMs: 2_000 }, perMinute: 100, daily, monthly: 1_000, overage: null },
  units: 1,
  chargesQuota: true,
});

describe('limiter decorators', () => {
  it('when the request limiter allows and refuses, then each decision is counted by code and the quota refusal by period', async () => {
    const metrics = new ServiceMetrics();
    const limits = instrumentLimits(createInProcessLimits(), metrics);
    closers.push(() => limits.close());
    const policy = request(2);
    const results = [await limits.consume(policy), await limits.consume(policy), await limits.consume(policy)];
    expect(results.map((result) => result.allowed)).toEqual([true, true, false]);
    expect(await valueOf(metrics, 'catalogue_limiter_decisions_total', 'catalogue_limiter_decisions_total', { code: 'allowed' })).toBe(2);
    expect(
      await valueOf(metrics, 'catalogue_limiter_decisions_total', 'catalogue_limiter_decisions_total', { code: 'DAILY_LIMIT_EXCEEDED' }),
    ).toBe(1);
    expect(
      await valueOf(metrics, 'catalogue_quota_refusals_total', 'catalogue_quota_refusals_total', { limiter: 'requests', period: 'daily' }),
    ).toBe(1);
  });

  it('when the PDF limiter refuses a render per minute and then per day, then only the daily one counts as a quota refusal', async () => {
    const metrics = new ServiceMetrics();
    const limiter = instrumentPdfLimiter(createInProcessPdfLimiter(), metrics);
    closers.push(() => limiter.close());
    expect((await limiter.consume(1, { per_minute: 1, daily: 10, monthly: 10 })).allowed).toBe(true);
    expect(await limiter.consume(1, { per_minute: 1, daily: 10, monthly: 10 })).toMatchObject({
      allowed: false,
      code: 'PER_MINUTE_LIMIT_EXCEEDED',
    });
    expect(await limiter.consume(1, { per_minute: 10, daily: 1, monthly: 10 })).toMatchObject({
      allowed: false,
      code: 'DAILY_LIMIT_EXCEEDED',
    });
    const decisions = (code: string) =>
      valueOf(metrics, 'catalogue_pdf_limiter_decisions_total', 'catalogue_pdf_limiter_decisions_total', { code });
    expect([await decisions('allowed'), await decisions('PER_MINUTE_LIMIT_EXCEEDED'), await decisions('DAILY_LIMIT_EXCEEDED')]).toEqual([
      1, 1, 1,
    ]);
    expect(
      await valueOf(metrics, 'catalogue_quota_refusals_total', 'catalogue_quota_refusals_total', { limiter: 'pdf', period: 'daily' }),
    ).toBe(1);
    expect(
      await valueOf(metrics, 'catalogue_quota_refusals_total', 'catalogue_quota_refusals_total', { limiter: 'pdf', period: 'monthly' }),
    ).toBe(undefined);
  });
});

/** A queue double that runs the given jobs through the consumer's handler at once. */
function queueRunning(jobs: readonly Job[]): JobQueue & { settled: Promise<Array<JobOutcome | 'threw'>> } {
  let settle!: (outcomes: Array<JobOutcome | 'threw'>) => void;
  const settled = new Promise<Array<JobOutcome | 'threw'>>((resolve) => (settle = resolve));
  const unused = () => Promise.reject(new Error('not used here'));
  return {
    settled,
    add: unused,
    retry: unused,
    counts: async () => ({ waiting: 3, delayed: 2, active: 1, failed: 4, completed: 9 }),
    close: async () => undefined,
    consume(handler): JobConsumer {
      void Promise.all(jobs.map((job) => handler(job).catch(() => 'threw' as const))).then(settle);
      return { stop: async () => undefined };
    },
  };
}

describe('job decorators', () => {
  it('when jobs complete, retry, fail or throw, then each outcome is counted and timed, and the depth is read at the scrape', async () => {
    const metrics = new ServiceMetrics();
    const jobs = ['completed', 'retry', 'failed', 'throw'].map((id): Job => ({ id, data: null, attempt: 1 }));
    const double = queueRunning(jobs);
    const queue = instrumentJobQueue('webhook-deliveries', double, metrics);
    queue.consume(
      async (job) => {
        if (job.id === 'completed') return { status: 'completed' };
        if (job.id === 'retry') return { status: 'retry', runAt: new Date() };
        if (job.id === 'failed') return { status: 'failed', reason: 'last attempt failed' };
        throw new Error('the handler broke');
      },
      { concurrency: 4 },
    );
    expect(await double.settled).toEqual([
      { status: 'completed' },
      { status: 'retry', runAt: expect.any(Date) },
      { status: 'failed', reason: 'last attempt failed' },
      'threw',
    ]);
    for (const outcome of ['completed', 'retry', 'failed', 'error']) {
      expect(
        await valueOf(metrics, 'catalogue_jobs_finished_total', 'catalogue_jobs_finished_total', { queue: 'webhook-deliveries', outcome }),
      ).toBe(1);
    }
    expect(
      await valueOf(metrics, 'catalogue_job_duration_seconds', 'catalogue_job_duration_seconds_count', { queue: 'webhook-deliveries' }),
    ).toBe(4);
    expect(
      await valueOf(metrics, 'catalogue_job_queue_jobs', 'catalogue_job_queue_jobs', { queue: 'webhook-deliveries', state: 'failed' }),
    ).toBe(4);
    expect(
      await valueOf(metrics, 'catalogue_job_queue_jobs', 'catalogue_job_queue_jobs', { queue: 'webhook-deliveries', state: 'completed' }),
    ).toBe(undefined);
  });

  it('when the renderer renders and fails, then both are timed by outcome and its close is kept', async () => {
    const metrics = new ServiceMetrics();
    let closed = false;
    const renderer = instrumentBrochureRenderer(
      {
        render: async (brochure: BrochureRequest) => {
          if ((brochure as { fail?: boolean }).fail) throw new Error('Chromium crashed');
          return { pdf: Buffer.from('%PDF-'), pages: 1, mapDrawn: false };
        },
        close: async () => {
          closed = true;
        },
      },
      metrics,
    );
    await renderer.render({} as BrochureRequest);
    await expect(renderer.render({ fail: true } as unknown as BrochureRequest)).rejects.toThrow('Chromium crashed');
    await renderer.close?.();
    expect(closed).toBe(true);
    expect(
      await valueOf(metrics, 'catalogue_pdf_render_duration_seconds', 'catalogue_pdf_render_duration_seconds_count', { outcome: 'ok' }),
    ).toBe(1);
    expect(
      await valueOf(metrics, 'catalogue_pdf_render_duration_seconds', 'catalogue_pdf_render_duration_seconds_count', { outcome: 'error' }),
    ).toBe(1);
  });

  it('when the webhook worker records delivery attempts, then each is counted by its outcome once written', async () => {
    const metrics = new ServiceMetrics();
    const readStore = countWebhookDeliveries(createEmbeddedReadStore({}), metrics);
    closers.push(() => readStore.close());
    const attempt = (id: string, outcome: DeliveryOutcome): WebhookDeliveryAttemptDoc => ({
      _id: id,
      delivery_id: id,
      event_id: 'event',
      event_type: 'project.updated',
      webhook_id: 'webhook',
      attempt: 1,
      attempted_at: new Date().toISOString(),
      status_code: null,
      error: null,
      error_message: null,
      latency_ms: 1,
      next_attempt_at: null,
      outcome,
    });
    await readStore.write([
      { op: 'put', collection: WEBHOOK_DELIVERIES, doc: attempt('a', 'succeeded') },
      { op: 'put', collection: WEBHOOK_DELIVERIES, doc: attempt('b', 'succeeded') },
      { op: 'put', collection: WEBHOOK_DELIVERIES, doc: attempt('c', 'retrying') },
      { op: 'put', collection: 'webhook_endpoint_health', doc: { _id: 'webhook', failing_since: null } },
    ]);
    const count = (outcome: string) =>
      valueOf(metrics, 'catalogue_webhook_delivery_attempts_total', 'catalogue_webhook_delivery_attempts_total', { outcome });
    expect([await count('succeeded'), await count('retrying'), await count('failed')]).toEqual([2, 1, undefined]);
  });
});

describe('store decorators', () => {
  it('when appends succeed and conflict, then each is timed by outcome, and the read-ahead of the log is kept', async () => {
    const metrics = new ServiceMetrics();
    const inner = createSqliteEventStore({ file: ':memory:' });
    const eventStore = instrumentEventStore(inner, metrics);
    closers.push(() => eventStore.close());
    await eventStore.appendToStream('state-1', [{ type: 'StateCreated', data: {} }], { expectedRevision: 'no_stream' });
    await expect(
      eventStore.appendToStream('state-1', [{ type: 'StateCreated', data: {} }], { expectedRevision: 'no_stream' }),
    ).rejects.toThrow();
    const count = (outcome: string) =>
      valueOf(metrics, 'catalogue_event_store_append_duration_seconds', 'catalogue_event_store_append_duration_seconds_count', { outcome });
    expect([await count('ok'), await count('conflict'), await count('error')]).toEqual([1, 1, undefined]);
    expect(typeof (eventStore as typeof eventStore & Partial<LogReadAhead>).readAllAhead).toBe('function');
    expect('readAllAhead' in forwardEventStore({ ...inner, readAllAhead: undefined } as unknown as EventStore)).toBe(false);
    const pages: number[] = [];
    for await (const page of (eventStore as typeof eventStore & LogReadAhead).readAllAhead({ pageSize: 10 }))
      pages.push(page.events.length);
    expect(pages).toEqual([1, 0]);
  });

  it('when read-store calls succeed and fail, then they are timed by operation and the failures counted', async () => {
    const metrics = new ServiceMetrics();
    const inner = createEmbeddedReadStore({});
    const readStore = instrumentReadStore(inner, metrics, () => undefined);
    await readStore.write([{ op: 'put', collection: 'things', doc: { _id: 1 } }]);
    expect(await readStore.get('things', 1)).toEqual({ _id: 1 });
    expect((await readStore.find('things')).total).toBe(1);
    await inner.close();
    await expect(readStore.get('things', 1)).rejects.toThrow();
    const count = (operation: string) =>
      valueOf(metrics, 'catalogue_read_store_operation_duration_seconds', 'catalogue_read_store_operation_duration_seconds_count', {
        operation,
      });
    expect([await count('write'), await count('get'), await count('find')]).toEqual([1, 2, 1]);
    expect(await valueOf(metrics, 'catalogue_read_store_errors_total', 'catalogue_read_store_errors_total', { operation: 'get' })).toBe(1);
  });

  it('when a rebuild writes a generation, then its projection reports the position reached until the generation is promoted', async () => {
    const metrics = new ServiceMetrics();
    const readStore = instrumentReadStore(createEmbeddedReadStore({}), metrics, (checkpoint) =>
      checkpoint === 'projects@v2' ? 'projects' : undefined,
    );
    closers.push(() => readStore.close());
    const generation = await readStore.beginGeneration(['projects']);
    await generation.write([{ op: 'put', collection: 'projects', doc: { _id: 1 } }], [{ name: 'projects@v2', position: 40n }]);
    const position = () =>
      valueOf(metrics, 'catalogue_projection_rebuild_checkpoint_position', 'catalogue_projection_rebuild_checkpoint_position', {
        projection: 'projects',
      });
    expect(await position()).toBe(40);
    await generation.write([], [{ name: 'projects@v2', position: 90n }]);
    expect(await position()).toBe(90);
    await generation.promote();
    expect(await position()).toBe(undefined);
    expect(await readStore.getCheckpoint('projects@v2')).toBe(90n);
  });
});
