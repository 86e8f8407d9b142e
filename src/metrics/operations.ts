import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { REDIS_PING_TIMEOUT_MS } from '../cache/cacheHealth.js';
import { createRedisClient } from '../cache/redisClient.js';
import type { Config } from '../config.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { startOperationsServer, type OperationsServer } from '../http/operationsServer.js';
import type { JobQueue } from '../jobQueue/jobQueue.js';
import type { Limits } from '../limits/limits.js';
import type { Logger } from '../logger.js';
import type { PdfLimiter } from '../pdf/pdfLimits.js';
import type { BrochureRendering } from '../pdf/pdfRenders.js';
import { checkpointNameOf, type Projection } from '../projectionEngine/projection.js';
import type { ReadStore } from '../readStore/readStore.js';
import { readStoreHeartbeats, redisHeartbeats, startHeartbeats, type LimitsMode, type ProcessHeartbeat } from './heartbeats.js';
import { countWebhookDeliveries, instrumentBrochureRenderer, instrumentJobQueue } from './instrumentedJobs.js';
import { instrumentPdfLimiter, instrumentLimits } from './instrumentedLimits.js';
import { instrumentEventStore, instrumentReadStore } from './instrumentedStores.js';
import { recordProjectionFailures, type ProjectionFailures } from './projectionFailures.js';
import { createProjectionLagProbe } from './projectionLag.js';
import { createReadiness, type Readiness } from './readiness.js';
import { createRedisProbe, type RedisProbe } from './redisProbe.js';
import { ServiceMetrics } from './serviceMetrics.js';
import { createServiceStatus, type StatusSource } from './serviceStatus.js';

export interface OperationsOptions {
  config: Config;
  roles: ReadonlySet<string>;
  /** The stores as opened; `stores` below are what the rest of the process should use. */
  stores: { eventStore: EventStore; readStore: ReadStore };
  projections: readonly Projection[];
  logger: Logger;
  clock: () => Date;
}

/**
 * What makes a running process observable (issue 17): its metrics (METRICS=on), the stores instrumented for
 * them, readiness, the heartbeat it writes for /admin/v1/status, the status itself, and the METRICS_PORT
 * server. The `observe*` methods wrap a port in its metrics decorator, or hand it back unchanged with
 * METRICS=off, so that nothing is measured then.
 */
export interface Operations {
  metrics: ServiceMetrics | null;
  stores: { eventStore: EventStore; readStore: ReadStore };
  readiness: Readiness;
  status: StatusSource;
  /** The projector role's projections and read store, whose failures reach the status; null without the role. */
  projector: Pick<ProjectionFailures, 'projections' | 'readStore'> | null;
  observeLimits(limits: Limits): Limits;
  observePdfLimiter(limiter: PdfLimiter): PdfLimiter;
  observeQueue(name: string, queue: JobQueue): JobQueue;
  observeRenderer<Renderer extends BrochureRendering & { close?(): Promise<void> }>(
    renderer: Renderer,
  ): BrochureRendering & Pick<Renderer, 'close'>;
  /** The webhook worker's read store: the delivery attempts it records are counted by outcome. */
  observeWebhookDeliveries(readStore: ReadStore): ReadStore;
  /** Stops the heartbeat (deleting this process's), the METRICS_PORT server and the Redis connection. */
  stop(): Promise<void>;
}

export async function startOperations(options: OperationsOptions): Promise<Operations> {
  const { config, roles, logger, clock, projections } = options;
  const raw = options.stores;
  const metrics = config.metrics.enabled ? new ServiceMetrics() : null;
  const projectionOf = new Map(projections.map((projection) => [checkpointNameOf(projection), projection.name]));
  const stores = metrics
    ? {
        eventStore: instrumentEventStore(raw.eventStore, metrics),
        readStore: instrumentReadStore(raw.readStore, metrics, (checkpoint) => projectionOf.get(checkpoint)),
      }
    : raw;

  const limitsViaRedis = roles.has('api') && config.rateLimits === 'on' && config.redisUrl !== undefined;
  const redisClient: Redis | null = config.redisUrl ? createRedisClient(config.redisUrl, REDIS_PING_TIMEOUT_MS) : null;
  const redis: RedisProbe | null = redisClient ? createRedisProbe(redisClient, metrics, limitsViaRedis) : null;
  // The probes read the stores as opened: their own reads are no part of the service's latency.
  const lag = createProjectionLagProbe({
    eventStore: raw.eventStore,
    readStore: raw.readStore,
    projections,
    positionsCountEvents: config.eventStoreUrl === undefined,
    countUpTo: config.readiness.maxLagEvents + 1,
  });
  metrics?.watchProjectionLag(() => lag.current());
  const readiness = createReadiness({
    eventStore: raw.eventStore,
    readStore: raw.readStore,
    redis,
    lag,
    maxLagEvents: config.readiness.maxLagEvents,
    maxLagSeconds: config.readiness.maxLagSeconds,
  });
  const failures = roles.has('projector') ? recordProjectionFailures(projections, stores.readStore, clock) : null;

  const limitsMode = (): LimitsMode | null => {
    if (!roles.has('api')) return null;
    if (config.rateLimits === 'off') return 'off';
    if (!limitsViaRedis) return 'in-process';
    return redis?.reachable() === false ? 'in-process-fallback' : 'redis';
  };
  const identity = {
    id: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    pid: process.pid,
    host: hostname(),
    roles: [...roles],
    started_at: clock().toISOString(),
  };
  const current = (): ProcessHeartbeat => ({
    ...identity,
    last_seen: clock().toISOString(),
    limits: limitsMode(),
    projection_errors: failures?.last() ?? {},
  });

  const started: Array<() => Promise<void>> = [];
  try {
    const heartbeats = startHeartbeats({
      store: redisClient ? redisHeartbeats(redisClient, config.jobQueue.prefix) : readStoreHeartbeats(raw.readStore),
      current,
      ...(redis ? { onWrite: (ok: boolean) => redis.record('heartbeat', ok) } : {}),
      logger,
      now: () => clock().getTime(),
    });
    started.push(() => heartbeats.stop());
    let server: OperationsServer | null = null;
    if (config.metrics.port !== undefined) {
      server = await startOperationsServer({
        port: config.metrics.port,
        host: config.host,
        httpServer: config.httpServer,
        logger,
        readiness,
        metrics,
      });
      const listening = server;
      started.push(() => listening.close());
    }
    const status = createServiceStatus({ heartbeats, current, lag, projections, redis, now: () => clock().getTime() });
    return {
      metrics,
      stores,
      readiness,
      status,
      projector: failures,
      observeLimits: (limits) => (metrics ? instrumentLimits(limits, metrics) : limits),
      observePdfLimiter: (limiter) => (metrics ? instrumentPdfLimiter(limiter, metrics) : limiter),
      observeQueue: (name, queue) => (metrics ? instrumentJobQueue(name, queue, metrics) : queue),
      observeRenderer: (renderer) => (metrics ? instrumentBrochureRenderer(renderer, metrics) : renderer),
      observeWebhookDeliveries: (readStore) => (metrics ? countWebhookDeliveries(readStore, metrics) : readStore),
      async stop() {
        try {
          for (const stop of started.splice(0).reverse()) await stop();
        } finally {
          redisClient?.disconnect();
        }
      },
    };
  } catch (error) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    redisClient?.disconnect();
    throw error;
  }
}
