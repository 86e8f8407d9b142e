import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobCounts, JobQueue } from '../jobQueue/jobQueue.js';
import { BucketHistogram } from './bucketHistogram.js';
import type { LagSnapshot } from './projectionLag.js';

/** Every metric of ours starts with this, so a dashboard finds them apart from the process's default ones. */
const PREFIX = 'catalogue_';

/** HTTP requests: from a cached 304 (well under 1 ms) to a brochure render waited for (tens of seconds). */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Store calls: the embedded stores answer in microseconds, servers across a network in milliseconds. */
const STORE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Background jobs and brochure renders: a webhook attempt (milliseconds) to a render at its deadline. */
const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const PROJECTION_LABEL = ['projection'] as const;

/** The job states a queue's depth is reported in (completed jobs are history, not depth). */
const QUEUE_DEPTH_STATES = ['waiting', 'delayed', 'active', 'failed'] as const satisfies ReadonlyArray<keyof JobCounts>;

let processMetrics: Registry | null = null;

/**
 * Node's default metrics (CPU, memory, heap, event loop lag, GC), made once per process and shared by the
 * services in it: they describe the process, not a service, and each set starts an event loop monitor and a
 * GC observer that prom-client never stops, so a set per service would pile up in a test run.
 */
function processMetricsRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** What the scrape-time gauges read: set once the process knows them (see watch*). */
interface Sources {
  projectionLag: (() => Promise<LagSnapshot>) | null;
  queues: Map<string, JobQueue>;
}

/**
 * The Prometheus metrics of one running service: a registry of its own (tests run several services in one
 * process, and none may see another's figures) with the families of issue 17, scraped together with the
 * process's default metrics.
 * Counters and histograms are fed by decorators around the ports (src/metrics/instrumented*.ts) and by the
 * HTTP middleware; the gauges that describe shared state (projection lag, checkpoints, queue depth) are read
 * when scraped, so an idle process does no work for them.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly sources: Sources = { projectionLag: null, queues: new Map() };

  readonly httpRequestDuration = new BucketHistogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "Time from a request's arrival to the end of its response, by the express route template that served it ('unmatched' when none did) and status class.",
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registry: this.registry,
  });

  /** Requests received and not yet answered: a plain count on the request path, read into its gauge when scraped. */
  readonly httpInFlight = { count: 0 };

  /** The request limiter's allowed decisions: a plain count on the request path, read into limiterDecisions when scraped. */
  readonly limiterAllowed = { count: 0 };

  readonly limiterDecisions = new Counter({
    name: `${PREFIX}limiter_decisions_total`,
    help: "The request limiter's decisions: 'allowed', or the code of the limit that refused the request.",
    labelNames: ['code'] as const,
    registers: [this.registry],
    collect: () => {
      // What was allowed since the last scrape; the series appears with the first allowed request.
      const allowed = this.limiterAllowed.count;
      if (allowed > this.allowedReported) this.limiterDecisions.labels('allowed').inc(allowed - this.allowedReported);
      this.allowedReported = allowed;
    },
  });
  private allowedReported = 0;

  readonly pdfLimiterDecisions = new Counter({
    name: `${PREFIX}pdf_limiter_decisions_total`,
    help: "The PDF generation limiter's decisions: 'allowed', or the code of the limit that refused the render.",
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly quotaRefusals = new Counter({
    name: `${PREFIX}quota_refusals_total`,
    help: 'Requests (limiter="requests") and brochure renders (limiter="pdf") refused because a daily or monthly quota was spent.',
    labelNames: ['limiter', 'period'] as const,
    registers: [this.registry],
  });

  readonly eventStoreAppendDuration = new Histogram({
    name: `${PREFIX}event_store_append_duration_seconds`,
    help: "Event store appends: 'ok', 'conflict' (the stream moved: the command is decided again) or 'error'.",
    labelNames: ['outcome'] as const,
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });

  readonly readStoreDuration = new BucketHistogram({
    name: `${PREFIX}read_store_operation_duration_seconds`,
    help: 'Read store calls by operation (find, get, get_many, find_one, read_sequence, write, get_checkpoint), failed ones included.',
    labelNames: ['operation'] as const,
    buckets: STORE_BUCKETS,
    registry: this.registry,
  });

  readonly readStoreErrors = new Counter({
    name: `${PREFIX}read_store_errors_total`,
    help: 'Read store calls that failed, by operation.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly rebuildCheckpoint = new Gauge({
    name: `${PREFIX}projection_rebuild_checkpoint_position`,
    help: 'Log position a blue/green rebuild in this process has reached, per projection; present only while the rebuild runs.',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });

  readonly redisUp = new Gauge({
    name: `${PREFIX}redis_up`,
    help: "1 when this process's last Redis call (heartbeat every few seconds, readiness ping) succeeded, 0 when it failed; absent without REDIS_URL.",
    registers: [this.registry],
  });

  readonly redisErrors = new Counter({
    name: `${PREFIX}redis_errors_total`,
    help: "Failed Redis calls of this process's heartbeat and readiness probe (the limiter falls back to in-process limits meanwhile).",
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly limitsFallback = new Gauge({
    name: `${PREFIX}limits_in_process_fallback`,
    help: 'API processes with REDIS_URL: 1 while Redis does not answer, so rate limits and quotas are kept in this process alone; 0 otherwise.',
    registers: [this.registry],
  });

  readonly jobsFinished = new Counter({
    name: `${PREFIX}jobs_finished_total`,
    help: 'Background jobs run by this process, by queue and outcome: completed, retry (scheduled again), failed (final) or error (the handler threw; run again later).',
    labelNames: ['queue', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: `${PREFIX}job_duration_seconds`,
    help: 'Run time of the background jobs this process ran, by queue.',
    labelNames: ['queue'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: `${PREFIX}webhook_delivery_attempts_total`,
    help: 'Webhook delivery attempts this process recorded, by outcome: succeeded, retrying, failed (final) or skipped (webhook disabled or deleted).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly pdfRenderDuration = new Histogram({
    name: `${PREFIX}pdf_render_duration_seconds`,
    help: "Brochure renders in this process's browser, by outcome (ok, error).",
    labelNames: ['outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    const inFlight = this.httpInFlight;
    new Gauge({
      name: `${PREFIX}http_requests_in_flight`,
      help: 'Requests received and not yet answered (or abandoned by their client).',
      registers: [this.registry],
      collect() {
        this.set(inFlight.count);
      },
    });
    this.lagGauge('event_log_head_position', 'Position of the last event in the global log (0 when empty).', [], (snapshot, set) =>
      set({}, Number(snapshot.head ?? 0n)),
    );
    this.lagGauge(
      'projection_checkpoint_position',
      'Log position up to which each projection has applied and checkpointed the log (as stored in the read store).',
      PROJECTION_LABEL,
      (snapshot, set) => {
        for (const { name, checkpoint } of snapshot.projections) if (checkpoint !== null) set({ projection: name }, Number(checkpoint));
      },
    );
    this.lagGauge(
      'projection_lag_events',
      "Events in the log after each projection's checkpoint (on EventStoreDB counted up to READY_MAX_LAG_EVENTS + 1).",
      PROJECTION_LABEL,
      (snapshot, set) => {
        for (const { name, eventsBehind } of snapshot.projections) set({ projection: name }, eventsBehind);
      },
    );
    this.lagGauge(
      'projection_lag_seconds',
      'Seconds since the oldest event each projection has not applied was recorded; 0 when it has applied the whole log.',
      PROJECTION_LABEL,
      (snapshot, set) => {
        for (const { name, secondsBehind } of snapshot.projections) set({ projection: name }, secondsBehind);
      },
    );
    const rebuildCheckpoint = this.rebuildCheckpoint;
    this.lagGauge(
      'projection_rebuild_progress_ratio',
      'Share of the log a blue/green rebuild in this process has projected (its checkpoint over the head position); present only while it runs.',
      PROJECTION_LABEL,
      async (snapshot, set) => {
        const head = Number(snapshot.head ?? 0n);
        if (head === 0) return;
        for (const { labels, value } of (await rebuildCheckpoint.get()).values) {
          set({ projection: String(labels.projection) }, Math.min(1, value / head));
        }
      },
    );
    const queues = this.sources.queues;
    new Gauge({
      name: `${PREFIX}job_queue_jobs`,
      help: 'Jobs in each background queue by state: waiting (due), delayed (not yet due), active (running somewhere), failed (kept until retried).',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...queues].map(async ([name, queue]) => {
            const counts = await queue.counts().catch(() => null);
            if (counts) for (const state of QUEUE_DEPTH_STATES) this.set({ queue: name, state }, counts[state]);
          }),
        );
      },
    });
  }

  /**
   * A gauge read from the projection lag when scraped. Each such gauge awaits the snapshot itself (a scrape
   * reads every metric at once); the probe hands them all the one measurement while it is fresh.
   */
  private lagGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    fill: (snapshot: LagSnapshot, set: (labels: Record<string, string>, value: number) => void) => void | Promise<void>,
  ): void {
    const sources = this.sources;
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        // A store that does not answer leaves the gauge empty rather than failing the whole scrape.
        const snapshot = await sources.projectionLag?.().catch(() => undefined);
        if (snapshot) await fill(snapshot, (labels, value) => this.set(labels, value));
      },
    });
  }

  /** The projection lag the scrape reports (see src/metrics/projectionLag.ts). */
  watchProjectionLag(current: () => Promise<LagSnapshot>): void {
    this.sources.projectionLag = current;
  }

  /** A background queue whose depth the scrape reports. */
  watchQueue(name: string, queue: JobQueue): void {
    this.sources.queues.set(name, queue);
  }

  /** This service's metrics and the process's, in the text exposition format Prometheus scrapes. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    const scraped = Registry.merge([processMetricsRegistry(), this.registry]);
    return { contentType: scraped.contentType, body: await scraped.metrics() };
  }
}
