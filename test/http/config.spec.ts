import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseRoles } from '../../src/service.js';

const LONG_TOKEN = 'a'.repeat(32);
const WEBHOOK_KEY_HEX = '0f'.repeat(32);

function problemsOf(env: Record<string, string>): Record<string, string> {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('when nothing is set, then the embedded defaults apply', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: './data',
      adminToken: undefined,
      eventStoreUrl: undefined,
      mongodbUrl: undefined,
      mongodbDb: 'catalogue',
      redisUrl: undefined,
      logLevel: 'info',
      seedDemo: true,
      seedProjects: 2000,
      projectionBatchSize: 500,
      shutdownTimeoutMs: 10_000,
      publicBaseUrl: undefined,
      linkSigningSecret: undefined,
      signedLinkTtlSeconds: 900,
      signatureWindowSeconds: 300,
      trustedProxies: [],
      evaluationRequestLimit: 5000,
      rateLimits: 'on',
      httpServer: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000 },
      uploadLimits: { image: 25 * 1024 * 1024, document: 50 * 1024 * 1024, video: 500 * 1024 * 1024 },
      mediaPregenerate: false,
      webhookAllowedPrivateCidrs: [],
      webhookSecretKey: undefined,
      webhookSecretOverlapSeconds: 86_400,
      webhookDelivery: { concurrency: 32, endpointConcurrency: 4, timeoutMs: 15_000, maxResponseBytes: 4096 },
      pdf: {
        renderConcurrency: 2,
        renderTimeoutMs: 30_000,
        browserRestartAfterJobs: 200,
        tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
        tileUserAgent: 'property-catalogue-api/1.0 (brochure maps)',
      },
      jobQueue: { prefix: 'catalogue', completedRetentionMs: 24 * 3_600_000, leaseMs: 30_000 },
      projectorLeaseTtlMs: 10_000,
      metrics: { enabled: true },
      readiness: { maxLagEvents: 1000, maxLagSeconds: 60 },
      consistencyWaitMs: 2000,
      mode: 'embedded',
    });
  });

  it('when PROJECTOR_LEASE_TTL_MS is set, then it is parsed; below 1000 ms it is refused, naming the variable', () => {
    expect(loadConfig({ PROJECTOR_LEASE_TTL_MS: '30000' }).projectorLeaseTtlMs).toBe(30_000);
    expect(problemsOf({ PROJECTOR_LEASE_TTL_MS: '999' })).toEqual({ PROJECTOR_LEASE_TTL_MS: 'must be at least 1000' });
  });

  it('when CONSISTENCY_WAIT_MS is set, then it is parsed; 0 is allowed, above 60000 or not a number it is refused, naming the variable', () => {
    expect(loadConfig({ CONSISTENCY_WAIT_MS: '500' }).consistencyWaitMs).toBe(500);
    expect(loadConfig({ CONSISTENCY_WAIT_MS: '0' }).consistencyWaitMs).toBe(0);
    expect(problemsOf({ CONSISTENCY_WAIT_MS: '60001' })).toEqual({ CONSISTENCY_WAIT_MS: 'must be at most 60000' });
    expect(Object.keys(problemsOf({ CONSISTENCY_WAIT_MS: '2s' }))).toEqual(['CONSISTENCY_WAIT_MS']);
  });

  it('when upload limits and MEDIA_PREGENERATE are set, then they are parsed; a bad value names its variable', () => {
    expect(
      loadConfig({
        UPLOAD_MAX_IMAGE_BYTES: '1000',
        UPLOAD_MAX_DOCUMENT_BYTES: '2000',
        UPLOAD_MAX_VIDEO_BYTES: '3000',
        MEDIA_PREGENERATE: 'on',
      }),
    ).toMatchObject({ uploadLimits: { image: 1000, document: 2000, video: 3000 }, mediaPregenerate: true });
    expect(
      Object.keys(problemsOf({ UPLOAD_MAX_IMAGE_BYTES: '0', UPLOAD_MAX_VIDEO_BYTES: '25MB', MEDIA_PREGENERATE: 'yes' })).sort(),
    ).toEqual(['MEDIA_PREGENERATE', 'UPLOAD_MAX_IMAGE_BYTES', 'UPLOAD_MAX_VIDEO_BYTES']);
  });

  it('when values are set, then they are parsed; empty values count as unset; unknown variables are ignored', () => {
    const config = loadConfig({
      PORT: '3000',
      SEED_DEMO: 'No',
      SEED_PROJECTS: '50',
      REDIS_URL: 'redis://127.0.0.1:6379',
      MONGODB_URL: 'mongodb://db.internal:27017',
      ADMIN_TOKEN: LONG_TOKEN,
      LINK_SIGNING_SECRET: LONG_TOKEN,
      WEBHOOK_SECRET_KEY: WEBHOOK_KEY_HEX,
      PUBLIC_BASE_URL: 'https://api.example.com/v1/',
      SIGNED_LINK_TTL_SECONDS: '60',
      SIGNATURE_WINDOW_SECONDS: '120',
      EVENTSTORE_URL: '',
      LOG_LEVEL: 'debug',
      SOMETHING_ELSE: '%%%',
    });
    expect(config).toMatchObject({
      port: 3000,
      seedDemo: false,
      seedProjects: 50,
      redisUrl: 'redis://127.0.0.1:6379',
      mongodbUrl: 'mongodb://db.internal:27017',
      eventStoreUrl: undefined,
      logLevel: 'debug',
      publicBaseUrl: 'https://api.example.com/v1',
      signedLinkTtlSeconds: 60,
      signatureWindowSeconds: 120,
      mode: 'distributed',
    });
  });

  it('when several variables are bad, then the error names each of them and why, without their values', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      SEED_DEMO: 'maybe',
      SEED_PROJECTS: '-5',
      PROJECTION_BATCH_SIZE: '0',
      SHUTDOWN_TIMEOUT_MS: '1.5',
      MONGODB_URL: 'http://db.internal',
      REDIS_URL: 'localhost:6379',
      EVENTSTORE_URL: 'tcp://es',
      PUBLIC_BASE_URL: 'https://api.example.com',
      SIGNED_LINK_TTL_SECONDS: '5',
      SIGNATURE_WINDOW_SECONDS: '300.5',
    });
    expect(Object.keys(problems).sort()).toEqual(
      [
        'ADMIN_TOKEN',
        'EVENTSTORE_URL',
        'LINK_SIGNING_SECRET',
        'LOG_LEVEL',
        'MONGODB_URL',
        'PORT',
        'PROJECTION_BATCH_SIZE',
        'PUBLIC_BASE_URL',
        'REDIS_URL',
        'SEED_DEMO',
        'SEED_PROJECTS',
        'SHUTDOWN_TIMEOUT_MS',
        'SIGNED_LINK_TTL_SECONDS',
        'SIGNATURE_WINDOW_SECONDS',
        'WEBHOOK_SECRET_KEY',
      ].sort(),
    );
    expect(problems.ADMIN_TOKEN).toMatch(/required .* when EVENTSTORE_URL or MONGODB_URL is set/);
    expect(problems.LOG_LEVEL).toBe('must be one of fatal, error, warn, info, debug, trace, silent');
    expect(problems.PROJECTION_BATCH_SIZE).toBe('must be at least 1');
    expect(problems.PUBLIC_BASE_URL).toBe('must end with /v1 (the API base URL)');
    expect(problems.LINK_SIGNING_SECRET).toMatch(/required .* when EVENTSTORE_URL or MONGODB_URL is set/);
    expect(problems.SIGNATURE_WINDOW_SECONDS).toBe('must be a whole number between 10 and 3600');
    expect(problemsOf({ SIGNATURE_WINDOW_SECONDS: '5' }).SIGNATURE_WINDOW_SECONDS).toBe('must be at least 10');
  });

  it('when the message is printed, then it lists one line per variable and never the values', () => {
    try {
      loadConfig({ ADMIN_TOKEN: 'short-secret', PORT: '70000' });
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toBe('Invalid configuration:\n  PORT: must be at most 65535\n  ADMIN_TOKEN: must be at least 32 characters long');
      expect(message).not.toContain('short-secret');
    }
  });

  it('when an external store is configured, then ADMIN_TOKEN and LINK_SIGNING_SECRET are required and must be long enough', () => {
    expect(problemsOf({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' })).toHaveProperty('ADMIN_TOKEN');
    expect(problemsOf({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' })).toHaveProperty('LINK_SIGNING_SECRET');
    expect(problemsOf({ MONGODB_URL: 'mongodb://localhost', ADMIN_TOKEN: 'too-short' }).ADMIN_TOKEN).toMatch(/at least 32/);
    const config = loadConfig({
      MONGODB_URL: 'mongodb://localhost',
      ADMIN_TOKEN: LONG_TOKEN,
      LINK_SIGNING_SECRET: LONG_TOKEN,
      WEBHOOK_SECRET_KEY: WEBHOOK_KEY_HEX,
      PUBLIC_BASE_URL: 'https://api.example.com/v1',
    });
    expect(config.adminToken).toBe(LONG_TOKEN);
    expect(config.linkSigningSecret).toBe(LONG_TOKEN);
  });

  it('when an external store is configured without PUBLIC_BASE_URL, then a ConfigError requires it (links are never built on a request Host)', () => {
    const secrets = { ADMIN_TOKEN: LONG_TOKEN, LINK_SIGNING_SECRET: LONG_TOKEN, WEBHOOK_SECRET_KEY: WEBHOOK_KEY_HEX };
    const stores: Array<Record<string, string>> = [
      { EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' },
      { MONGODB_URL: 'mongodb://localhost' },
    ];
    for (const store of stores) {
      expect(problemsOf({ ...store, ...secrets })).toEqual({
        PUBLIC_BASE_URL: 'is required (the API base URL, ending in /v1) when EVENTSTORE_URL or MONGODB_URL is set',
      });
      expect(loadConfig({ ...store, ...secrets, PUBLIC_BASE_URL: 'https://api.example.com/v1' }).publicBaseUrl).toBe(
        'https://api.example.com/v1',
      );
    }
    expect(loadConfig({}).publicBaseUrl).toBeUndefined();
  });

  it('when the webhook variables are set, then the allow list is normalised, the key decoded from hex or base64 and the overlap parsed', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8, ::1',
      WEBHOOK_SECRET_KEY: key.toString('hex'),
      WEBHOOK_SECRET_OVERLAP_SECONDS: '3600',
    });
    expect(config).toMatchObject({ webhookAllowedPrivateCidrs: ['127.0.0.0/8', '::1/128'], webhookSecretOverlapSeconds: 3600 });
    expect(config.webhookSecretKey).toEqual(key);
    for (const written of [key.toString('base64'), key.toString('base64url'), key.toString('base64').replace(/=$/, '')]) {
      expect(loadConfig({ WEBHOOK_SECRET_KEY: written }).webhookSecretKey).toEqual(key);
    }
  });

  it('when a webhook variable is bad, then a ConfigError names each without its value; an external store requires WEBHOOK_SECRET_KEY', () => {
    const problems = problemsOf({
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '10.0.0.0/8,intranet',
      WEBHOOK_SECRET_KEY: 'not-a-key-but-a-secret-of-sorts',
      WEBHOOK_SECRET_OVERLAP_SECONDS: '-1',
    });
    expect(Object.keys(problems).sort()).toEqual(['WEBHOOK_ALLOWED_PRIVATE_CIDRS', 'WEBHOOK_SECRET_KEY', 'WEBHOOK_SECRET_OVERLAP_SECONDS']);
    expect(problems.WEBHOOK_SECRET_KEY).toBe('must be 32 bytes written as 64 hexadecimal digits or in base64');
    expect(JSON.stringify(problems)).not.toMatch(/intranet|not-a-key/);
    expect(problemsOf({ WEBHOOK_SECRET_KEY: 'ab'.repeat(31) })).toHaveProperty('WEBHOOK_SECRET_KEY');
    expect(problemsOf({ WEBHOOK_SECRET_OVERLAP_SECONDS: String(30 * 86_400 + 1) })).toEqual({
      WEBHOOK_SECRET_OVERLAP_SECONDS: `must be at most ${30 * 86_400}`,
    });
    const external = { MONGODB_URL: 'mongodb://localhost', ADMIN_TOKEN: LONG_TOKEN, LINK_SIGNING_SECRET: LONG_TOKEN };
    expect(problemsOf({ ...external, PUBLIC_BASE_URL: 'https://api.example.com/v1' })).toEqual({
      WEBHOOK_SECRET_KEY: 'is required (32 bytes, as 64 hexadecimal digits or base64) when EVENTSTORE_URL or MONGODB_URL is set',
    });
  });

  it('when the webhook delivery variables are set, then they are parsed; out of range, then each is named', () => {
    const config = loadConfig({
      WEBHOOK_DELIVERY_CONCURRENCY: '64',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_MAX_RESPONSE_BYTES: '0',
    });
    expect(config.webhookDelivery).toEqual({ concurrency: 64, endpointConcurrency: 2, timeoutMs: 5000, maxResponseBytes: 0 });
    const problems = problemsOf({
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      WEBHOOK_ENDPOINT_CONCURRENCY: '101',
      WEBHOOK_TIMEOUT_MS: '60001',
      WEBHOOK_MAX_RESPONSE_BYTES: 'lots',
    });
    expect(Object.keys(problems).sort()).toEqual([
      'WEBHOOK_DELIVERY_CONCURRENCY',
      'WEBHOOK_ENDPOINT_CONCURRENCY',
      'WEBHOOK_MAX_RESPONSE_BYTES',
      'WEBHOOK_TIMEOUT_MS',
    ]);
  });

  it('when the job queue variables are set, then they are parsed into milliseconds; bad values are each named', () => {
    expect(loadConfig({ JOB_QUEUE_PREFIX: 'staging-2', JOB_COMPLETED_RETENTION_HOURS: '168', JOB_LEASE_SECONDS: '60' }).jobQueue).toEqual({
      prefix: 'staging-2',
      completedRetentionMs: 168 * 3_600_000,
      leaseMs: 60_000,
    });
    const problems = problemsOf({ JOB_QUEUE_PREFIX: 'a:b', JOB_COMPLETED_RETENTION_HOURS: '0', JOB_LEASE_SECONDS: '4' });
    expect(problems).toEqual({
      JOB_QUEUE_PREFIX: 'must be 1 to 64 letters, digits, _, . or -',
      JOB_COMPLETED_RETENTION_HOURS: 'must be at least 1',
      JOB_LEASE_SECONDS: 'must be at least 5',
    });
  });

  it('when TRUSTED_PROXIES lists addresses and CIDR blocks, then they are normalised; a bad entry is named without its value', () => {
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.0.2.7 ,FD00::/8' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.0.2.7/32',
      'fd00::/8',
    ]);
    const problem = problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' }).TRUSTED_PROXIES;
    expect(problem).toMatch(/^must be comma-separated IPv4 or IPv6 addresses or CIDR blocks/);
    expect(problem).not.toContain('proxy.internal');
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/33' })).toHaveProperty('TRUSTED_PROXIES');
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8,' })).toHaveProperty('TRUSTED_PROXIES');
  });

  it('when the metrics and readiness variables are set, then they are parsed; bad values, or METRICS_PORT equal to PORT, are each named', () => {
    const config = loadConfig({ METRICS: 'off', METRICS_PORT: '9464', READY_MAX_LAG_EVENTS: '50', READY_MAX_LAG_SECONDS: '15' });
    expect(config.metrics).toEqual({ enabled: false, port: 9464 });
    expect(config.readiness).toEqual({ maxLagEvents: 50, maxLagSeconds: 15 });
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics).toEqual({ enabled: true, port: 0 });
    expect(problemsOf({ METRICS_PORT: '8080' })).toEqual({ METRICS_PORT: 'must differ from PORT' });
    expect(
      Object.keys(problemsOf({ METRICS: 'yes', METRICS_PORT: '70000', READY_MAX_LAG_EVENTS: '0', READY_MAX_LAG_SECONDS: 'a minute' })),
    ).toEqual(['METRICS', 'METRICS_PORT', 'READY_MAX_LAG_EVENTS', 'READY_MAX_LAG_SECONDS']);
  });

  it('when RATE_LIMITS is off, then limits are off; when it is anything but on or off, then a ConfigError names RATE_LIMITS', () => {
    expect(loadConfig({ RATE_LIMITS: 'off' }).rateLimits).toBe('off');
    expect(loadConfig({ RATE_LIMITS: 'on' }).rateLimits).toBe('on');
    expect(loadConfig({ RATE_LIMITS: '' }).rateLimits).toBe('on');
    expect(problemsOf({ RATE_LIMITS: 'false' })).toEqual({ RATE_LIMITS: 'must be one of on, off' });
    expect(problemsOf({ RATE_LIMITS: 'OFF' })).toEqual({ RATE_LIMITS: 'must be one of on, off' });
  });

  it('when the HTTP server limits are set, then they are parsed; out of range or a head timeout over the request timeout, then a ConfigError names each', () => {
    expect(
      loadConfig({
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_REQUEST_TIMEOUT_MS: '2000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
        HTTP_MAX_CONNECTIONS: '500',
      }).httpServer,
    ).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 65_000, maxConnections: 500 });
    expect(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toEqual({
      HTTP_HEADERS_TIMEOUT_MS: 'must not be greater than HTTP_REQUEST_TIMEOUT_MS',
    });
    expect(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4999' })).toEqual({
      HTTP_HEADERS_TIMEOUT_MS: 'must not be greater than HTTP_REQUEST_TIMEOUT_MS',
    });
    expect(
      problemsOf({
        HTTP_HEADERS_TIMEOUT_MS: '0',
        HTTP_REQUEST_TIMEOUT_MS: '1h',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '99',
        HTTP_MAX_CONNECTIONS: '0',
        PORT: 'x',
      }),
    ).toEqual({
      HTTP_HEADERS_TIMEOUT_MS: 'must be at least 100',
      HTTP_REQUEST_TIMEOUT_MS: 'must be a whole number between 100 and 3600000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 'must be at least 100',
      HTTP_MAX_CONNECTIONS: 'must be at least 1',
      PORT: 'must be a whole number between 0 and 65535',
    });
  });
});

describe('parseRoles', () => {
  it('when no role is given, then all three run', () => {
    expect([...parseRoles([])]).toEqual(['api', 'projector', 'worker']);
  });

  it('when roles are repeated or comma-separated, then they add up', () => {
    expect([...parseRoles(['--role', 'api,projector'])].sort()).toEqual(['api', 'projector']);
    expect([...parseRoles(['--role', 'api', '--role=worker'])].sort()).toEqual(['api', 'worker']);
  });

  it('when a role or option is unknown, then a ConfigError names it', () => {
    expect(() => parseRoles(['--role', 'api,scheduler'])).toThrow(/"scheduler" is not one of api, projector, worker/);
    expect(() => parseRoles(['--verbose'])).toThrow(ConfigError);
    expect(() => parseRoles(['--role'])).toThrow(/"" is not one of/);
  });
});
