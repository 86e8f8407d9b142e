import type { Response } from 'express';
import type { AccessContext } from '../access/accessContext.js';
import type { ConsumeAllowed, ConsumeRefused, Limits, QuotaState } from '../limits/limits.js';
import { ApiErrorWithHeaders } from './httpErrors.js';

const unixSeconds = (at: Date) => String(Math.floor(at.getTime() / 1000));

const DAILY_HEADERS = { limit: 'X-Quota-Daily-Limit', remaining: 'X-Quota-Daily-Remaining', reset: 'X-Quota-Daily-Reset' } as const;
const MONTHLY_HEADERS = { limit: 'X-Quota-Monthly-Limit', remaining: 'X-Quota-Monthly-Remaining', reset: 'X-Quota-Monthly-Reset' } as const;

function setQuotaHeaders(res: Response, names: typeof DAILY_HEADERS | typeof MONTHLY_HEADERS, quota: QuotaState): void {
  if (quota.limit === null) return;
  res.setHeader(names.limit, String(quota.limit));
  res.setHeader(names.remaining, String(quota.remaining));
  res.setHeader(names.reset, unixSeconds(quota.resetAt));
}

/**
 * The Limits headers on every response that reached quota checking: RateLimit-* always, the daily and
 * monthly X-Quota-* only where that cap applies, and the overage pair when this request was billed as overage.
 */
export function setLimitHeaders(res: Response, outcome: ConsumeAllowed | ConsumeRefused, access: AccessContext): void {
  res.setHeader('RateLimit-Limit', String(outcome.rateLimit.limit));
  res.setHeader('RateLimit-Remaining', String(outcome.rateLimit.remaining));
  setQuotaHeaders(res, DAILY_HEADERS, outcome.daily);
  setQuotaHeaders(res, MONTHLY_HEADERS, outcome.monthly);
  const overagePrice = access.limitPolicy.overage;
  if (outcome.allowed && outcome.overage && overagePrice) {
    res.setHeader('X-Quota-Overage', 'true');
    res.setHeader('X-Quota-Overage-Price-Per-Request', `${overagePrice.price_per_request} ${overagePrice.currency}`);
  }
}

const MESSAGES: Record<ConsumeRefused['code'], string> = {
  BURST_LIMIT_EXCEEDED: 'Too many requests in a short burst; retry after the time given.',
  PER_MINUTE_LIMIT_EXCEEDED: 'The per-minute request limit is reached; retry after the time given.',
  DAILY_LIMIT_EXCEEDED: 'The daily quota is used up; it resets at midnight Asia/Dhaka.',
  MONTHLY_LIMIT_EXCEEDED: 'The monthly quota is used up; it resets on the 1st at midnight Asia/Dhaka.',
};

const quotaDetails = ({ limit, used, remaining }: QuotaState) => ({ limit, used, remaining });

/**
 * 429 with the contract's details and the top-level `success: false` its quota example shows. Retry-After
 * goes with every refusal: each limit is bounded in time (a window or the next Dhaka reset).
 */
export class LimitExceeded extends ApiErrorWithHeaders {
  override readonly envelope = { success: false };

  constructor(outcome: ConsumeRefused) {
    super(
      429,
      outcome.code,
      MESSAGES[outcome.code],
      {
        reset_at: outcome.resetAt.toISOString(),
        retry_after_seconds: outcome.retryAfterSeconds,
        daily: quotaDetails(outcome.daily),
        monthly: quotaDetails(outcome.monthly),
      },
      { 'Retry-After': String(outcome.retryAfterSeconds) },
    );
  }
}

/**
 * One limits check of a /v1 request, with its headers: a refused request throws the 429 and costs nothing.
 * `units` is the request's weighted cost; `chargesQuota` is false for a 304, which counts toward the rate
 * limits only.
 */
export async function consumeRequestLimits(
  res: Response,
  access: AccessContext,
  limits: Limits | null,
  charge: { units: number; chargesQuota: boolean },
): Promise<void> {
  if (limits === null) return;
  const outcome = await limits.consume({
    clientId: access.clientId,
    environment: access.environment,
    policy: access.limitPolicy,
    units: charge.units,
    chargesQuota: charge.chargesQuota,
  });
  setLimitHeaders(res, outcome, access);
  if (!outcome.allowed) throw new LimitExceeded(outcome);
}
