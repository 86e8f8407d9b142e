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
  constructor(allowedMethods: string[], message = `This resource supports ${allowedMethods.join(', ')}.`) {
    super(405, 'METHOD_NOT_ALLOWED', message, { allowed_methods: allowedMethods }, { Allow: allowedMethods.join(', ') });
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(limitBytes: number, message = `The request body exceeds ${limitBytes} bytes.`) {
    super(413, 'PAYLOAD_TOO_LARGE', message, { limit_bytes: limitBytes });
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(message = 'The request body must be JSON (Content-Type: application/json; charset utf-8).') {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** A request the server cannot make sense of below the level of field validation (e.g. an undecodable URL). */
export class BadRequest extends ApiError {
  constructor(message = 'The request could not be understood.', details: Record<string, unknown> = {}) {
    super(400, 'BAD_REQUEST', message, details);
  }
}

/** 431: the request line and headers together exceed what the server reads of a request head. */
export class HeadersTooLarge extends ApiError {
  constructor(limitBytes: number) {
    super(431, 'HEADERS_TOO_LARGE', `The request line and headers exceed ${limitBytes} bytes.`, { limit_bytes: limitBytes });
  }
}

/** 408: the client did not send its request head, or its whole request, within the server's time limits. */
export class RequestTimeout extends ApiError {
  constructor(limits: { headersTimeoutMs: number; requestTimeoutMs: number }) {
    super(408, 'REQUEST_TIMEOUT', 'The request was not received in time.', {
      headers_timeout_ms: limits.headersTimeoutMs,
      request_timeout_ms: limits.requestTimeoutMs,
    });
  }
}

/** 417: an `Expect` header other than `100-continue`, the only expectation HTTP defines. */
export class ExpectationFailed extends ApiError {
  constructor() {
    super(417, 'EXPECTATION_FAILED', 'The only expectation supported is 100-continue.', { header: 'Expect' });
  }
}
