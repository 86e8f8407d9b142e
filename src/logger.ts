import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/**
 * Field paths whose values never reach a log line: credentials in headers, tokens, API keys, secrets,
 * signatures and connection strings (which may carry a password).
 */
const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'headers["x-api-signature"]',
  'req.headers["x-api-signature"]',
  'headers.cookie',
  'req.headers.cookie',
  ...['token', 'adminToken', 'admin_token', 'apiKey', 'api_key', 'secret', 'password', 'signature', 'connectionString'].flatMap(
    (field) => [field, `*.${field}`],
  ),
  ...['eventStoreUrl', 'mongodbUrl', 'redisUrl'].flatMap((field) => [field, `*.${field}`]),
];

/** Removes credentials that error messages and stacks can carry (URL user-info, bearer tokens). */
export function scrubSecrets(text: string): string {
  return text
    .replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, '//[Redacted]@')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [Redacted]');
}

function errorSerializer(error: Error) {
  const serialized = stdSerializers.err(error);
  serialized.message = scrubSecrets(serialized.message);
  if (serialized.stack) serialized.stack = scrubSecrets(serialized.stack);
  return serialized;
}

/**
 * JSON lines on stdout for machines; human-readable lines when a person watches the terminal. Pretty
 * printing runs in-process (no transport worker) so nothing is lost when the process exits.
 */
export function createLogger(options: { level: LogLevel; pretty?: boolean; destination?: DestinationStream }): Logger {
  const loggerOptions = {
    level: options.level,
    base: { service: 'catalogue' },
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: { err: errorSerializer, error: errorSerializer },
  };
  if (options.destination) return pino(loggerOptions, options.destination);
  if (options.pretty ?? process.stdout.isTTY === true) {
    return pino(loggerOptions, pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
  }
  return pino(loggerOptions);
}
