import type { JobQueue } from '../jobQueue/jobQueue.js';
import type { BrochureRendering } from '../pdf/pdfRenders.js';
import type { ReadStore } from '../readStore/readStore.js';
import { DELIVERY_OUTCOMES, WEBHOOK_DELIVERIES, type WebhookDeliveryAttemptDoc } from '../webhooks/webhookDeliveries.js';
import { forwardReadStore } from './forwardingStores.js';
import type { ServiceMetrics } from './serviceMetrics.js';

const secondsSince = (started: number) => (performance.now() - started) / 1000;

/**
 * A queue whose jobs run in this process are counted by outcome and timed, and whose depth the scrape
 * reports (`name` labels both).
 */
export function instrumentJobQueue(name: string, inner: JobQueue, metrics: ServiceMetrics): JobQueue {
  metrics.watchQueue(name, inner);
  const duration = metrics.jobDuration.labels(name);
  return {
    add: (jobs) => inner.add(jobs),
    consume(handler, options) {
      return inner.consume(async (job) => {
        const started = performance.now();
        try {
          const outcome = await handler(job);
          metrics.jobsFinished.inc({ queue: name, outcome: outcome.status });
          return outcome;
        } catch (error) {
          metrics.jobsFinished.inc({ queue: name, outcome: 'error' });
          throw error;
        } finally {
          duration.observe(secondsSince(started));
        }
      }, options);
    },
    retry: (jobId, runAt) => inner.retry(jobId, runAt),
    counts: () => inner.counts(),
    close: () => inner.close(),
  };
}

/** Each brochure render of the worker's browser, timed by outcome. */
export function instrumentBrochureRenderer<Renderer extends BrochureRendering & { close?(): Promise<void> }>(
  inner: Renderer,
  metrics: ServiceMetrics,
): BrochureRendering & Pick<Renderer, 'close'> {
  const ok = metrics.pdfRenderDuration.labels('ok');
  const failed = metrics.pdfRenderDuration.labels('error');
  return {
    async render(request, signal) {
      const started = performance.now();
      try {
        const rendered = await inner.render(request, signal);
        ok.observe(secondsSince(started));
        return rendered;
      } catch (error) {
        failed.observe(secondsSince(started));
        throw error;
      }
    },
    ...(inner.close ? { close: () => inner.close!() } : {}),
  };
}

const KNOWN_OUTCOMES: ReadonlySet<string> = new Set(DELIVERY_OUTCOMES);

/**
 * The webhook worker's read store: each delivery attempt it records (src/webhooks/webhookDeliveries.ts) is
 * counted by outcome once the write succeeded, so the figures are those of the delivery log.
 */
export function countWebhookDeliveries(inner: ReadStore, metrics: ServiceMetrics): ReadStore {
  return {
    ...forwardReadStore(inner),
    async write(ops, checkpoints) {
      await inner.write(ops, checkpoints);
      for (const op of ops) {
        if (op.op !== 'put' || op.collection !== WEBHOOK_DELIVERIES) continue;
        const { outcome } = op.doc as WebhookDeliveryAttemptDoc;
        if (KNOWN_OUTCOMES.has(outcome)) metrics.webhookDeliveries.inc({ outcome });
      }
    },
  };
}
