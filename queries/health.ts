import { Router } from 'express';
import { z } from 'zod';
import type { CacheHealth } from '../src/cache/cacheHealth.js';
import type { EventStore } from '../src/eventStore/eventStore.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { meta } from '../src/http/openApiCommon.js';
import { sendData } from '../src/http/responses.js';

export const healthResponseSchema = z
  .object({
    data: z.object({
      status: z.enum(['ok', 'degraded']),
      version: z.literal('v1'),
      checks: z.object({
        database: z.boolean().meta({ description: 'Event store and read store answer.' }),
        cache: z.boolean().meta({ description: 'Redis (or the in-process stand-in) answers.' }),
      }),
    }),
    meta,
  })
  .meta({ id: 'Health' });

const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export interface HealthDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  cache: CacheHealth;
}

/** A probe that throws, hangs or answers false counts as down. */
async function probe(check: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().catch(() => false), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /health` (mounted under /v1): no authentication, no quota. `database` needs both the event store and
 * the read store; 503 with status `degraded` when any check fails. Never cached by intermediaries.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const [eventStoreUp, readStoreUp, cache] = await Promise.all([
      probe(() => deps.eventStore.ping()),
      probe(() => deps.readStore.ping()),
      probe(() => deps.cache.ping()),
    ]);
    const checks = { database: eventStoreUp && readStoreUp, cache };
    const status = checks.database && checks.cache ? 'ok' : 'degraded';
    res.setHeader('Cache-Control', 'no-store');
    sendData(
      res,
      { status, version: 'v1', checks },
      { status: status === 'ok' ? 200 : 503, etag: `W/"health-${status}-${Number(checks.database)}${Number(checks.cache)}"` },
    );
  });
  rejectOtherMethods(router, [{ method: 'get', path: '/health' }]);
  return router;
}
