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
  // Made once: every API request passes here, and pays an increment rather than a label lookup.
  const allowed = metrics.limiterDecisions.labels('allowed');
  return {
    async consume(request) {
      const result = await inner.consume(request);
      if (result.allowed) {
        allowed.inc();
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
