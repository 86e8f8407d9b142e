import type { LimitCode, Limits } from '../limits/limits.js';
import type { PdfLimitCode, PdfLimiter } from '../pdf/pdfLimits.js';
import type { ServiceMetrics } from './serviceMetrics.js';

/** The calendar quota a refusal code names, if it names one (burst and per-minute limits are rates, not quotas). */
const QUOTA_PERIODS: Partial<Record<LimitCode | PdfLimitCode, 'daily' | 'monthly'>> = {
  DAILY_LIMIT_EXCEEDED: 'daily',
  MONTHLY_LIMIT_EXCEEDED: 'monthly',
};

/** Each decision of the request limiter by code; a quota's refusal is also counted as one. */
export function instrumentLimits(inner: Limits, metrics: ServiceMetrics): Limits {
  // Every API request passes here: an allowed one (nearly all) pays a plain increment, read when scraped.
  const allowed = metrics.limiterAllowed;
  return {
    async consume(request) {
      const result = await inner.consume(request);
      if (result.allowed) {
        allowed.count += 1;
      } else {
        metrics.limiterDecisions.inc({ code: result.code });
        const period = QUOTA_PERIODS[result.code];
        if (period) metrics.quotaRefusals.inc({ limiter: 'requests', period });
      }
      return result;
    },
    close: () => inner.close(),
  };
}

/** The same for the PDF generation limiter. */
export function instrumentPdfLimiter(inner: PdfLimiter, metrics: ServiceMetrics): PdfLimiter {
  return {
    async consume(clientId, limits) {
      const result = await inner.consume(clientId, limits);
      metrics.pdfLimiterDecisions.inc({ code: result.allowed ? 'allowed' : result.code });
      const period = result.allowed ? undefined : QUOTA_PERIODS[result.code];
      if (period) metrics.quotaRefusals.inc({ limiter: 'pdf', period });
      return result;
    },
    close: () => inner.close(),
  };
}
