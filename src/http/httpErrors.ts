import { ApiError } from '../domain/errors.js';

/** An API error that also sets response headers (Allow, WWW-Authenticate). */
export class ApiErrorWithHeaders extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown>,
    readonly headers: Record<string, string>,
  ) {
    super(status, code, message, details);
  }
}

/** 401: one body for a missing, malformed or wrong credential, so a caller learns nothing from the difference. */
export class Unauthenticated extends ApiErrorWithHeaders {
  constructor() {
    super(401, 'UNAUTHENTICATED', 'A valid bearer token is required.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class MethodNotAllowed extends ApiErrorWithHeaders {
  constructor(allowedMethods: string[]) {
    super(
      405,
      'METHOD_NOT_ALLOWED',
      `This resource supports ${allowedMethods.join(', ')}.`,
      { allowed_methods: allowedMethods },
      { Allow: allowedMethods.join(', ') },
    );
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${limitBytes} bytes.`, { limit_bytes: limitBytes });
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(message = 'The request body must be JSON (Content-Type: application/json; charset utf-8).') {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** A request the server cannot make sense of below the level of field validation (e.g. an undecodable URL). */
export class BadRequest extends ApiError {
  constructor(message = 'The request could not be understood.') {
    super(400, 'BAD_REQUEST', message);
  }
}
