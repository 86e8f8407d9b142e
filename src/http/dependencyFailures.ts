import { ErrorType, isCommandError } from '@eventstore/db-client';
import Database from 'better-sqlite3';
import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { ApiErrorWithHeaders } from './httpErrors.js';

/** How long a client is asked to wait before trying again: about one reconnection attempt of the drivers. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

export type Dependency = 'eventstoredb' | 'mongodb' | 'redis' | 'sqlite';

/**
 * A server the request needs did not answer (or an embedded store stayed locked by another process): the
 * request was fine and may succeed shortly, so it is a 503 with Retry-After, not a 500. The details name the
 * kind of dependency, never its address.
 */
export class DependencyUnavailable extends ApiErrorWithHeaders {
  constructor(readonly dependency: Dependency) {
    super(
      503,
      'SERVICE_UNAVAILABLE',
      'A service this request needs is not answering; try again in a moment.',
      { dependency, retry_after_seconds: DEPENDENCY_RETRY_AFTER_SECONDS },
      { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
    );
  }
}

const EVENT_STORE_UNREACHABLE: ReadonlySet<string> = new Set([
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.NOT_LEADER,
]);

/** ioredis rejects commands with these when its connection is down, its retries spent or a command timed out. */
const REDIS_UNREACHABLE_MESSAGES = [/^Connection is closed\.?$/, /^Reached the max retries per request limit/, /^Command timed out$/];

/** SQLite's answers when another process holds the embedded store's lock past the busy timeout. */
const SQLITE_LOCKED: ReadonlySet<string> = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);

/**
 * The dependency an error says is unreachable, from the driver's own error classes (and, for ioredis, which
 * throws plain errors, its messages); null for anything else, which stays a bug answered 500.
 */
export function unreachableDependencyOf(error: unknown): Dependency | null {
  if (error instanceof DependencyUnavailable) return error.dependency;
  if (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError
  ) {
    return 'mongodb';
  }
  if (error instanceof Error && isCommandError(error) && EVENT_STORE_UNREACHABLE.has(error.type)) return 'eventstoredb';
  if (error instanceof Database.SqliteError && SQLITE_LOCKED.has(error.code)) return 'sqlite';
  if (error instanceof Error && error.name !== 'ReplyError' && REDIS_UNREACHABLE_MESSAGES.some((message) => message.test(error.message))) {
    return 'redis';
  }
  return null;
}
