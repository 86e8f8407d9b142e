/**
 * Domain and API errors carry a code; the one error middleware (src/http/errorMiddleware.ts) turns them
 * into the spec's error body `{ error: { code, message, details }, meta }` with `status`.
 */
export class ApiError extends Error {
  /** Fields placed next to `error` and `meta` in the body (the contract's quota example has `success: false`). */
  readonly envelope: Record<string, unknown> = {};

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** 422 VALIDATION_FAILED; `fields` maps a field path (e.g. `body.slug`, `query.per_page`) to its problem. */
export class ValidationFailed extends ApiError {
  constructor(fields: Record<string, string>, message = 'The request is not valid.') {
    super(422, 'VALIDATION_FAILED', message, { fields });
  }
}

export class NotFound extends ApiError {
  constructor(message = 'The requested resource is not available.') {
    super(404, 'NOT_FOUND', message);
  }
}

/** 409 CONFLICT: stale expected revision, or a state that forbids the command. */
export class Conflict extends ApiError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(409, 'CONFLICT', message, details);
  }
}

/** A business rule refused a well-formed command (e.g. publishing a deleted project). */
export class CommandRejected extends ApiError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(422, code, message, details);
  }
}
