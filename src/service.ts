import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { join } from 'node:path';
import { ADMIN_PROJECTS } from '../projections/adminCatalogue.js';
import { aedValuesIn } from '../projections/currencyRates.js';
import { allProjections } from '../projections/index.js';
import { pollingReadModels } from '../workers/webhooks/webhookDispatcher.js';
import { startWebhookWorker, type WebhookWorker } from '../workers/webhooks/webhookWorker.js';
import { createPublicApi } from '../queries/publicApi.js';
import { v1CollectionsReadById, v1CollectionsSearchedByIndexedFields, v1ReadOrderings } from '../queries/v1ReadOrderings.js';
import { rebuildProjections } from './projectionEngine/rebuild.js';
import { startProjector, type Projector } from './projectionEngine/runtime.js';
import { createEvaluationUsage } from './access/evaluationUsage.js';
import type { BlobStore } from './blobStore/blobStore.js';
import { createBlobStore } from './blobStore/createBlobStore.js';
import { createLimits } from './limits/createLimits.js';
import { createUsageLedger, withUsageLedger } from './limits/usageLedger.js';
import { createNonceStore } from './access/nonceStore.js';
import { createRedisCacheHealth, inProcessCacheHealth, type CacheHealth } from './cache/cacheHealth.js';
import { ADMIN_TOKEN_MIN_LENGTH, ConfigError, decodeSecretKey, type Config } from './config.js';
import { ensurePrivateDataDir } from './dataDir.js';
import { createEventStore } from './eventStore/createEventStore.js';
import type { EventStore } from './eventStore/eventStore.js';
import { createSqliteEventStore } from './eventStore/sqliteEventStore.js';
import { resolveAdminToken } from './http/adminAuth.js';
import { createApp } from './http/app.js';
import { trackConnections, type ConnectionDrain } from './http/connectionDrain.js';
import { describeAcceptedHosts } from './http/hostGuard.js';
import { createHttpServer } from './http/httpServer.js';
import { ensureSecretFile } from './http/secretFile.js';
import { createLinkSigner } from './http/signedLinks.js';
import type { Resolve } from './webhooks/targetPolicy.js';
import { createWebhookSecretBox, type WebhookSecretBox } from './webhooks/webhookSecrets.js';
import type { Logger } from './logger.js';
import { createImageDerivatives, type ImageDerivatives } from './media/imageDerivatives.js';
import type { JobQueue, JobQueueName } from './jobQueue/jobQueue.js';
import { createJobQueue } from './jobQueue/createJobQueue.js';
import { createSqliteJobQueue } from './jobQueue/sqliteJobQueue.js';
import { checkpointNameOf } from './projectionEngine/projection.js';
import type { ProjectorLease } from './projectionEngine/projectorLease.js';
import { createRedisProjectorLease } from './projectionEngine/redisProjectorLease.js';
import { createRedisCheckpointNotices } from './projectionEngine/checkpointNotices.js';
import { projectorProgress, storedCheckpointProgress } from './projectionEngine/readModelProgress.js';
import { createSqliteProjectorLease, PROJECTOR_LEASES_FILE_NAME } from './projectionEngine/sqliteProjectorLease.js';
import { startOperations } from './metrics/operations.js';
import { createReadStore } from './readStore/createReadStore.js';
import type { ReadStore } from './readStore/readStore.js';
import { seedDemoCatalogue } from './seed/demoCatalogue.js';
import { seedDemoClient, writeDemoApiKeyFile } from './seed/demoClient.js';
import { seedThroughStaging } from './seed/stagedSeed.js';
import { blobStoredFiles } from './uploads/blobStoredFiles.js';
import { openUploadStaging } from './uploads/staging.js';
import { createUploadReceiver } from './uploads/uploadReceiver.js';
import { createBrochureRenderer } from '../workers/pdf/brochureRenderer.js';
import { startPdfRenderJobs } from '../workers/pdf/pdfRenderJob.js';
import { createInProcessPdfLimiter } from './pdf/pdfLimits.js';
import { createInProcessPdfRenderNotices, createRedisPdfRenderNotices } from './pdf/pdfRenderNotices.js';
import { PDF_RENDER_QUEUE, type BrochureRendering } from './pdf/pdfRenders.js';
import { createRedisPdfLimiter } from './pdf/redisPdfLimits.js';
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from './pdf/idempotencyStore.js';
import { createRedisIdempotencyStore } from './pdf/redisIdempotencyStore.js';
import { createSqliteIdempotencyStore } from './pdf/sqliteIdempotencyStore.js';
import type { IdempotentPdfAnswer } from '../queries/projectPdf.js';

/** What one process runs: the HTTP API, the projections, the background workers; all three by default. */
export const ROLES = ['api', 'projector', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** `--role api,projector`, `--role api --role worker` or `--role=worker`; none = every role. */
export function parseRoles(argv: readonly string[]): ReadonlySet<Role> {
  const values: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--role') values.push(argv[++index] ?? '');
    else if (argument.startsWith('--role=')) values.push(argument.slice('--role='.length));
    else throw new ConfigError({ [argument]: 'is not a known option (use --role api|projector|worker)' });
  }
  const roles = values.flatMap((value) => value.split(',')).map((role) => role.trim());
  const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    throw new ConfigError({ '--role': `${unknown.map((role) => JSON.stringify(role)).join(', ')} is not one of ${ROLES.join(', ')}` });
  }
  return new Set(roles.length > 0 ? (roles as Role[]) : ROLES);
}

export interface ServiceStores {
  eventStore: EventStore;
  readStore: ReadStore;
}

export interface StartServiceOptions {
  config: Config;
  logger: Logger;
  roles?: ReadonlySet<Role>;
  /** Stores to use instead of the ones the config selects (tests pass in-memory ones). Closed by stop(). */
  stores?: ServiceStores;
  /** A blob store to use instead of the one the config selects (tests pass one in a temporary folder). Closed by stop(). */
  blobStore?: BlobStore;
  clock?: () => Date;
  /** How webhook targets' hosts are resolved (tests answer without DNS); the system resolver by default. */
  webhookResolve?: Resolve;
  /** The jitter of webhook retries, in [0, 1); Math.random by default. */
  webhookRandom?: () => number;
  /**
   * The brochure renderer of the worker role (tests hand in a double); by default the Chromium one of
   * workers/pdf/brochureRenderer.ts, configured by CHROMIUM_PATH and the PDF_* variables.
   */
  brochureRenderer?: BrochureRendering & { close?(): Promise<void> };
}

export interface RunningService extends ServiceStores {
  roles: ReadonlySet<Role>;
  projector: Projector | null;
  server: Server | null;
  /** The express app the server runs, whose route table the OpenAPI documents describe; null without the api role. */
  app: Express | null;
  /** `http://host:port` the API listens on; null without the api role. */
  url: string | null;
  /** The admin token the API accepts; null without the api role. */
  adminToken: string | null;
  blobStore: BlobStore;
  /** The image widths this process renders (its render count is observable). */
  imageDerivatives: ImageDerivatives;
  /** The webhook dispatcher and delivery; null without the worker role. */
  webhookWorker: WebhookWorker | null;
  /** shutdown() without its outcome. */
  stop(): Promise<void>;
  /**
   * Drains the HTTP server (stops accepting, answers every request already received), then writes the
   * usage counted, stops the projector at a batch boundary and closes the stores. Never rejects: a step that
   * fails is logged and the later ones still run. Called again, it returns the same stop.
   */
  shutdown(): Promise<ShutdownOutcome>;
}

export interface ShutdownOutcome {
  /** Every step finished and no connection had to be cut at the deadline. */
  clean: boolean;
}

/**
 * Share of SHUTDOWN_TIMEOUT_MS the HTTP drain may take before it cuts the connections still busy; the rest
 * is left to the steps after it (the usage flush, the projector's last batch, closing the stores), so that a
 * stop that hits the deadline still writes the usage of every request it answered.
 */
const HTTP_DRAIN_SHARE_OF_SHUTDOWN = 0.8;

/**
 * The whole wiring of one process, shared by src/main.ts and the HTTP tests: stores from the config, the
 * first-start demo seed, the projector, the HTTP server. Whatever started is stopped again when a later
 * step fails.
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  const roles = options.roles ?? new Set(ROLES);
  const clock = options.clock ?? (() => new Date());
  // Run last-started first: the HTTP drain, then the usage flush (limits), then the projector, then the stores.
  const cleanups: Array<() => Promise<void>> = [];
  const runCleanups = async (): Promise<ShutdownOutcome> => {
    let clean = true;
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => {
        clean = false;
        logger.error({ err: error }, 'shutdown step failed');
      });
    }
    return { clean };
  };

  try {
    logger.info(
      {
        roles: [...roles],
        mode: config.mode,
        eventStore: config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
        readStore: config.mongodbUrl ? 'mongodb' : 'embedded',
        cache: config.redisUrl ? 'redis' : 'in-process',
        dataDir: config.dataDir,
      },
      'starting',
    );
    // Embedded stores and generated secrets live there; with both servers and both secrets set it is unused.
    const usesDataDir =
      !config.eventStoreUrl || !config.mongodbUrl || config.adminToken === undefined || config.linkSigningSecret === undefined;
    if (usesDataDir) await ensurePrivateDataDir(config.dataDir, logger);
    const opened = options.stores ?? (await openStores(config));
    cleanups.push(
      () => opened.eventStore.close(),
      () => opened.readStore.close(),
    );
    // Before anything listens, so neither /v1/health, /readyz (here or on METRICS_PORT) nor a client sees this process
    // before it can answer at full speed.
    if (roles.has('api')) await loadReadModels(opened.readStore, logger);
    // Metrics, readiness, heartbeat and status; the stores as instrumented for the metrics (METRICS=on).
    const operations = await startOperations({ config, roles, stores: opened, projections: allProjections, logger, clock });
    cleanups.push(() => operations.stop());
    const stores = operations.stores;
    const blobStore =
      options.blobStore ?? createBlobStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
    cleanups.push(() => blobStore.close());
    const imageDerivatives = createImageDerivatives(blobStore);
    // Before the (possibly long) first-start seed, so an unusable token file fails the start at once.
    const adminToken = roles.has('api') ? await adminTokenFor(config, logger) : null;

    // Only the process serving the API seeds, so split-role processes sharing one DATA_DIR never seed twice.
    if (roles.has('api') && config.mode === 'embedded' && config.seedDemo && (await stores.eventStore.headPosition()) === null) {
      await seedOnFirstStart({ ...stores, blobStore }, config, clock, logger);
      // The whole seeded log at once, blue/green, as `npm run replay` does: several times faster than the
      // projector below catching up batch by batch, which would hold /v1/health back meanwhile.
      if (roles.has('projector')) {
        const rebuilt = await rebuildProjections({
          eventStore: stores.eventStore,
          readStore: operations.projector?.readStore ?? stores.readStore,
          projections: operations.projector?.projections ?? allProjections,
        });
        logger.info({ events: rebuilt.events, seconds: Math.round(rebuilt.seconds * 10) / 10 }, 'seeded catalogue projected');
      }
    }

    // A lease per projection, and one for the webhook dispatcher: a second projector (or worker) process stands by.
    const leases = roles.has('projector') || roles.has('worker') ? openProjectorLease(config, options.stores !== undefined, logger) : null;
    if (leases) cleanups.push(() => leases.close());

    // Word of each committed batch, from projector processes to API processes without one (X-Consistent-After).
    const checkpointNotices =
      config.redisUrl && (roles.has('projector') || roles.has('api'))
        ? createRedisCheckpointNotices(config.redisUrl, { channel: `${config.jobQueue.prefix}:projections:checkpoints` })
        : null;
    if (checkpointNotices) cleanups.push(() => checkpointNotices.close());

    let projector: Projector | null = null;
    if (roles.has('projector')) {
      projector = await startProjector({
        ...(checkpointNotices
          ? { onCommitted: (checkpoint: string, position: bigint) => checkpointNotices.announce(checkpoint, position) }
          : {}),
        lease: { store: leases! },
        eventStore: stores.eventStore,
        // Through the failure recorder: each projection's last failure reaches /admin/v1/status.
        readStore: operations.projector?.readStore ?? stores.readStore,
        projections: operations.projector?.projections ?? allProjections,
        logger: logger.child({ component: 'projector' }),
        batchSize: config.projectionBatchSize,
      });
      const started = projector;
      cleanups.push(() => started.stop());
      logger.info({ projections: allProjections.map((projection) => projection.name) }, 'projector started');
    }

    // Webhook deliveries wait in one queue: the worker dispatches and delivers them, the API queues test events.
    const webhooksUsed = roles.has('api') || roles.has('worker');
    const webhookSecrets = webhooksUsed ? await webhookSecretBoxFor(config, logger) : null;
    const webhookQueue = webhooksUsed
      ? operations.observeQueue(WEBHOOK_QUEUE, openWebhookQueue(config, options.stores !== undefined, clock, logger))
      : null;
    if (webhookQueue) cleanups.push(() => webhookQueue.close());
    // Brochure renders: the API queues them, the worker renders them (job id from the fingerprint).
    const pdfQueue = webhooksUsed
      ? operations.observeQueue(PDF_RENDER_QUEUE, openJobQueue(PDF_RENDER_QUEUE, config, options.stores !== undefined, clock, logger))
      : null;
    if (pdfQueue) cleanups.push(() => pdfQueue.close());
    // Word of each stored outcome, from the worker to the request waiting for it (in process, or over Redis).
    const renderNotices = pdfQueue
      ? config.redisUrl
        ? createRedisPdfRenderNotices(config.redisUrl, { channel: `${config.jobQueue.prefix}:pdf-renders:outcomes` })
        : createInProcessPdfRenderNotices()
      : null;
    if (renderNotices) cleanups.push(() => renderNotices.close());

    let server: Server | null = null;
    let expressApp: Express | null = null;
    let url: string | null = null;
    if (adminToken !== null) {
      const cache: CacheHealth = config.redisUrl ? createRedisCacheHealth(config.redisUrl) : inProcessCacheHealth;
      cleanups.push(() => cache.close());
      const nonceStore = createNonceStore(config.redisUrl);
      cleanups.push(() => nonceStore.close());
      const evaluationUsage = createEvaluationUsage(config.redisUrl);
      cleanups.push(() => evaluationUsage.close());
      // RATE_LIMITS=off: nothing is checked or counted (benchmarks, deployments behind another limiter).
      // Read per limited request: without an injected clock, no Date is made for it.
      const now = options.clock ? () => clock().getTime() : Date.now;
      // Durable usage only where there are limits: with RATE_LIMITS=off nothing is counted.
      const usageLedger = config.rateLimits === 'on' ? createUsageLedger(stores.readStore, { logger, now }) : null;
      const limits = usageLedger
        ? withUsageLedger(operations.observeLimits(createLimits(config.redisUrl, logger, { now })), usageLedger, now)
        : null;
      if (limits !== null) cleanups.push(() => limits.close());
      const pdfLimits =
        config.rateLimits === 'on'
          ? operations.observePdfLimiter(config.redisUrl ? createRedisPdfLimiter(config.redisUrl) : createInProcessPdfLimiter({ now }))
          : null;
      if (pdfLimits !== null) cleanups.push(() => pdfLimits.close());
      else logger.warn({ component: 'limits' }, 'RATE_LIMITS=off: no rate limits or quotas are checked');
      if (config.publicBaseUrl === undefined) {
        logger.warn(
          { component: 'http', accepted_hosts: describeAcceptedHosts() },
          'PUBLIC_BASE_URL is unset: links are built on the request Host, and a Host that does not name this machine gets 400 HOST_NOT_ALLOWED',
        );
      }
      const linkSigner = createLinkSigner(await linkSigningSecretFor(config, logger), config.signedLinkTtlSeconds);
      const pdfWaitTimeoutMs = config.pdf.renderTimeoutMs + PDF_HAND_OFF_MS;
      const idempotency = openIdempotencyStore(config, options.stores !== undefined, pdfWaitTimeoutMs, now);
      cleanups.push(() => idempotency.close());
      const publicApi = createPublicApi({
        ...stores,
        cache,
        linkSigner,
        clock,
        limits,
        ...(config.publicBaseUrl ? { publicBaseUrl: config.publicBaseUrl } : {}),
        blobs: blobStore,
        derivatives: imageDerivatives,
        pdf: {
          pdfLimits,
          queue: pdfQueue!,
          // The worker's deadline, plus the hand-off through the queue.
          waitTimeoutMs: pdfWaitTimeoutMs,
          idempotency,
          renderNotices: renderNotices!,
          currencyRates: () => aedValuesIn(stores.readStore),
        },
      });
      const storedFiles = blobStoredFiles(blobStore);
      // Uploads and catalogue imports stage their bodies in one place.
      const staging = await openUploadStaging(config.dataDir, logger);
      const uploads = createUploadReceiver({
        staging,
        blobStore,
        storedFiles,
        limits: config.uploadLimits,
        ...(config.mediaPregenerate ? { pregenerate: (key: string) => imageDerivatives.pregenerate(key) } : {}),
        logger,
      });
      // Beside the projector, its own word; elsewhere the checkpoints it stores.
      const readModelProgress = projector
        ? projectorProgress(projector)
        : storedCheckpointProgress({
            readStore: stores.readStore,
            checkpointNames: allProjections.map(checkpointNameOf),
            notices: checkpointNotices,
            logger,
          });
      cleanups.push(() => readModelProgress.close());
      const app = createApp({
        ...stores,
        storedFiles,
        uploads,
        importStaging: staging,
        publicApi,
        nonceStore,
        signatureWindowSeconds: config.signatureWindowSeconds,
        adminToken,
        clock,
        logger,
        trustedProxies: config.trustedProxies,
        evaluationUsage,
        ...(usageLedger ? { pendingUsage: usageLedger } : {}),
        evaluationRequestLimit: config.evaluationRequestLimit,
        webhookDeliveries: { queue: webhookQueue! },
        operations,
        consistency: { progress: readModelProgress, waitMs: config.consistencyWaitMs },
        webhooks: {
          limits,
          secrets: webhookSecrets!,
          targetPolicy: { allowedPrivateCidrs: config.webhookAllowedPrivateCidrs },
          secretOverlapSeconds: config.webhookSecretOverlapSeconds,
          ...(options.webhookResolve ? { resolve: options.webhookResolve } : {}),
        },
      });
      expressApp = app;
      const listening = createHttpServer(app, config.httpServer, logger);
      const connections = trackConnections(listening);
      listening.listen(config.port, config.host);
      // Rejects with the 'error' (e.g. EADDRINUSE) when listening fails.
      await once(listening, 'listening');
      server = listening;
      // Pushed after limits.close, so it runs before it: the ledger's final flush then holds the usage of
      // every request the drain answered.
      cleanups.push(() => drain(connections, config.shutdownTimeoutMs * HTTP_DRAIN_SHARE_OF_SHUTDOWN, logger));
      url = urlOf(listening);
      logger.info({ url }, `listening on ${url}`);
    }

    let webhookWorker: WebhookWorker | null = null;
    if (roles.has('worker')) {
      const projectorOfThisProcess = projector;
      const started = await startWebhookWorker({
        ...stores,
        readStore: operations.observeWebhookDeliveries(stores.readStore),
        queue: webhookQueue!,
        secretBox: webhookSecrets!,
        targetPolicy: { allowedPrivateCidrs: config.webhookAllowedPrivateCidrs },
        delivery: config.webhookDelivery,
        // Image addresses in event data; without PUBLIC_BASE_URL (embedded mode) this machine's API.
        publicBaseUrl: config.publicBaseUrl ?? `${url ?? `http://localhost:${config.port}`}/v1`,
        dispatcherLease: { store: leases! },
        // A worker beside the projector waits for it; one on its own polls the checkpoints a projector elsewhere writes.
        readModelsReached: projectorOfThisProcess
          ? (position) => projectorOfThisProcess.waitForPosition(position, READ_MODELS_PATIENCE_MS)
          : pollingReadModels(stores.readStore, allProjections.map(checkpointNameOf)),
        logger,
        clock,
        ...(options.webhookRandom ? { random: options.webhookRandom } : {}),
        ...(options.webhookResolve ? { resolve: options.webhookResolve } : {}),
      });
      webhookWorker = started;
      cleanups.push(() => started.stop());
      const pdfLogger = logger.child({ component: 'pdf' });
      // Chromium starts with the first render, so a worker that renders nothing never launches it.
      const browserRenderer =
        options.brochureRenderer ??
        createBrochureRenderer({
          readStore: stores.readStore,
          blobStore,
          derivatives: imageDerivatives,
          ...(config.pdf.chromiumPath === undefined ? {} : { chromiumPath: config.pdf.chromiumPath }),
          concurrency: config.pdf.renderConcurrency,
          renderTimeoutMs: config.pdf.renderTimeoutMs,
          restartAfterJobs: config.pdf.browserRestartAfterJobs,
          tiles: { urlTemplate: config.pdf.tileUrl, userAgent: config.pdf.tileUserAgent, timeoutMs: PDF_MAP_TILES_TIMEOUT_MS },
          logger: pdfLogger,
        });
      const renderer = operations.observeRenderer(browserRenderer);
      if (renderer.close) cleanups.push(() => renderer.close!());
      const consumer = startPdfRenderJobs({
        queue: pdfQueue!,
        renderer,
        readStore: stores.readStore,
        blobs: blobStore,
        concurrency: config.pdf.renderConcurrency,
        renderTimeoutMs: config.pdf.renderTimeoutMs,
        clock,
        renderNotices: renderNotices!,
        // The job names its component in each line itself.
        logger,
      });
      // Pushed after the renderer's close, so it runs before it: running renders finish first.
      cleanups.push(() => consumer.stop());
    }

    let stopping: Promise<ShutdownOutcome> | null = null;
    const shutdown = () =>
      (stopping ??= runCleanups().then((outcome) => {
        logger.info(outcome, 'stopped');
        return outcome;
      }));
    return {
      ...stores,
      roles,
      projector,
      server,
      app: expressApp,
      url,
      adminToken,
      blobStore,
      imageDerivatives,
      webhookWorker,
      shutdown,
      stop: async () => {
        await shutdown();
      },
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

/** An `_id` no read model gives a document: reading it finds nothing, and costs MongoDB one lookup in its `_id` index. */
const NO_DOCUMENT_ID = '';

/**
 * The embedded read store loads a collection into memory on its first search of it (src/readStore/embedded/): at
 * 20,000 projects the first change-feed request after a start took seconds, paid by whichever client came
 * first. A search of every read model's collection here makes the start pay it instead (but for those the
 * /v1 reads only read by id, which the embedded store then reads from its table), and a read in each
 * sorted order the /v1 reads walk builds that ordering (queries/v1ReadOrderings.ts), as the first sorted
 * list would (at 200,000 projects, 0.2 to 2 s each).
 */
async function loadReadModels(readStore: ReadStore, logger: Logger): Promise<void> {
  const started = performance.now();
  const collections = allProjections.flatMap((projection) => projection.collections);
  const loaded = collections.filter((collection) => !v1CollectionsReadById.includes(collection));
  for (const collection of loaded) await readStore.findOne(collection, { _id: NO_DOCUMENT_ID });
  for (const { collection, sort } of v1ReadOrderings) await readStore.find(collection, { sort, limit: 1 });
  logger.info(
    { collections: loaded.length, orderings: v1ReadOrderings.length, durationMs: Math.round(performance.now() - started) },
    'read models loaded',
  );
}

/**
 * The collections the service's embedded read store mirrors lean (EmbeddedReadStoreOptions.leanCollections),
 * for the tests' stores to be the service's: the /v1 ones, and the editors' project records (0.2 GB of heap
 * at 200,000 projects, whole), whose admin list searches declared fields only.
 */
export const leanReadCollections: readonly string[] = [...v1CollectionsSearchedByIndexedFields, ADMIN_PROJECTS];

export async function openStores(config: Config): Promise<ServiceStores> {
  const eventStore = createEventStore({ eventStoreUrl: config.eventStoreUrl, dataDir: config.dataDir });
  try {
    const readStore = createReadStore({
      mongodbUrl: config.mongodbUrl,
      mongodbDb: config.mongodbDb,
      dataDir: config.dataDir,
      leanCollections: leanReadCollections,
    });
    return { eventStore, readStore };
  } catch (error) {
    await eventStore.close();
    throw error;
  }
}

async function adminTokenFor(config: Config, logger: Logger): Promise<string> {
  const resolved = await resolveAdminToken({ adminToken: config.adminToken, dataDir: config.dataDir });
  if (resolved.source === 'environment') {
    logger.info('admin token from ADMIN_TOKEN');
  } else {
    logger.info({ adminTokenFile: resolved.path, created: resolved.created }, `admin token is in ${resolved.path}`);
    if (resolved.permissionsTooOpen) logger.warn({ adminTokenFile: resolved.path }, 'admin token file is readable by others; chmod 600 it');
  }
  return resolved.token;
}

const LINK_SIGNING_SECRET_FILE_NAME = 'link-signing-secret';

/** LINK_SIGNING_SECRET when set; otherwise (embedded mode) a secret kept in DATA_DIR, generated once. */
async function linkSigningSecretFor(config: Config, logger: Logger): Promise<string> {
  if (config.linkSigningSecret !== undefined) return config.linkSigningSecret;
  const file = await ensureSecretFile(config.dataDir, LINK_SIGNING_SECRET_FILE_NAME, ADMIN_TOKEN_MIN_LENGTH);
  if (file.permissionsTooOpen) logger.warn({ file: file.path }, 'link signing secret file is readable by others; chmod 600 it');
  return file.secret;
}

/** How long the webhook dispatcher waits for this process's projector to reach an event before it retries the batch. */
const READ_MODELS_PATIENCE_MS = 60_000;

/**
 * The webhook deliveries queue (W3's createJobQueue: BullMQ on REDIS_URL, else DATA_DIR/jobs.sqlite shared by
 * the processes of one machine). Tests that hand in their own stores get an in-memory one, so that parallel
 * test services never share a queue. The completed jobs' retention is the window within which a dispatcher
 * re-adding a delivery (a crash before its checkpoint) is ignored.
 */
function openWebhookQueue(config: Config, storesHandedIn: boolean, clock: () => Date, logger: Logger): JobQueue {
  return openJobQueue(WEBHOOK_QUEUE, config, storesHandedIn, clock, logger);
}

/** A named queue as openWebhookQueue opens its own (in memory for tests that hand in their stores). */
function openJobQueue(name: JobQueueName, config: Config, storesHandedIn: boolean, clock: () => Date, logger: Logger): JobQueue {
  const { prefix, ...settings } = config.jobQueue;
  const onError = (error: unknown) => logger.warn({ err: error, component: 'jobQueue' }, 'job queue error; carrying on');
  if (storesHandedIn) return createSqliteJobQueue({ ...settings, onError, file: ':memory:', queue: name, now: clock });
  return createJobQueue(name, { ...settings, onError, prefix, dataDir: config.dataDir, redisUrl: config.redisUrl, now: clock });
}

/**
 * The projector leases (src/projectionEngine/projectorLease.ts): Redis on REDIS_URL (keys under JOB_QUEUE_PREFIX),
 * else DATA_DIR/leases.sqlite, shared by the processes of one machine. Tests that hand in their stores get one in
 * memory, since no other process shares their in-memory stores.
 */
function openProjectorLease(config: Config, storesHandedIn: boolean, logger: Logger): ProjectorLease {
  const ttlMs = config.projectorLeaseTtlMs;
  if (storesHandedIn) return createSqliteProjectorLease({ file: ':memory:', ttlMs });
  if (config.redisUrl) return createRedisProjectorLease(config.redisUrl, { ttlMs, prefix: config.jobQueue.prefix });
  if (config.mode === 'distributed') {
    logger.warn(
      { component: 'projector' },
      'REDIS_URL is unset: projector leases live in DATA_DIR/leases.sqlite and keep out only the projectors of this machine',
    );
  }
  return createSqliteProjectorLease({ file: join(config.dataDir, PROJECTOR_LEASES_FILE_NAME), ttlMs });
}

/** How long the tiles of one brochure's map may take to arrive before its location page shows the coordinates instead. */
const PDF_MAP_TILES_TIMEOUT_MS = 5_000;

/** How long a PDF request waits beyond the render deadline for the job to reach a worker and its record to come back. */
const PDF_HAND_OFF_MS = 5_000;

/**
 * Idempotency-Key of PDF requests: Redis on REDIS_URL, else DATA_DIR/idempotency.sqlite (in memory for tests
 * that hand in their stores). A reservation outlives the longest wait for a render, so it lapses only when
 * its request died.
 */
function openIdempotencyStore(
  config: Config,
  storesHandedIn: boolean,
  pdfWaitTimeoutMs: number,
  now: () => number,
): IdempotencyStore<IdempotentPdfAnswer> {
  const times = { retentionMs: IDEMPOTENCY_RETENTION_MS, inFlightLeaseMs: pdfWaitTimeoutMs + PDF_HAND_OFF_MS, now };
  if (config.redisUrl) return createRedisIdempotencyStore(config.redisUrl, { ...times, prefix: 'pdf-idempotency' });
  return createSqliteIdempotencyStore({ ...times, file: storesHandedIn ? ':memory:' : join(config.dataDir, IDEMPOTENCY_FILE_NAME) });
}

const IDEMPOTENCY_FILE_NAME = 'idempotency.sqlite';

const WEBHOOK_QUEUE = 'webhook-deliveries';

const WEBHOOK_SECRET_KEY_FILE_NAME = 'webhook-secret-key';

/** WEBHOOK_SECRET_KEY when set; otherwise (embedded mode) a key kept in DATA_DIR, generated once. */
async function webhookSecretBoxFor(config: Config, logger: Logger): Promise<WebhookSecretBox> {
  if (config.webhookSecretKey !== undefined) return createWebhookSecretBox(config.webhookSecretKey);
  const file = await ensureSecretFile(config.dataDir, WEBHOOK_SECRET_KEY_FILE_NAME, ADMIN_TOKEN_MIN_LENGTH);
  if (file.permissionsTooOpen) logger.warn({ file: file.path }, 'webhook secret key file is readable by others; chmod 600 it');
  const key = decodeSecretKey(file.secret);
  if (key === null) throw new Error(`${file.path} must hold a 32-byte key (64 hex digits or base64); delete it to generate a new one.`);
  return createWebhookSecretBox(key);
}

async function seedOnFirstStart(
  stores: ServiceStores & { blobStore: BlobStore },
  config: Config,
  clock: () => Date,
  logger: Logger,
): Promise<void> {
  const log = logger.child({ component: 'seed' });
  log.info({ projects: config.seedProjects }, 'empty event store: seeding the demo catalogue (SEED_DEMO=false skips this)');
  // The real read store: no command the seed runs reads it.
  const demoClient = await seedThroughStaging(
    { staging: createSqliteEventStore({ file: ':memory:' }), target: stores.eventStore },
    async (eventStore) => {
      const startedAt = performance.now();
      const seeded = await seedDemoCatalogue({ ...stores, eventStore, clock }, { projects: config.seedProjects, logger: log });
      log.info({ projects: seeded.projects, durationMs: Math.round(performance.now() - startedAt) }, 'demo catalogue seeded');
      return seedDemoClient({ ...stores, eventStore, clock, storedFiles: blobStoredFiles(stores.blobStore) });
    },
    { logger: log },
  );
  // Once the keys are in the event store; a file only the owner can read, which the log names, never a key.
  const keyFile = await writeDemoApiKeyFile(config.dataDir, demoClient);
  log.info({ clientId: demoClient.clientId, keyFile }, `demo client with a test and a live API key; the keys are in ${keyFile}`);
}

/** A wildcard bind (0.0.0.0, ::) is reachable as localhost from this machine. */
function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  if (address.address === '0.0.0.0' || address.address === '::') return `http://localhost:${address.port}`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The HTTP side of a stop, with its summary line. Connections still busy at `timeoutMs` are cut, and the
 * step fails so that the stop is not reported clean.
 */
async function drain(connections: ConnectionDrain, timeoutMs: number, logger: Logger): Promise<void> {
  const summary = await connections.drain(Math.round(timeoutMs));
  logger.info(summary, 'HTTP drain complete');
  if (summary.connectionsCut > 0) {
    throw new Error(`${summary.connectionsCut} connections were still busy at the shutdown deadline and were cut.`);
  }
}
