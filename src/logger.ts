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
  ...['proxy-authorization', 'x-api-key'].flatMap((header) => [`headers["${header}"]`, `req.headers["${header}"]`]),
  ...['token', 'adminToken', 'admin_token', 'apiKey', 'api_key', 'secret', 'password', 'signature', 'connectionString'].flatMap((field) => [
    field,
    `*.${field}`,
  ]),
  ...['eventStoreUrl', 'mongodbUrl', 'redisUrl'].flatMap((field) => [field, `*.${field}`]),
];

const REDACTED = '[Redacted]';

/** This service's API keys (src/access/apiKeys.ts), whole or in part: the prefix stays, to say what leaked. */
const API_KEY_MARK = 'svc_';
const API_KEY_BODY = /(svc_(?:live|test)_)[A-Za-z0-9_-]*/g;
/** Webhook signing secrets (src/webhooks/webhookSecrets.ts), likewise. */
const WEBHOOK_SECRET_MARK = 'whsec_';
const WEBHOOK_SECRET_BODY = /(whsec_)[A-Za-z0-9_-]*/g;
/** Only these make the slower patterns below worth trying. */
const CREDENTIAL_SYNTAX = /[@=\s]/;
const URL_USER_INFO = /\/\/[^/\s:@]+:[^/\s@]+@/g;
const AUTHORIZATION_CREDENTIALS = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const CREDENTIAL_PARAMETER =
  /(^|[?&;\s])((?:api[_-]?key|key|access[_-]?token|token|signature|sig|secret|client[_-]?secret|password|passwd)=)[^&#\s]*/gi;

/** Shorter runs are ids, slugs and words; the secrets this service makes are 43 (base64url) or 64 (hex) long. */
const MIN_RANDOM_RUN = 32;
/** Hex needs more: 32-hex trace ids are common request ids; signatures and hashes are 64. */
const MIN_HEX_RUN = 40;

/**
 * Replaces each run of base64url characters that looks random: at least 32 long with upper- and lower-case
 * letters (generated tokens and secrets; lower-case slugs and UUIDs are not), or at least 40 hex digits
 * (link signatures, hashes). One pass over the characters; a new string only when something is replaced.
 */
function redactRandomRuns(text: string): string {
  if (text.length < MIN_RANDOM_RUN) return text;
  let redacted: string | null = null;
  let copiedUpTo = 0;
  let runStart = 0;
  let upper = false;
  let lower = false;
  let hexOnly = true;
  for (let index = 0; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : 0;
    const isUpper = code >= 65 && code <= 90;
    const isLower = code >= 97 && code <= 122;
    const isDigit = code >= 48 && code <= 57;
    if (isUpper || isLower || isDigit || code === 45 /* - */ || code === 95 /* _ */) {
      upper ||= isUpper;
      lower ||= isLower;
      hexOnly &&= isDigit || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
      continue;
    }
    const length = index - runStart;
    if ((length >= MIN_RANDOM_RUN && upper && lower) || (length >= MIN_HEX_RUN && hexOnly)) {
      redacted = (redacted ?? '') + text.slice(copiedUpTo, runStart) + REDACTED;
      copiedUpTo = index;
    }
    runStart = index + 1;
    upper = lower = false;
    hexOnly = true;
  }
  return redacted === null ? text : redacted + text.slice(copiedUpTo);
}

/**
 * The one scrubber for text that can carry a credential: URLs, paths, header values, error messages and
 * stacks. Redacts API keys and webhook secrets after their prefix, random-looking runs (redactRandomRuns), values of
 * credential-named query parameters, URL user-info and Authorization credentials. Cheap for the common
 * case (a short path): a few scans and the same string back.
 */
export function scrubSecrets(text: string): string {
  let scrubbed = text.includes(API_KEY_MARK) ? text.replace(API_KEY_BODY, `$1${REDACTED}`) : text;
  if (scrubbed.includes(WEBHOOK_SECRET_MARK)) scrubbed = scrubbed.replace(WEBHOOK_SECRET_BODY, `$1${REDACTED}`);
  if (CREDENTIAL_SYNTAX.test(scrubbed)) {
    scrubbed = scrubbed
      .replace(URL_USER_INFO, `//${REDACTED}@`)
      .replace(AUTHORIZATION_CREDENTIALS, `$1 ${REDACTED}`)
      .replace(CREDENTIAL_PARAMETER, `$1$2${REDACTED}`);
  }
  return redactRandomRuns(scrubbed);
}

/** True when scrubSecrets would change the value: it must not be echoed or logged as it is. */
export function looksLikeSecret(value: string): boolean {
  return scrubSecrets(value) !== value;
}

/** Every string field of a serialized error (message, stack, and what the error carried: urls, bodies). */
function errorSerializer(error: Error) {
  const serialized: Record<string, unknown> = stdSerializers.err(error);
  for (const [field, value] of Object.entries(serialized)) {
    if (typeof value === 'string') serialized[field] = scrubSecrets(value);
  }
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
