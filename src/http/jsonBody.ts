import express, { type NextFunction, type Request, type Response } from 'express';
import { ValidationFailed } from '../domain/errors.js';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from './httpErrors.js';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: JSON_BODY_LIMIT_BYTES, strict: true, type: 'application/json' });

/** A request that sends a body, of whatever length (chunked or with a Content-Length over 0). */
export function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * JSON request bodies (at most 1 MB). A body in another media type is refused with 415 rather than
 * ignored. Malformed JSON is answered 422 VALIDATION_FAILED naming `body`, like every other unusable
 * input, so clients handle one validation shape; the parser's message is not echoed because it quotes
 * the body.
 */
export function jsonBody() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (hasBody(req) && !req.is('application/json')) {
      next(new UnsupportedMediaType());
      return;
    }
    parseJson(req, res, (error?: unknown) => next(error === undefined ? undefined : bodyError(error)));
  };
}

function bodyError(error: unknown): unknown {
  const type = (error as { type?: unknown }).type;
  switch (type) {
    case 'entity.parse.failed':
      return new ValidationFailed({ body: 'must be a valid JSON object or array' }, 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new PayloadTooLarge(JSON_BODY_LIMIT_BYTES);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaType();
    case 'request.aborted':
    case 'request.size.invalid':
      return new BadRequest('The request body could not be read.');
    default:
      return error;
  }
}
