import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

let api: ApiFixture;
/** The service's clock: tests move it instead of waiting. */
let now = new Date('2026-01-01T00:00:00.000Z');
let key: string;

beforeAll(async () => {
  api = await startApiFixture({ clock: () => now });
  await api.given([...publishedReferenceCatalogue(), projectCreated(1, {}, minute(1)), projectEvent('ProjectPublished', 1, {}, minute(1))]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

describe('API keys on /v1', () => {
  it('when the key is missing, malformed, unknown or of another scheme, then every answer is the same 401 UNAUTHENTICATED', async () => {
    const bodies: unknown[] = [];
    const unknownKey = `svc_live_${'A'.repeat(43)}`;
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${unknownKey}` },
      { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` },
      { authorization: `Bearer ${key}x` },
      { authorization: `Bearer ${key.replace('svc_live_', 'svc_test_')}` },
    ];
    for (const headers of attempts) {
      const answer = await request(api.app.baseUrl, '/v1/projects', { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      bodies.push(answer.body.error);
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect(bodies[0]).toEqual({ code: 'UNAUTHENTICATED', message: expect.any(String), details: {} });
  });

  it('when missing, malformed and unknown keys are sent many times, then their 401s take the same time class', async () => {
    const kinds: Record<string, Record<string, string>> = {
      missing: {},
      malformed: { authorization: 'Bearer not-a-key' },
      unknown: { authorization: `Bearer svc_live_${'A'.repeat(43)}` },
    };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const timings: Record<string, number[]> = { missing: [], malformed: [], unknown: [] };
    // Interleaved, so a slow moment of the machine hits every kind alike.
    for (let round = 0; round < 60; round++) {
      for (const [kind, headers] of Object.entries(kinds)) {
        const started = performance.now();
        expect((await request(api.app.baseUrl, '/v1/projects', { headers })).status).toBe(401);
        timings[kind]!.push(performance.now() - started);
      }
    }
    const medians = Object.values(timings).map(median);
    // Same code path (one hash, one lookup: see lookupAccess); loopback noise is well under a millisecond.
    expect(Math.max(...medians) - Math.min(...medians)).toBeLessThan(1);
  });

  it("when a verified key is revoked, then 403 API_KEY_REVOKED says so, while the client's other key keeps working", async () => {
    const revoked = await api.issue();
    const sibling = await api.admin('POST', `/clients/${revoked.clientId}/keys`, { environment: 'live' });
    expect((await api.admin('POST', `/clients/${revoked.clientId}/keys/${revoked.keyId}/revoke`)).status).toBe(200);
    await api.settle();
    const answer = await api.get('/projects', revoked.key);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toEqual({ code: 'API_KEY_REVOKED', message: expect.any(String), details: {} });
    expect((await api.get('/projects', sibling.body.data.key)).status).toBe(200);
  });

  it('when a key is deactivated, then 403 API_KEY_INACTIVE until it is reactivated', async () => {
    const issued = await api.issue();
    const keyPath = `/clients/${issued.clientId}/keys/${issued.keyId}`;
    expect((await api.admin('POST', `${keyPath}/deactivate`)).body.data.status).toBe('inactive');
    await api.settle();
    const refused = await api.get('/projects', issued.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: 'API_KEY_INACTIVE', message: expect.any(String), details: {} });
    expect((await api.admin('POST', `${keyPath}/reactivate`)).body.data.status).toBe('active');
    await api.settle();
    expect((await api.get('/projects', issued.key)).status).toBe(200);
  });

  it('when a key passes its expiry, then 403 API_KEY_EXPIRED names when; until that instant it works', async () => {
    const client = await api.issue();
    const expiresAt = new Date(now.getTime() + 3_600_000).toISOString();
    const expiring = await api.admin('POST', `/clients/${client.clientId}/keys`, { environment: 'live', expires_at: expiresAt });
    expect(expiring.status).toBe(201);
    expect(expiring.body.data.expires_at).toBe(expiresAt);
    await api.settle();
    const started = now;
    try {
      now = new Date(Date.parse(expiresAt) - 1);
      expect((await api.get('/projects', expiring.body.data.key)).status).toBe(200);
      now = new Date(expiresAt);
      const refused = await api.get('/projects', expiring.body.data.key);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({ code: 'API_KEY_EXPIRED', message: expect.any(String), details: { expired_at: expiresAt } });
      expect((await api.get('/projects', client.key)).status).toBe(200);
    } finally {
      now = started;
    }
    const past = await api.admin('POST', `/clients/${client.clientId}/keys`, { environment: 'live', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(422);
    expect(past.body.error.details.fields).toHaveProperty(['body.expires_at']);
  });

  it('when a key is rotated, then both work during the overlap; after it the old one gets API_KEY_ROTATION_ENDED naming its successor', async () => {
    const issued = await api.issue();
    const keyPath = `/clients/${issued.clientId}/keys/${issued.keyId}`;
    const rotation = await api.admin('POST', `${keyPath}/rotate`, { overlap_seconds: 600 });
    expect(rotation.status).toBe(201);
    const successor = rotation.body.data;
    expect(successor).toMatchObject({ client_id: issued.clientId, environment: 'live', status: 'active', rotation_ends_at: null });
    expect(successor.key).not.toBe(issued.key);
    expect((await api.admin('POST', `${keyPath}/rotate`, {})).status).toBe(409);
    await api.settle();
    const started = now;
    try {
      expect((await api.get('/projects', issued.key)).status).toBe(200);
      expect((await api.get('/projects', successor.key)).status).toBe(200);
      now = new Date(started.getTime() + 600_000);
      const refused = await api.get('/projects', issued.key);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({
        code: 'API_KEY_ROTATION_ENDED',
        message: expect.any(String),
        details: { rotation_ended_at: new Date(started.getTime() + 600_000).toISOString(), successor_key_id: successor.id },
      });
      expect((await api.get('/projects', successor.key)).status).toBe(200);
    } finally {
      now = started;
    }
    const bad = await api.admin('POST', `/clients/${issued.clientId}/keys/${successor.id}/rotate`, { overlap_seconds: -1 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields).toHaveProperty(['body.overlap_seconds']);
  });

  describe('subscriptions', () => {
    const subscribed = async (overrides: Record<string, unknown>) => {
      const issued = await api.issue();
      const body = {
        status: 'active',
        period_start: '2025-01-01T00:00:00.000Z',
        period_end: null,
        trial_ends_at: null,
        payment_due_at: null,
        grace_days: 7,
        paid: true,
        ...overrides,
      };
      const set = await api.admin('PUT', `/clients/${issued.clientId}/subscription`, body);
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      await api.settle();
      return issued;
    };
    const refusal = async (key: string) => {
      const answer = await api.get('/projects', key);
      return answer.status === 200 ? 'served' : { status: answer.status, ...answer.body.error, message: undefined };
    };

    it.each(['draft', 'suspended', 'cancelled'])(
      'when the subscription is %s, then 403 SUBSCRIPTION_INACTIVE names the status',
      async (status) => {
        const { key } = await subscribed({ status });
        expect(await refusal(key)).toEqual({ status: 403, code: 'SUBSCRIPTION_INACTIVE', message: undefined, details: { status } });
      },
    );

    it('when the period has not begun, then SUBSCRIPTION_NOT_STARTED names the start; from the start it is served', async () => {
      const { key } = await subscribed({ period_start: '2026-01-01T00:00:01.000Z' });
      expect(await refusal(key)).toEqual({
        status: 403,
        code: 'SUBSCRIPTION_NOT_STARTED',
        message: undefined,
        details: { starts_at: '2026-01-01T00:00:01.000Z' },
      });
      const { key: started } = await subscribed({ period_start: now.toISOString() });
      expect(await refusal(started)).toBe('served');
    });

    it('when the period has ended, then SUBSCRIPTION_EXPIRED names the end; just before it is served', async () => {
      const { key } = await subscribed({ period_end: now.toISOString() });
      expect(await refusal(key)).toEqual({
        status: 403,
        code: 'SUBSCRIPTION_EXPIRED',
        message: undefined,
        details: { expired_at: now.toISOString() },
      });
      const { key: running } = await subscribed({ period_end: new Date(now.getTime() + 1).toISOString() });
      expect(await refusal(running)).toBe('served');
    });

    it('when an unpaid trial has ended, then TRIAL_ENDED; a paid one, or one still running, is served', async () => {
      const ended = '2025-12-31T00:00:00.000Z';
      const { key } = await subscribed({ trial_ends_at: ended, paid: false });
      expect(await refusal(key)).toEqual({ status: 403, code: 'TRIAL_ENDED', message: undefined, details: { trial_ended_at: ended } });
      expect(await refusal((await subscribed({ trial_ends_at: ended, paid: true })).key)).toBe('served');
      expect(await refusal((await subscribed({ trial_ends_at: '2026-02-01T00:00:00.000Z', paid: false })).key)).toBe('served');
    });

    it('when an invoice is unpaid past its grace days, then GRACE_PERIOD_ENDED names the end; within the grace it is served', async () => {
      const { key } = await subscribed({ payment_due_at: '2025-12-25T00:00:00.000Z', grace_days: 7, paid: false });
      expect(await refusal(key)).toEqual({
        status: 403,
        code: 'GRACE_PERIOD_ENDED',
        message: undefined,
        details: { grace_period_ended_at: '2026-01-01T00:00:00.000Z' },
      });
      expect(await refusal((await subscribed({ payment_due_at: '2025-12-26T00:00:00.000Z', grace_days: 7, paid: false })).key)).toBe(
        'served',
      );
    });

    it('when a subscription is read back, then it is as set; bad bodies get 422 naming each field', async () => {
      const { clientId } = await subscribed({ period_end: '2027-01-01T04:00:00+04:00' });
      const read = await api.admin('GET', `/clients/${clientId}/subscription`);
      expect(read.body.data).toMatchObject({ client_id: clientId, revision: 0, period_end: '2027-01-01T00:00:00.000Z' });
      const bad = await api.admin('PUT', `/clients/${clientId}/subscription`, { status: 'paused', period_start: 'soon', grace_days: -1 });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.error.details.fields).sort()).toEqual([
        'body.grace_days',
        'body.paid',
        'body.payment_due_at',
        'body.period_end',
        'body.period_start',
        'body.status',
        'body.trial_ends_at',
      ]);
      expect((await api.admin('GET', `/clients/${(await api.issue()).clientId}/subscription`)).status).toBe(404);
    });
  });

  it('when the client is suspended or inactive, then its keys get CLIENT_SUSPENDED or CLIENT_INACTIVE until it is active again', async () => {
    const issued = await api.issue();
    for (const [status, code] of [
      ['suspended', 'CLIENT_SUSPENDED'],
      ['inactive', 'CLIENT_INACTIVE'],
    ] as const) {
      expect((await api.admin('PUT', `/clients/${issued.clientId}/status`, { status })).status).toBe(200);
      await api.settle();
      const answer = await api.get('/projects', issued.key);
      expect(answer.status, status).toBe(403);
      expect(answer.body.error.code).toBe(code);
    }
    await api.admin('PUT', `/clients/${issued.clientId}/status`, { status: 'active' });
    await api.settle();
    expect((await api.get('/projects', issued.key)).status).toBe(200);
  });

  it("when the plan is deactivated, then its clients' keys get PLAN_INACTIVE until it is active again", async () => {
    const issued = await api.issue();
    const client = (await api.admin('GET', `/clients/${issued.clientId}`)).body.data;
    await api.admin('PATCH', `/plans/${client.plan_id}`, { active: false });
    await api.settle();
    const answer = await api.get('/projects', issued.key);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('PLAN_INACTIVE');
    await api.admin('PATCH', `/plans/${client.plan_id}`, { active: true });
    await api.settle();
    expect((await api.get('/projects', issued.key)).status).toBe(200);
  });

  it('when the key comes in the query string, then it is refused and not used, even alongside a good header', async () => {
    for (const query of [`api_key=${key}`, `token=${key}`, `q=${key}`]) {
      const answer = await api.get(`/projects?${query}`, key);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('API_KEY_IN_QUERY');
      expect(JSON.stringify(answer.body)).not.toContain(key);
    }
  });

  it('when a working key is used, then it is accepted and the health check needs none', async () => {
    expect((await api.get('/projects/1', key)).status).toBe(200);
    expect((await request(api.app.baseUrl, '/v1/health')).status).toBe(200);
  });

  it('when a key lacks the scope of an endpoint, then 403 INSUFFICIENT_SCOPE names it before the input is even looked at', async () => {
    const narrow = await api.key({ scopes: ['developers:read'] });
    const answer = await api.get('/projects?per_page=500', narrow);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { missing_scopes: ['projects:read'], missing_entitlements: [] },
    });
    expect((await api.get('/developers', narrow)).status).toBe(200);
  });

  it('when an unknown /v1 path or another method is asked, then 404 / 405 in the error body, after authentication', async () => {
    expect((await api.get('/nothing-here', key)).body.error.code).toBe('NOT_FOUND');
    const post = await api.get('/projects', key, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect((await request(api.app.baseUrl, '/v1/nothing-here')).status).toBe(401);
  });
});

describe('conditional requests', () => {
  it('when If-None-Match carries the ETag (strong, weak, in a list or *), then 304 with an empty body', async () => {
    const first = await api.get('/projects/1', key);
    const etag = first.headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const answer = await api.get('/projects/1', key, { headers: { 'if-none-match': ifNoneMatch } });
      expect(answer.status, ifNoneMatch).toBe(304);
      expect(answer.body).toBe('');
      expect(answer.headers.get('etag')).toBe(etag);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
    expect((await api.get('/projects/1', key, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('when the payload changes, then the ETag changes; the same payload keeps it across requests', async () => {
    const before = (await api.get('/projects?sort=name', key)).headers.get('etag');
    expect((await api.get('/projects?sort=name', key)).headers.get('etag')).toBe(before);
    await api.given([projectEvent('ProjectRevised', 1, { changes: { name: 'Renamed' } }, minute(5))]);
    expect((await api.get('/projects?sort=name', key)).headers.get('etag')).not.toBe(before);
  });

  it('when the ETag of a list page is sent back for another page, then that page is not a 304', async () => {
    const pageOne = await api.get('/projects?per_page=1&page=1', key);
    const pageTwo = await api.get('/projects?per_page=1&page=2', key, { headers: { 'if-none-match': pageOne.headers.get('etag')! } });
    expect(pageTwo.status).toBe(200);
  });
});
