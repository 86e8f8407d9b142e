import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { NonceStore } from '../access/nonceStore.js';
import { ApiError } from '../domain/errors.js';
import type { RequestCheck } from './apiAuth.js';
import { hasBody } from './jsonBody.js';
import { rawBodyOf } from './rawBody.js';

const SIGNING_HEADERS = ['X-API-Timestamp', 'X-API-Nonce', 'X-API-Signature'] as const;
type SigningHeader = (typeof SIGNING_HEADERS)[number];

/** Unix seconds, digits only: no sign, fraction or exponent, so every client renders one the same way. */
const TIMESTAMP = /^\d{1,12}$/;
/** Printable ASCII without the space: safe in a header, in a line of the signed string and in a Redis key. */
const NONCE = /^[\x21-\x7E]{16,128}$/;
const SIGNATURE = /^v1=([0-9a-fA-F]{64})$/;

const FORMAT_PROBLEMS: Record<SigningHeader, string> = {
  'X-API-Timestamp': 'must be the Unix time in whole seconds (digits only)',
  'X-API-Nonce': 'must be 16 to 128 printable ASCII characters without spaces',
  'X-API-Signature': 'must be v1= followed by 64 hexadecimal characters (HMAC-SHA256)',
};

const EMPTY_BODY_SHA256 = createHash('sha256').update('').digest('hex');

class SignatureRequired extends ApiError {
  constructor(missingHeaders: SigningHeader[]) {
    super(401, 'SIGNATURE_REQUIRED', `This client must sign its requests; missing ${missingHeaders.join(', ')}.`, {
      missing_headers: missingHeaders,
    });
  }
}

/** `headers` maps each offending header to its problem; values sent are never echoed. */
class SignatureInvalid extends ApiError {
  constructor(headers: Partial<Record<SigningHeader, string>>) {
    super(401, 'SIGNATURE_INVALID', 'The request signature is malformed or does not match the request.', { headers });
  }
}

class SignatureExpired extends ApiError {
  constructor(serverTime: number, windowSeconds: number) {
    super(401, 'SIGNATURE_EXPIRED', `X-API-Timestamp is more than ${windowSeconds} seconds away from the server time.`, {
      server_time: serverTime,
      window_seconds: windowSeconds,
    });
  }
}

class NonceReused extends ApiError {
  constructor() {
    super(401, 'NONCE_REUSED', 'X-API-Nonce was already used; every signed request needs a new nonce.', { header: 'X-API-Nonce' });
  }
}

export interface RequestSigningOptions {
  nonceStore: NonceStore;
  windowSeconds: number;
  clock: () => Date;
}

/**
 * Enterprise request signing (Authentication rule 6), for clients that have it enabled; other clients' signing
 * headers are ignored. Checked in this order, the first failure answering 401:
 *
 * 1. every header present (SIGNATURE_REQUIRED, naming all missing ones);
 * 2. every header well formed (SIGNATURE_INVALID, naming each malformed one);
 * 3. the timestamp within `windowSeconds` of the server time, either side, the edge included (SIGNATURE_EXPIRED);
 * 4. the signature (SIGNATURE_INVALID), compared in constant time;
 * 5. the nonce unused (NONCE_REUSED). Claimed only once the signature verified, so requests forged without
 *    the key cannot use up a client's nonces. It is remembered for twice the window: a timestamp stays
 *    acceptable for at most that long after the earliest moment it could have been claimed.
 *
 * The signed string is five lines joined by "\n": the timestamp and the nonce as sent, the uppercase method,
 * the request target exactly as sent (`req.originalUrl`: Node's raw target, path and query, with /v1), and the
 * SHA-256 hex of the body: of the bytes as received (src/http/rawBody.ts, which the route then parses), the
 * empty string's for a request without one (GET, HEAD).
 * The HMAC-SHA256 key is the API key as presented. Neither key, signature nor nonce is logged or echoed.
 */
export function requestSigning(options: RequestSigningOptions): RequestCheck {
  const { nonceStore, windowSeconds, clock } = options;
  const nonceTtlSeconds = 2 * windowSeconds;
  return async (req, access, presentedKey) => {
    if (!access.requestSigning) return;

    const sent = {
      'X-API-Timestamp': req.get('x-api-timestamp'),
      'X-API-Nonce': req.get('x-api-nonce'),
      'X-API-Signature': req.get('x-api-signature'),
    };
    const missing = SIGNING_HEADERS.filter((header) => sent[header] === undefined);
    if (missing.length > 0) throw new SignatureRequired(missing);
    const timestamp = sent['X-API-Timestamp']!;
    const nonce = sent['X-API-Nonce']!;
    const signatureHex = SIGNATURE.exec(sent['X-API-Signature']!)?.[1];

    const malformed: Partial<Record<SigningHeader, string>> = {};
    if (!TIMESTAMP.test(timestamp)) malformed['X-API-Timestamp'] = FORMAT_PROBLEMS['X-API-Timestamp'];
    if (!NONCE.test(nonce)) malformed['X-API-Nonce'] = FORMAT_PROBLEMS['X-API-Nonce'];
    if (signatureHex === undefined) malformed['X-API-Signature'] = FORMAT_PROBLEMS['X-API-Signature'];
    if (Object.keys(malformed).length > 0) throw new SignatureInvalid(malformed);

    const serverTime = Math.floor(clock().getTime() / 1_000);
    if (Math.abs(serverTime - Number(timestamp)) > windowSeconds) throw new SignatureExpired(serverTime, windowSeconds);

    const bodySha256 = hasBody(req)
      ? createHash('sha256')
          .update(await rawBodyOf(req))
          .digest('hex')
      : EMPTY_BODY_SHA256;
    const signedString = [timestamp, nonce, req.method.toUpperCase(), req.originalUrl, bodySha256].join('\n');
    const expected = createHmac('sha256', presentedKey).update(signedString).digest();
    if (!timingSafeEqual(expected, Buffer.from(signatureHex!, 'hex'))) {
      throw new SignatureInvalid({ 'X-API-Signature': 'does not match the request (see the signed string in Authentication rule 6)' });
    }

    if (!(await nonceStore.claim(access.clientId, nonce, nonceTtlSeconds))) throw new NonceReused();
  };
}
