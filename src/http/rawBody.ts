import type { Request } from 'express';
import { ValidationFailed } from '../domain/errors.js';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from './httpErrors.js';
import { hasBody, JSON_BODY_LIMIT_BYTES } from './jsonBody.js';

/**
 * The bytes of a /v1 request's body, read once (at most JSON_BODY_LIMIT_BYTES) and kept for the request:
 * request signing hashes exactly these bytes (Authentication rule 6), and the route parses the same ones.
 */
const bodies = new WeakMap<Request, Promise<Buffer>>();

export function rawBodyOf(req: Request): Promise<Buffer> {
  let body = bodies.get(req);
  if (!body) {
    body = readBody(req, JSON_BODY_LIMIT_BYTES);
    bodies.set(req, body);
  }
  return body;
}

function readBody(req: Request, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
      reject(new PayloadTooLarge(limitBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        stop();
        reject(new PayloadTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = () => {
      stop();
      reject(new BadRequest('The request body could not be read.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}

/**
 * A /v1 JSON body: undefined when none was sent; 415 for another media type or a content encoding; malformed
 * JSON is 422 naming `body`, as on the admin API.
 */
export async function jsonBodyOf(req: Request): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!req.is('application/json')) throw new UnsupportedMediaType();
  // The bytes are signed and parsed as received: a compressed body would be neither.
  const encoding = req.get('content-encoding')?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== 'identity') {
    throw new UnsupportedMediaType('A /v1 request body is sent without Content-Encoding (identity).');
  }
  const text = (await rawBodyOf(req)).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationFailed({ body: 'must be a valid JSON object or array' }, 'The request body is not valid JSON.');
  }
}
