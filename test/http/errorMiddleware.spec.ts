import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '@eventstore/db-client';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { MongoServerSelectionError, type TopologyDescription } from 'mongodb';
import { Conflict } from '../../src/domain/errors.js';
import { errorMiddleware } from '../../src/http/errorMiddleware.js';
import { requestContext } from '../../src/http/requestContext.js';
import { createLogger } from '../../src/logger.js';
import { request } from '../support/http.js';

/** Log lines the logger wrote, parsed. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

describe('the error middleware', () => {
  const { logger, lines } = capturedLogger();
  let server: ReturnType<express.Express['listen']>;
  let baseUrl: string;

  beforeAll(async () => {
    const app = express();
    app.use(requestContext(logger));
    app.get('/conflict', () => {
      throw new Conflict('Changed meanwhile.', { current_revision: 3 });
    });
    app.get('/bug', async () => {
      throw new Error('connect failed: mongodb://catalogue:s3cret-pass@db.internal/catalogue (Authorization: Bearer abc.def-123)');
    });
    app.get('/mongodb-down', async () => {
      throw new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as TopologyDescription);
    });
    app.get('/eventstoredb-down', async () => {
      throw new UnavailableError({ code: 14, details: 'connect ECONNREFUSED 10.0.0.7:2113', message: '14 UNAVAILABLE' } as never);
    });
    app.get('/sqlite-locked', async () => {
      throw new Database.SqliteError('database is locked', 'SQLITE_BUSY');
    });
    // A real ioredis client on a port nothing listens on: the error is the one the driver raises.
    app.get('/redis-down', async () => {
      const redis = new Redis('redis://127.0.0.1:9', { maxRetriesPerRequest: 1, connectTimeout: 200, retryStrategy: () => 50 });
      redis.on('error', () => {});
      try {
        await redis.get('anything');
      } finally {
        redis.disconnect();
      }
    });
    app.use(errorMiddleware(logger));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when a handler throws an ApiError, then its status, code, message and details make the error body', async () => {
    const answer = await request(baseUrl, '/conflict');
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      error: { code: 'CONFLICT', message: 'Changed meanwhile.', details: { current_revision: 3 } },
      meta: { request_id: answer.headers.get('x-request-id'), generated_at: expect.any(String) },
    });
  });

  it('when a handler fails unexpectedly, then 500 INTERNAL_ERROR reveals nothing and the log keeps the error without its secrets', async () => {
    const answer = await request(baseUrl, '/bug');
    expect(answer.status).toBe(500);
    expect(answer.body.error).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred.', details: {} });

    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'unhandled error');
    expect(logged).toMatchObject({ requestId: answer.headers.get('x-request-id'), method: 'GET', path: '/bug' });
    expect(logged.err.message).toContain('db.internal');
    const everything = lines.join('\n');
    expect(everything).not.toContain('s3cret-pass');
    expect(everything).not.toContain('abc.def-123');
  });

  it.each([
    ['/mongodb-down', 'mongodb'],
    ['/eventstoredb-down', 'eventstoredb'],
    ['/sqlite-locked', 'sqlite'],
    ['/redis-down', 'redis'],
  ])('when %s, then 503 SERVICE_UNAVAILABLE names the dependency and asks to retry after 5 s', async (path, dependency) => {
    const answer = await request(baseUrl, path);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.body.error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'A service this request needs is not answering; try again in a moment.',
      details: { dependency, retry_after_seconds: 5 },
    });
    expect(JSON.stringify(answer.body)).not.toContain('10.0.0.7');
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.path === path);
    expect(logged).toMatchObject({ level: 40, dependency, msg: 'a dependency did not answer; answered 503' });
  });

  it('when fields named like credentials are logged, then their values are redacted', () => {
    logger.info({ headers: { authorization: 'Bearer top-secret-1' }, token: 'top-secret-2', webhook: { secret: 'top-secret-3' } }, 'probe');
    const probe = lines.find((line) => line.includes('"probe"'))!;
    expect(probe).not.toMatch(/top-secret/);
    expect(JSON.parse(probe).headers.authorization).toBe('[Redacted]');
  });
});
