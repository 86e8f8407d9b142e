import { ApiError } from '../domain/errors.js';

/**
 * Why a key that verified may not be used now (Authentication rule 4), with the message each answer
 * carries. One table, so that the refusals, their documentation in /v1/openapi.yaml and the tests agree.
 */
export const ACCESS_REFUSALS = {
  API_KEY_REVOKED: 'This API key was revoked.',
  API_KEY_INACTIVE: 'This API key is deactivated.',
  API_KEY_EXPIRED: 'This API key has expired; details.expired_at says when.',
  API_KEY_ROTATION_ENDED:
    'This API key was rotated and its overlap window has ended; use its successor (details.successor_key_id, details.rotation_ended_at).',
  CLIENT_SUSPENDED: 'This account is suspended.',
  CLIENT_INACTIVE: 'This account is not active.',
  PLAN_INACTIVE: "This account's plan is deactivated.",
  SUBSCRIPTION_INACTIVE: 'The subscription grants no access in its status (details.status).',
  SUBSCRIPTION_NOT_STARTED: 'The subscription period has not begun (details.starts_at).',
  SUBSCRIPTION_EXPIRED: 'The subscription period has ended (details.expired_at).',
  TRIAL_ENDED: 'The trial has ended without payment (details.trial_ended_at).',
  GRACE_PERIOD_ENDED: 'The grace period after the payment due date has ended (details.grace_period_ended_at).',
  EVALUATION_TEST_ONLY: 'The account is in Evaluation Mode: only test keys work until commercial activation.',
  EVALUATION_ACCESS_PAUSED: 'Evaluation access is paused; it resumes only with commercial activation.',
  EVALUATION_PREVIEW_ONLY: 'In Evaluation Mode the full brochure, video and generated PDFs are not available.',
  IP_DENIED: "The client address is on this environment's IP deny list; details.ip is the address seen.",
  IP_NOT_ALLOWED: "The client address is not on this environment's IP allow list; details.ip is the address seen.",
  DOMAIN_NOT_ALLOWED:
    "X-Client-Domain is missing or is not this environment's authorised domain (an exact host name); details.header and details.received or details.reason say why.",
  ORIGIN_MISMATCH: "The Origin host is not this environment's authorised domain; details.received is the host seen.",
} as const;

export type AccessRefusalCode = keyof typeof ACCESS_REFUSALS;

/** 403 with the exact reason: never "invalid key". None is retryable; each needs an account or configuration change. */
export class AccessRefused extends ApiError {
  constructor(code: AccessRefusalCode, details: Record<string, unknown> = {}) {
    super(403, code, ACCESS_REFUSALS[code], details);
  }
}
