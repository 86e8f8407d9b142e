import { createHmac } from 'node:crypto';

/**
 * The spec's webhook signature (Events: Verification): HMAC-SHA256 keyed with the webhook secret over
 * `timestamp + "." + event_id + "." + raw_body`, hex-encoded. `timestamp` is the X-Service-Timestamp value (Unix
 * seconds) and `eventId` the X-Service-Event-Id value, so a signed body can be replayed neither later nor as
 * another event. Receivers check it with src/webhooks/receiver/verifyWebhook.ts.
 */
export function webhookSignature(secret: string, timestamp: number, eventId: string, rawBody: string): string {
  if (!Number.isSafeInteger(timestamp)) throw new RangeError(`webhookSignature: timestamp must be whole Unix seconds, got ${timestamp}`);
  return createHmac('sha256', secret).update(`${timestamp}.${eventId}.${rawBody}`).digest('hex');
}

/**
 * The X-Service-Signature value: `v1=<hex>` per secret, current secret first, separated by single spaces. During
 * a rotation's overlap both the new and the old secret sign (`v1=<new> v1=<old>`), so a receiver still holding
 * the old secret verifies as well as one that has switched.
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, eventId: string, rawBody: string): string {
  if (secrets.length === 0) throw new TypeError('signatureHeader: at least one secret is needed');
  return secrets.map((secret) => `v1=${webhookSignature(secret, timestamp, eventId, rawBody)}`).join(' ');
}
