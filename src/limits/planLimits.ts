import { z } from 'zod';
import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';
import type { LimitPolicy, OveragePrice } from './limits.js';

/** What a plan sets (Limits in the contract); the defaults are DESIGN.md's and the contract's figures. */
export interface PlanLimits {
  burst: { requests: number; window_ms: number };
  per_minute: number;
  /** Units per Asia/Dhaka day for live keys; null: no daily cap. */
  daily: number | null;
  /** Units per Asia/Dhaka month for live keys; null: no monthly cap. */
  monthly: number | null;
  /** Units per day for test (sandbox) keys, which never have a monthly allowance. */
  test_daily: number | null;
  /** Past the monthly allowance, live requests succeed and are billed at this price; null: refused (the default). */
  overage: OveragePrice | null;
}

export const DEFAULT_PLAN_LIMITS: PlanLimits = {
  burst: { requests: 20, window_ms: 2_000 },
  per_minute: 60,
  daily: 10_000,
  monthly: 200_000,
  test_daily: 1_000,
  overage: null,
};

const count = z.number().int().min(1).max(1_000_000_000);

export const planLimitsSchema = z
  .object({
    burst: z
      .object({ requests: count, window_ms: z.number().int().min(100).max(60_000) })
      .strict()
      .meta({ description: 'Rolling burst window (default 20 requests per 2,000 ms).' }),
    per_minute: count.meta({ description: 'Requests per rolling minute (default 60).' }),
    daily: count.nullable().meta({ description: 'Live units per Asia/Dhaka day (default 10,000); null = no daily cap.' }),
    monthly: count.nullable().meta({ description: 'Live units per Asia/Dhaka month (default 200,000); null = no monthly cap.' }),
    test_daily: count.nullable().meta({ description: 'Test-key units per day (default 1,000); test keys have no monthly allowance.' }),
    overage: z
      .object({
        price_per_request: z.string().regex(/^\d{1,6}(\.\d{1,6})?$/, 'must be a decimal amount such as 0.002'),
        currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as AED'),
      })
      .strict()
      .nullable()
      .meta({ description: 'Overage (off by default): past the monthly allowance live requests succeed and are billed at this price.' }),
  })
  .strict()
  .meta({ id: 'PlanLimits', description: 'Rate limits and quotas of the plan; omitted = the defaults.' });

/** The policy the limiter enforces for one environment of a client on these plan limits. */
export function limitPolicyOf(limits: PlanLimits, environment: KeyEnvironment): LimitPolicy {
  const burst = { limit: limits.burst.requests, windowMs: limits.burst.window_ms };
  if (environment === 'test') return { burst, perMinute: limits.per_minute, daily: limits.test_daily, monthly: null, overage: null };
  return { burst, perMinute: limits.per_minute, daily: limits.daily, monthly: limits.monthly, overage: limits.overage };
}
