import { describe, expect, it } from 'vitest';
import { createInProcessLimits } from '../../src/limits/inProcessLimits.js';
import { limitsContract } from './limitsContract.js';

limitsContract('in process', (clock) => createInProcessLimits({ now: clock }));

describe('In-process limits memory', () => {
  it('when a burst of requests is followed by quiet time, then the windows keep only the requests still inside them', async () => {
    let nowMs = Date.parse('2026-03-15T06:00:00Z');
    const limits = createInProcessLimits({ now: () => nowMs });
    const policy = { burst: { limit: 500, windowMs: 2_000 }, perMinute: 500, daily: null, monthly: null, overage: null };
    const consume = () => limits.consume({ clientId: 1, environment: 'live', policy, units: 1, chargesQuota: true });
    for (let i = 0; i < 500; i += 1) await consume();
    nowMs += 60_000;
    const after = await consume();
    expect(after).toMatchObject({ allowed: true, rateLimit: { limit: 500, remaining: 499 } });
    await limits.close();
  });
});
