import { z } from 'zod';
import { cidrSchema } from './vocabulary/cidr.js';

/**
 * Service configuration from the environment. Only the variables below are read; anything else in the
 * environment belongs to someone else and is ignored. An empty value counts as unset, so `REDIS_URL=` in a
 * compose file means "no Redis".
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Absent only in embedded mode, where the service generates one under dataDir. */
  adminToken?: string;
  eventStoreUrl?: string;
  mongodbUrl?: string;
  mongodbDb: string;
  redisUrl?: string;
  logLevel: LogLevel;
  seedDemo: boolean;
  seedProjects: number;
  projectionBatchSize: number;
  shutdownTimeoutMs: number;
  /** Absolute `{base_url}` (ending in /v1) printed in image addresses and links; unset (embedded mode only) = from each request's Host when it names this machine. */
  publicBaseUrl?: string;
  /** Absent only in embedded mode, where the service generates one under dataDir. */
  linkSigningSecret?: string;
  signedLinkTtlSeconds: number;
  /** How far X-API-Timestamp of a signed request may be from the server time, either side. */
  signatureWindowSeconds: number;
  /** CIDR blocks of reverse proxies whose X-Forwarded-For is believed; empty = the socket peer is the client. */
  trustedProxies: string[];
  /** Evaluation Mode's safety threshold: requests of one evaluation, past which it is paused. */
  evaluationRequestLimit: number;
  /** `off`: no rate limits or quotas are checked and no limit headers are sent (benchmarks, deployments behind another limiter). */
  rateLimits: RateLimitsMode;
  /** Time limits on receiving requests and the bound on open connections (src/http/httpServer.ts). */
  httpServer: HttpServerOptions;
  /** Largest file the admin API takes per upload kind, in bytes (UPLOAD_MAX_*_BYTES). */
  uploadLimits: { image: number; document: number; video: number };
  /** MEDIA_PREGENERATE=on: an uploaded picture's widths are derived before its command is sent. */
  mediaPregenerate: boolean;
  /** CIDR blocks a webhook may target although they are private (then also over http://); empty = public https only. */
  webhookAllowedPrivateCidrs: string[];
  /** The 32-byte key webhook secrets are sealed with; absent only in embedded mode, where the service generates one under dataDir. */
  webhookSecretKey?: Buffer;
  /** How long a rotated webhook secret keeps signing deliveries next to its successor. */
  webhookSecretOverlapSeconds: number;
  /** The worker role's webhook deliveries: in flight per process, per webhook, each attempt's timeout and response cap. */
  webhookDelivery: WebhookDeliveryConfig;
  /** Brochure PDFs: the browser (CHROMIUM_PATH, else @sparticuz/chromium), renders at once per worker, deadline, restarts, map tiles. */
  pdf: PdfConfig;
  /** Background job queues (src/jobQueue/): the Redis key prefix (BullMQ), completed jobs' retention, the lease of a running job. */
  jobQueue: { prefix: string; completedRetentionMs: number; leaseMs: number };
  /** Time to live of a projector's lease on a projection (renewed every third of it); bounds a standby's takeover. */
  projectorLeaseTtlMs: number;
  /** Prometheus metrics (METRICS) and the port that serves them without the admin token (METRICS_PORT). */
  metrics: MetricsConfig;
  /** How far the read models may trail the event log before `GET /readyz` answers 503 (READY_MAX_LAG_*). */
  readiness: { maxLagEvents: number; maxLagSeconds: number };
  /** How long a GET with `X-Consistent-After` waits for the read models to reach that position before 503 PROJECTION_BEHIND. */
  consistencyWaitMs: number;
  /** `distributed` as soon as an external event store or read store is configured. */
  mode: 'embedded' | 'distributed';
}

/** The METRICS* variables. */
export interface MetricsConfig {
  /** METRICS=on: the service measures itself and serves `GET /metrics`; off: nothing is measured (benchmarks). */
  enabled: boolean;
  /** A second port, bound to HOST, serving /metrics, /livez and /readyz without the admin token (a private network's scraper). */
  port?: number;
}

/** The PDF_* variables. */
export interface PdfConfig {
  chromiumPath?: string;
  renderConcurrency: number;
  renderTimeoutMs: number;
  browserRestartAfterJobs: number;
  tileUrl: string;
  tileUserAgent: string;
}

/** How the HTTP server (src/http/httpServer.ts) bounds what clients may hold (the HTTP_* variables). */
export interface HttpServerOptions {
  /** From a request's first byte to the end of its head (also a new connection that sends nothing). */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body; at least headersTimeoutMs (Node refuses less). */
  requestTimeoutMs: number;
  /** How long a keep-alive connection may stay idle after its last response. */
  keepAliveTimeoutMs: number;
  /** Open connections per process; Node closes a connection accepted beyond it at once, without a word. */
  maxConnections: number;
}

/** How the worker role delivers webhooks (the WEBHOOK_* delivery variables). */
export interface WebhookDeliveryConfig {
  concurrency: number;
  endpointConcurrency: number;
  timeoutMs: number;
  maxResponseBytes: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const RATE_LIMITS_MODES = ['on', 'off'] as const;
export type RateLimitsMode = (typeof RATE_LIMITS_MODES)[number];

const ON_OFF = ['on', 'off'] as const;
const MEBIBYTE = 1024 * 1024;

export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** A bad environment: the message names every offending variable and why (never its value). */
export class ConfigError extends Error {
  constructor(readonly problems: Record<string, string>) {
    super(
      `Invalid configuration:\n${Object.entries(problems)
        .map(([variable, problem]) => `  ${variable}: ${problem}`)
        .join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unsetWhenEmpty, schema.optional());
/** The fallback is written as the environment would spell it and parsed like a set value. */
const withDefault = <Output>(schema: z.ZodType<Output, string>, fallback: string) =>
  z.preprocess(unsetWhenEmpty, schema.prefault(fallback));

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number between ${min} and ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const booleanFlag = z
  .string()
  .toLowerCase()
  .refine((value) => ['true', 'false', '1', '0', 'yes', 'no'].includes(value), 'must be one of true, false, 1, 0, yes, no')
  .transform((value) => ['true', '1', 'yes'].includes(value));

const urlWithScheme = (schemes: string[]) =>
  z
    .string()
    .refine(
      (value) => schemes.some((scheme) => value.startsWith(`${scheme}://`)) && URL.canParse(value),
      `must be a URL starting with ${schemes.map((scheme) => `${scheme}://`).join(' or ')}`,
    );

/**
 * A 32-byte key written as 64 hex digits or in base64 (standard or URL-safe, padded or not); null when the
 * text is neither. Also reads the key file embedded mode generates (43 base64url characters).
 */
export function decodeSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replaceAll('+', '-').replaceAll('/', '_').replace(/=$/, ''), 'base64url');
  return key.length === 32 ? key : null;
}

const secretKey = z.string().transform((value, context) => {
  const key = decodeSecretKey(value);
  if (key === null) {
    context.addIssue({ code: 'custom', message: 'must be 32 bytes written as 64 hexadecimal digits or in base64' });
    return z.NEVER;
  }
  return key;
});

/** Comma-separated CIDR blocks; a bad entry is reported without its value, like every other variable. */
const cidrList = z.string().transform((value, context) => {
  if (value.trim() === '') return [];
  const entries = value.split(',').map((entry) => cidrSchema.safeParse(entry));
  if (entries.some((entry) => !entry.success)) {
    context.addIssue({
      code: 'custom',
      message: 'must be comma-separated IPv4 or IPv6 addresses or CIDR blocks, e.g. 10.0.0.0/8,fd00::/8',
    });
    return z.NEVER;
  }
  return entries.map((entry) => entry.data!);
});

const environmentSchema = z.object({
  PORT: withDefault(integer(0, 65_535), '8080'),
  HOST: withDefault(z.string(), '0.0.0.0'),
  DATA_DIR: withDefault(z.string(), './data'),
  ADMIN_TOKEN: optional(z.string().min(ADMIN_TOKEN_MIN_LENGTH, `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters long`)),
  EVENTSTORE_URL: optional(urlWithScheme(['esdb', 'esdb+discover'])),
  MONGODB_URL: optional(urlWithScheme(['mongodb', 'mongodb+srv'])),
  MONGODB_DB: withDefault(z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be a MongoDB database name'), 'catalogue'),
  REDIS_URL: optional(urlWithScheme(['redis', 'rediss'])),
  LOG_LEVEL: withDefault(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }), 'info'),
  SEED_DEMO: withDefault(booleanFlag, 'true'),
  SEED_PROJECTS: withDefault(integer(0, 1_000_000), '2000'),
  PROJECTION_BATCH_SIZE: withDefault(integer(1, 100_000), '500'),
  SHUTDOWN_TIMEOUT_MS: withDefault(integer(0, 600_000), '10000'),
  PUBLIC_BASE_URL: optional(
    urlWithScheme(['http', 'https']).refine((value) => /\/v1\/?$/.test(value), 'must end with /v1 (the API base URL)'),
  ),
  LINK_SIGNING_SECRET: optional(z.string().min(ADMIN_TOKEN_MIN_LENGTH, `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters long`)),
  SIGNED_LINK_TTL_SECONDS: withDefault(integer(30, 86_400), '900'),
  SIGNATURE_WINDOW_SECONDS: withDefault(integer(10, 3_600), '300'),
  TRUSTED_PROXIES: withDefault(cidrList, ''),
  EVALUATION_REQUEST_LIMIT: withDefault(integer(1, 10_000_000), '5000'),
  RATE_LIMITS: withDefault(z.enum(RATE_LIMITS_MODES, { error: `must be one of ${RATE_LIMITS_MODES.join(', ')}` }), 'on'),
  HTTP_HEADERS_TIMEOUT_MS: withDefault(integer(100, 600_000), '10000'),
  HTTP_REQUEST_TIMEOUT_MS: withDefault(integer(100, 3_600_000), '30000'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: withDefault(integer(100, 600_000), '5000'),
  HTTP_MAX_CONNECTIONS: withDefault(integer(1, 1_000_000), '10000'),
  UPLOAD_MAX_IMAGE_BYTES: withDefault(integer(1, 1024 * MEBIBYTE), String(25 * MEBIBYTE)),
  UPLOAD_MAX_DOCUMENT_BYTES: withDefault(integer(1, 1024 * MEBIBYTE), String(50 * MEBIBYTE)),
  UPLOAD_MAX_VIDEO_BYTES: withDefault(integer(1, 64 * 1024 * MEBIBYTE), String(500 * MEBIBYTE)),
  MEDIA_PREGENERATE: withDefault(z.enum(ON_OFF, { error: `must be one of ${ON_OFF.join(', ')}` }), 'off'),
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: withDefault(cidrList, ''),
  WEBHOOK_SECRET_KEY: optional(secretKey),
  WEBHOOK_SECRET_OVERLAP_SECONDS: withDefault(integer(0, 30 * 86_400), '86400'),
  WEBHOOK_DELIVERY_CONCURRENCY: withDefault(integer(1, 1_000), '32'),
  WEBHOOK_ENDPOINT_CONCURRENCY: withDefault(integer(1, 100), '4'),
  WEBHOOK_TIMEOUT_MS: withDefault(integer(100, 60_000), '15000'),
  WEBHOOK_MAX_RESPONSE_BYTES: withDefault(integer(0, MEBIBYTE), '4096'),
  CHROMIUM_PATH: optional(z.string().min(1)),
  PDF_RENDER_CONCURRENCY: withDefault(integer(1, 32), '2'),
  PDF_RENDER_TIMEOUT_MS: withDefault(integer(1_000, 600_000), '30000'),
  PDF_BROWSER_RESTART_AFTER: withDefault(integer(1, 1_000_000), '200'),
  PDF_TILE_URL: withDefault(
    z
      .string()
      .refine(
        (value) => /^https?:\/\//.test(value) && ['{z}', '{x}', '{y}'].every((part) => value.includes(part)),
        'must be an http(s) URL template with {z}, {x} and {y}',
      ),
    'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  ),
  PDF_TILE_USER_AGENT: withDefault(z.string().min(1).max(256), 'property-catalogue-api/1.0 (brochure maps)'),
  JOB_QUEUE_PREFIX: withDefault(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'), 'catalogue'),
  JOB_COMPLETED_RETENTION_HOURS: withDefault(integer(1, 8_760), '24'),
  JOB_LEASE_SECONDS: withDefault(integer(5, 3_600), '30'),
  PROJECTOR_LEASE_TTL_MS: withDefault(integer(1_000, 600_000), '10000'),
  METRICS: withDefault(z.enum(ON_OFF, { error: `must be one of ${ON_OFF.join(', ')}` }), 'on'),
  METRICS_PORT: optional(integer(0, 65_535)),
  READY_MAX_LAG_EVENTS: withDefault(integer(1, 1_000_000), '1000'),
  READY_MAX_LAG_SECONDS: withDefault(integer(1, 86_400), '60'),
  CONSISTENCY_WAIT_MS: withDefault(integer(0, 60_000), '2000'),
});

const KNOWN_VARIABLES = Object.keys(environmentSchema.shape);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(KNOWN_VARIABLES.map((name) => [name, unsetWhenEmpty(env[name])]));
  const parsed = environmentSchema.safeParse(known);
  const problems: Record<string, string> = {};
  const addProblem = (variable: string, problem: string) => {
    problems[variable] = problems[variable] ? `${problems[variable]}; ${problem}` : problem;
  };
  for (const issue of parsed.error?.issues ?? []) addProblem(String(issue.path[0] ?? 'environment'), issue.message);
  // Checked on the raw values so it is reported together with every other problem.
  const externalStoreSet = known.EVENTSTORE_URL !== undefined || known.MONGODB_URL !== undefined;
  if (externalStoreSet && known.ADMIN_TOKEN === undefined) {
    addProblem('ADMIN_TOKEN', `is required (at least ${ADMIN_TOKEN_MIN_LENGTH} characters) when EVENTSTORE_URL or MONGODB_URL is set`);
  }
  // Replicas must sign and verify links alike, so a per-machine generated secret will not do.
  if (externalStoreSet && known.LINK_SIGNING_SECRET === undefined) {
    addProblem(
      'LINK_SIGNING_SECRET',
      `is required (at least ${ADMIN_TOKEN_MIN_LENGTH} characters) when EVENTSTORE_URL or MONGODB_URL is set`,
    );
  }
  // Every replica must open the secrets the others sealed.
  if (externalStoreSet && known.WEBHOOK_SECRET_KEY === undefined) {
    addProblem(
      'WEBHOOK_SECRET_KEY',
      'is required (32 bytes, as 64 hexadecimal digits or base64) when EVENTSTORE_URL or MONGODB_URL is set',
    );
  }
  // Node refuses to create a server whose head may take longer than the whole request.
  const headersTimeout = environmentSchema.shape.HTTP_HEADERS_TIMEOUT_MS.safeParse(known.HTTP_HEADERS_TIMEOUT_MS);
  const requestTimeout = environmentSchema.shape.HTTP_REQUEST_TIMEOUT_MS.safeParse(known.HTTP_REQUEST_TIMEOUT_MS);
  if (headersTimeout.success && requestTimeout.success && headersTimeout.data > requestTimeout.data) {
    addProblem('HTTP_HEADERS_TIMEOUT_MS', 'must not be greater than HTTP_REQUEST_TIMEOUT_MS');
  }
  // Links built from each request's Host would let a forged Host into responses that caches share.
  if (externalStoreSet && known.PUBLIC_BASE_URL === undefined) {
    addProblem('PUBLIC_BASE_URL', 'is required (the API base URL, ending in /v1) when EVENTSTORE_URL or MONGODB_URL is set');
  }
  // One port cannot serve both the API and the unauthenticated metrics; 0 (any free port, for tests) never collides.
  const port = environmentSchema.shape.PORT.safeParse(known.PORT);
  const metricsPort = environmentSchema.shape.METRICS_PORT.safeParse(known.METRICS_PORT);
  if (port.success && metricsPort.success && metricsPort.data !== undefined && metricsPort.data !== 0 && metricsPort.data === port.data) {
    addProblem('METRICS_PORT', 'must differ from PORT');
  }
  if (!parsed.success || Object.keys(problems).length > 0) throw new ConfigError(problems);
  const vars = parsed.data;
  return {
    port: vars.PORT,
    host: vars.HOST,
    dataDir: vars.DATA_DIR,
    adminToken: vars.ADMIN_TOKEN,
    eventStoreUrl: vars.EVENTSTORE_URL,
    mongodbUrl: vars.MONGODB_URL,
    mongodbDb: vars.MONGODB_DB,
    redisUrl: vars.REDIS_URL,
    logLevel: vars.LOG_LEVEL,
    seedDemo: vars.SEED_DEMO,
    seedProjects: vars.SEED_PROJECTS,
    projectionBatchSize: vars.PROJECTION_BATCH_SIZE,
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
    publicBaseUrl: vars.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    linkSigningSecret: vars.LINK_SIGNING_SECRET,
    signedLinkTtlSeconds: vars.SIGNED_LINK_TTL_SECONDS,
    signatureWindowSeconds: vars.SIGNATURE_WINDOW_SECONDS,
    trustedProxies: vars.TRUSTED_PROXIES,
    evaluationRequestLimit: vars.EVALUATION_REQUEST_LIMIT,
    rateLimits: vars.RATE_LIMITS,
    httpServer: {
      headersTimeoutMs: vars.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: vars.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: vars.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: vars.HTTP_MAX_CONNECTIONS,
    },
    uploadLimits: { image: vars.UPLOAD_MAX_IMAGE_BYTES, document: vars.UPLOAD_MAX_DOCUMENT_BYTES, video: vars.UPLOAD_MAX_VIDEO_BYTES },
    mediaPregenerate: vars.MEDIA_PREGENERATE === 'on',
    webhookAllowedPrivateCidrs: vars.WEBHOOK_ALLOWED_PRIVATE_CIDRS,
    webhookSecretKey: vars.WEBHOOK_SECRET_KEY,
    webhookSecretOverlapSeconds: vars.WEBHOOK_SECRET_OVERLAP_SECONDS,
    webhookDelivery: {
      concurrency: vars.WEBHOOK_DELIVERY_CONCURRENCY,
      endpointConcurrency: vars.WEBHOOK_ENDPOINT_CONCURRENCY,
      timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: vars.WEBHOOK_MAX_RESPONSE_BYTES,
    },
    pdf: {
      ...(vars.CHROMIUM_PATH === undefined ? {} : { chromiumPath: vars.CHROMIUM_PATH }),
      renderConcurrency: vars.PDF_RENDER_CONCURRENCY,
      renderTimeoutMs: vars.PDF_RENDER_TIMEOUT_MS,
      browserRestartAfterJobs: vars.PDF_BROWSER_RESTART_AFTER,
      tileUrl: vars.PDF_TILE_URL,
      tileUserAgent: vars.PDF_TILE_USER_AGENT,
    },
    jobQueue: {
      prefix: vars.JOB_QUEUE_PREFIX,
      completedRetentionMs: vars.JOB_COMPLETED_RETENTION_HOURS * 3_600_000,
      leaseMs: vars.JOB_LEASE_SECONDS * 1000,
    },
    projectorLeaseTtlMs: vars.PROJECTOR_LEASE_TTL_MS,
    metrics: { enabled: vars.METRICS === 'on', ...(vars.METRICS_PORT === undefined ? {} : { port: vars.METRICS_PORT }) },
    readiness: { maxLagEvents: vars.READY_MAX_LAG_EVENTS, maxLagSeconds: vars.READY_MAX_LAG_SECONDS },
    consistencyWaitMs: vars.CONSISTENCY_WAIT_MS,
    mode: vars.EVENTSTORE_URL !== undefined || vars.MONGODB_URL !== undefined ? 'distributed' : 'embedded',
  };
}
