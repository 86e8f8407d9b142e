/**
 * Webhook verification for receivers of the Property Catalogue API (see README.md beside this file).
 *
 * One self-contained file: it imports nothing but node:crypto, so a receiver can copy it into its own code.
 *
 *   const event = verifyWebhook(rawBody, request.headers, process.env.WEBHOOK_SECRET!);
 *
 * returns the event `{ id, type, created_at, data }` or throws a WebhookVerificationError whose `code` says why.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export type WebhookVerificationErrorCode =
  'MISSING_HEADER' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'SIGNATURE_MISMATCH' | 'EVENT_ID_MISMATCH' | 'MALFORMED_BODY';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far X-Service-Timestamp may be from now, either side, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. Default Date.now. */
  now?: () => number;
}

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_BYTES = 32;

/**
 * Checks, in this order: the three headers are present; the timestamp is within the tolerance; one of the
 * `v1=` signatures matches one of `secrets` (pass the old and the new secret while you rotate yours); then the
 * body parses as an event whose `id` is the X-Service-Event-Id header. The body is parsed only once it is known
 * to come from the service.
 *
 * `rawBody` must be the exact bytes received (for example express.raw({ type: 'application/json' })): a body
 * parsed and serialised again will not verify.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secretList = typeof secrets === 'string' ? [secrets] : secrets;
  if (secretList.length === 0 || secretList.some((secret) => typeof secret !== 'string' || secret === '')) {
    throw new TypeError('verifyWebhook: pass the webhook secret (or, while rotating, several)');
  }
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now;

  const timestampText = singleHeader(headers, 'x-service-timestamp');
  const eventId = singleHeader(headers, 'x-service-event-id');
  const signatureParts = headerValues(headers, 'x-service-signature')
    .flatMap((value) => value.split(/[\s,]+/))
    .filter((part) => part !== '');
  if (signatureParts.length === 0) throw new WebhookVerificationError('MISSING_HEADER', 'X-Service-Signature is missing');

  if (!/^\d{1,15}$/.test(timestampText)) {
    throw new WebhookVerificationError('MISSING_HEADER', 'X-Service-Timestamp must be Unix seconds');
  }
  const skewSeconds = Math.abs(now() / 1000 - Number(timestampText));
  if (!(skewSeconds <= toleranceSeconds)) {
    throw new WebhookVerificationError(
      'TIMESTAMP_OUT_OF_TOLERANCE',
      `X-Service-Timestamp is ${Math.round(skewSeconds)} s away from now (tolerance ${toleranceSeconds} s)`,
    );
  }

  const offered = signatureParts.flatMap((part) => {
    const match = /^v1=([0-9a-fA-F]{64})$/.exec(part);
    return match?.[1] === undefined ? [] : [Buffer.from(match[1], 'hex')];
  });
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = secretList.map((secret) =>
    createHmac('sha256', secret).update(`${timestampText}.${eventId}.`, 'utf8').update(body).digest(),
  );
  // Every pair is compared, in constant time, so the time taken says nothing about which part came close.
  let matched = false;
  for (const candidate of offered) {
    for (const signature of expected) {
      if (candidate.length === SIGNATURE_BYTES && timingSafeEqual(candidate, signature)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'no v1 signature matches the secret');

  const event = parseEvent(body);
  if (event.id !== eventId) {
    throw new WebhookVerificationError('EVENT_ID_MISMATCH', 'the body id differs from X-Service-Event-Id');
  }
  return event;
}

function headerValues(headers: WebhookHeaders, lowerCaseName: string): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== lowerCaseName || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  return values;
}

function singleHeader(headers: WebhookHeaders, lowerCaseName: string): string {
  const values = headerValues(headers, lowerCaseName).map((value) => value.trim());
  const [value] = values;
  const displayName = lowerCaseName.replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => dash + letter.toUpperCase());
  if (value === undefined || value === '') throw new WebhookVerificationError('MISSING_HEADER', `${displayName} is missing`);
  if (values.some((other) => other !== value)) {
    throw new WebhookVerificationError('MISSING_HEADER', `${displayName} is given more than once with different values`);
  }
  return value;
}

function parseEvent(body: Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('MALFORMED_BODY', 'the body is not JSON');
  }
  if (!isRecord(parsed)) throw new WebhookVerificationError('MALFORMED_BODY', 'the body is not a JSON object');
  const { id, type, created_at: createdAt, data } = parsed;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof createdAt !== 'string' || !isRecord(data)) {
    throw new WebhookVerificationError('MALFORMED_BODY', 'the body is not an event { id, type, created_at, data }');
  }
  return { id, type, created_at: createdAt, data };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
