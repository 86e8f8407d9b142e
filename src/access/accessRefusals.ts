import { ApiError } from '../domain/errors.js';

/**
 * Why a key that verified may not be used now (Authentication rule 4), with the message each answer
 * carries. One table, so that the refusals, their documentation in /v1/openapi.yaml and the tests agree.
 */
export const ACCESS_REFUSALS = {
  API_KEY_REVOKED: 'This API key was revoked.',
  API_KEY_INACTIVE: 'This API key is deactivated.',
  CLIENT_SUSPENDED: 'This account is suspended.',
  CLIENT_INACTIVE: 'This account is not active.',
  PLAN_INACTIVE: "This account's plan is deactivated.",
} as const;

export type AccessRefusalCode = keyof typeof ACCESS_REFUSALS;

/** 403 with the exact reason: never "invalid key". None is retryable; each needs an account or configuration change. */
export class AccessRefused extends ApiError {
  constructor(code: AccessRefusalCode, details: Record<string, unknown> = {}) {
    super(403, code, ACCESS_REFUSALS[code], details);
  }
}
