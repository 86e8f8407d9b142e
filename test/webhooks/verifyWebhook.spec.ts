import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from '../../src/webhooks/receiver/verifyWebhook.js';
import { signatureHeader, webhookSignature } from '../../src/webhooks/signature.js';

/** The published test vectors of src/webhooks/receiver/README.md. */
const VECTOR = {
  timestamp: 1767225600,
  eventId: 'evt_7f3a9c2e4b1d4e8f9a0b6c5d',
  oldSecret: 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8',
  newSecret: 'whsec_QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8',
  body1:
    '{"id":"evt_7f3a9c2e4b1d4e8f9a0b6c5d","type":"project.created","created_at":"2026-01-01T00:00:00.000Z","data":{"id":"prj_1001","sequence":1}}',
  signature1: '220196c71ce4c007ecd2d9ba3baf2233f30f71c5d9285d861a57ec0fdc00376b',
  body2:
    '{"id":"evt_7f3a9c2e4b1d4e8f9a0b6c5d","type":"project.updated","created_at":"2026-01-01T00:00:00.000Z","data":{"id":"prj_1001","name":"Résidence Marina — Tower A","sequence":2}}',
  signature2New: '0df5d9a46eb67e412c1b1cfda6cfe9d0a5cc2df33bec3c5132f0a62d66e3507d',
  signature2Old: '4f9ad3330bcc231daf8db3ce0b89305b3997a7746d1c54bfc3cc1939a539fa66',
};

const README = readFileSync(new URL('../../src/webhooks/receiver/README.md', import.meta.url), 'utf8');

const atVectorTime = { now: () => VECTOR.timestamp * 1000 };

/** A delivery as the service sends it: the body and the three headers, signed with `secrets`. */
function delivery(overrides: { body?: string; timestamp?: number; eventId?: string; secrets?: string[] } = {}): {
  body: string;
  headers: WebhookHeaders;
} {
  const timestamp = overrides.timestamp ?? VECTOR.timestamp;
  const eventId = overrides.eventId ?? VECTOR.eventId;
  const body = overrides.body ?? VECTOR.body1;
  return {
    body,
    headers: {
      'x-service-event': 'project.created',
      'x-service-event-id': eventId,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signatureHeader(overrides.secrets ?? [VECTOR.oldSecret], timestamp, eventId, body),
    },
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError, nothing was thrown');
}

describe('the published test vectors', () => {
  it('when the spec text is followed with node:crypto alone, then it gives the published signatures', () => {
    // Spec, Events: HMAC-SHA256 over timestamp + '.' + event_id + '.' + raw_request_body, keyed with the
    // webhook secret, hex-encoded. Written here from that sentence, not through src/webhooks/signature.ts.
    const fromSpec = (secret: string, body: string) =>
      createHmac('sha256', Buffer.from(secret, 'utf8'))
        .update(Buffer.concat([Buffer.from(`${VECTOR.timestamp}.${VECTOR.eventId}.`, 'utf8'), Buffer.from(body, 'utf8')]))
        .digest('hex');
    expect(fromSpec(VECTOR.oldSecret, VECTOR.body1)).toBe(VECTOR.signature1);
    expect(fromSpec(VECTOR.newSecret, VECTOR.body2)).toBe(VECTOR.signature2New);
    expect(fromSpec(VECTOR.oldSecret, VECTOR.body2)).toBe(VECTOR.signature2Old);
  });

  it('when the service signs the vectors, then it gives the published signatures and header', () => {
    expect(webhookSignature(VECTOR.oldSecret, VECTOR.timestamp, VECTOR.eventId, VECTOR.body1)).toBe(VECTOR.signature1);
    expect(signatureHeader([VECTOR.newSecret, VECTOR.oldSecret], VECTOR.timestamp, VECTOR.eventId, VECTOR.body2)).toBe(
      `v1=${VECTOR.signature2New} v1=${VECTOR.signature2Old}`,
    );
  });

  it('when the receiver README is read, then it publishes exactly these values', () => {
    for (const value of Object.values(VECTOR)) expect(README).toContain(String(value));
    expect(README).toContain(`X-Service-Signature: v1=${VECTOR.signature1}\``);
    expect(README).toContain(`X-Service-Signature: v1=${VECTOR.signature2New} v1=${VECTOR.signature2Old}\``);
    expect(README).toContain(`(${Buffer.byteLength(VECTOR.body2)} bytes in UTF-8`);
  });

  it('when the vectors are verified, then the events come back', () => {
    const headers = { 'X-Service-Timestamp': String(VECTOR.timestamp), 'X-Service-Event-Id': VECTOR.eventId };
    expect(
      verifyWebhook(VECTOR.body1, { ...headers, 'X-Service-Signature': `v1=${VECTOR.signature1}` }, VECTOR.oldSecret, atVectorTime),
    ).toEqual(JSON.parse(VECTOR.body1));
    const rotating = { ...headers, 'X-Service-Signature': `v1=${VECTOR.signature2New} v1=${VECTOR.signature2Old}` };
    for (const secret of [VECTOR.newSecret, VECTOR.oldSecret]) {
      expect(verifyWebhook(Buffer.from(VECTOR.body2, 'utf8'), rotating, secret, atVectorTime)).toMatchObject({ type: 'project.updated' });
    }
  });
});

describe('verifyWebhook', () => {
  it('when a delivery is genuine, then the parsed event is returned', () => {
    const { body, headers } = delivery();
    expect(verifyWebhook(body, headers, VECTOR.oldSecret, atVectorTime)).toEqual({
      id: VECTOR.eventId,
      type: 'project.created',
      created_at: '2026-01-01T00:00:00.000Z',
      data: { id: 'prj_1001', sequence: 1 },
    });
  });

  it('when header names come in any letter case or as arrays, then they are read all the same', () => {
    const { body, headers } = delivery();
    const shouted = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), [value as string]]));
    expect(verifyWebhook(body, shouted, VECTOR.oldSecret, atVectorTime).id).toBe(VECTOR.eventId);
  });

  it('when the receiver holds several secrets, then a signature by any of them verifies', () => {
    const { body, headers } = delivery({ secrets: [VECTOR.newSecret] });
    expect(verifyWebhook(body, headers, [VECTOR.oldSecret, VECTOR.newSecret], atVectorTime).id).toBe(VECTOR.eventId);
  });

  it('when the header carries unknown schemes or junk beside a good v1, then the good one is used', () => {
    const { body, headers } = delivery();
    const signature = `v0=abc v1=zz ${String(headers['x-service-signature'])} v2=${'0'.repeat(64)}`;
    expect(verifyWebhook(body, { ...headers, 'x-service-signature': signature }, VECTOR.oldSecret, atVectorTime).id).toBe(VECTOR.eventId);
  });

  describe('when the timestamp is near the edge of the tolerance', () => {
    it.each([
      ['300 s old', VECTOR.timestamp - 300, true],
      ['301 s old', VECTOR.timestamp - 301, false],
      ['300 s ahead', VECTOR.timestamp + 300, true],
      ['301 s ahead', VECTOR.timestamp + 301, false],
    ])('then a timestamp %s is accepted: %s', (_case, timestamp, accepted) => {
      const { body, headers } = delivery({ timestamp });
      const verify = () => verifyWebhook(body, headers, VECTOR.oldSecret, atVectorTime);
      if (accepted) expect(verify().id).toBe(VECTOR.eventId);
      else expect(refusal(verify).code).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    });

    it('then a tolerance given in the options replaces the 5 minutes', () => {
      const { body, headers } = delivery({ timestamp: VECTOR.timestamp - 60 });
      expect(refusal(() => verifyWebhook(body, headers, VECTOR.oldSecret, { ...atVectorTime, toleranceSeconds: 30 })).code).toBe(
        'TIMESTAMP_OUT_OF_TOLERANCE',
      );
    });
  });

  describe('when something is wrong, then the typed error names it', () => {
    const genuine = delivery();
    const without = (name: string): WebhookHeaders => ({ ...genuine.headers, [name]: undefined });
    it.each<[string, string | Buffer, WebhookHeaders, string]>([
      ['no timestamp', genuine.body, without('x-service-timestamp'), 'MISSING_HEADER'],
      ['no event id', genuine.body, without('x-service-event-id'), 'MISSING_HEADER'],
      ['no signature', genuine.body, without('x-service-signature'), 'MISSING_HEADER'],
      ['an empty signature', genuine.body, { ...genuine.headers, 'x-service-signature': ' ' }, 'MISSING_HEADER'],
      [
        'a timestamp in milliseconds',
        genuine.body,
        { ...genuine.headers, 'x-service-timestamp': `${VECTOR.timestamp}000` },
        'TIMESTAMP_OUT_OF_TOLERANCE',
      ],
      ['a timestamp that is not a number', genuine.body, { ...genuine.headers, 'x-service-timestamp': 'yesterday' }, 'MISSING_HEADER'],
      [
        'two different timestamps',
        genuine.body,
        { ...genuine.headers, 'x-service-timestamp': [String(VECTOR.timestamp), String(VECTOR.timestamp - 1)] },
        'MISSING_HEADER',
      ],
      ['a body changed by one character', genuine.body.replace('"sequence":1', '"sequence":2'), genuine.headers, 'SIGNATURE_MISMATCH'],
      ['a body parsed and serialised again', JSON.stringify(JSON.parse(genuine.body), null, 1), genuine.headers, 'SIGNATURE_MISMATCH'],
      ['another event id in the header', genuine.body, { ...genuine.headers, 'x-service-event-id': 'evt_other' }, 'SIGNATURE_MISMATCH'],
      [
        'a signature in upper case hex of another secret',
        genuine.body,
        {
          ...genuine.headers,
          'x-service-signature': `v1=${webhookSignature('whsec_other', VECTOR.timestamp, VECTOR.eventId, genuine.body).toUpperCase()}`,
        },
        'SIGNATURE_MISMATCH',
      ],
      [
        'a truncated signature',
        genuine.body,
        { ...genuine.headers, 'x-service-signature': `v1=${VECTOR.signature1.slice(0, 62)}` },
        'SIGNATURE_MISMATCH',
      ],
      [
        'a bare signature without v1=',
        genuine.body,
        { ...genuine.headers, 'x-service-signature': VECTOR.signature1 },
        'SIGNATURE_MISMATCH',
      ],
    ])('%s', (_case, body, headers, code) => {
      expect(refusal(() => verifyWebhook(body, headers, VECTOR.oldSecret, atVectorTime)).code).toBe(code);
    });

    it.each([
      [
        'a body whose id is not the header id',
        '{"id":"evt_smuggled","type":"project.created","created_at":"x","data":{}}',
        'EVENT_ID_MISMATCH',
      ],
      ['a signed body that is not JSON', 'not json', 'MALFORMED_BODY'],
      ['a signed JSON array', '[]', 'MALFORMED_BODY'],
      ['a signed object without data', `{"id":"${VECTOR.eventId}","type":"project.created","created_at":"x"}`, 'MALFORMED_BODY'],
      ['a signed object whose data is null', `{"id":"${VECTOR.eventId}","type":"t","created_at":"x","data":null}`, 'MALFORMED_BODY'],
    ])('%s', (_case, body, code) => {
      const { headers } = delivery({ body });
      expect(refusal(() => verifyWebhook(body, headers, VECTOR.oldSecret, atVectorTime)).code).toBe(code);
    });
  });

  it('when no secret is given, then it is a programming error, not a refused delivery', () => {
    const { body, headers } = delivery();
    expect(() => verifyWebhook(body, headers, [], atVectorTime)).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, '', atVectorTime)).toThrow(TypeError);
  });

  it('when the clock is not injected, then Date.now is the clock', () => {
    const { body, headers } = delivery({ timestamp: Math.floor(Date.now() / 1000) });
    expect(verifyWebhook(body, headers, VECTOR.oldSecret).id).toBe(VECTOR.eventId);
  });
});
