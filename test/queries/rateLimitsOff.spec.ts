import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/** Limits the requests below would exceed many times over if anything were counted. */
const TINY: PlanLimits = {
  burst: { requests: 1, window_ms: 60_000 },
  per_minute: 2,
  daily: 3,
  monthly: 3,
  test_daily: 3,
  overage: null,
};

const limitHeaders = (headers: Headers) => [...headers.keys()].filter((name) => /^(ratelimit|x-quota)-/.test(name));

describe('RATE_LIMITS=off', () => {
  let api: ApiFixture;

  beforeAll(async () => {
    api = await startApiFixture({ env: { RATE_LIMITS: 'off' } });
    await api.given([
      ...publishedReferenceCatalogue(),
      projectCreated(1, {}, minute(1)),
      projectEvent('ProjectPublished', 1, {}, minute(1)),
    ]);
  });

  afterAll(async () => {
    await api.close();
  });

  it('when a keyed request is served, then it is 200 without any RateLimit-* or X-Quota-* header', async () => {
    const key = await api.key({ limits: TINY });
    const answer = await api.get('/projects/1', key);
    expect(answer.status).toBe(200);
    expect(limitHeaders(answer.headers)).toEqual([]);
  });

  it('when many more requests than the plan allows are made, then every one still succeeds, 304s included', async () => {
    const key = await api.key({ limits: TINY });
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.get('/projects/1', key)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const etag = answers[0]!.headers.get('etag')!;
    for (let request = 0; request < 5; request++) {
      const notModified = await api.get('/projects/1', key, { headers: { 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(limitHeaders(notModified.headers)).toEqual([]);
    }
    expect((await api.get('/projects?per_page=5', key)).status).toBe(200);
  });

  it('when a key is missing, then authentication still answers 401: only the limits are off', async () => {
    expect((await api.get('/projects/1', 'svc_live_not-a-key')).status).toBe(401);
  });
});
