import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { adminClient, idsOf, type AdminClient } from './adminListsSupport.js';

/** Evaluation Mode samples at least 50 published projects. */
const PUBLISHED_PROJECTS = 50;

const aSubscription = (overrides: Record<string, unknown>) => ({
  status: 'active',
  period_start: '2026-01-01T00:00:00Z',
  period_end: null,
  trial_ends_at: null,
  payment_due_at: null,
  grace_days: 7,
  paid: true,
  ...overrides,
});

describe('admin lists of plans, clients, keys, subscriptions and plan changes over HTTP', () => {
  let api: ApiFixture;
  let client: AdminClient;
  const world = {} as Record<'basic' | 'pro' | 'retired' | 'marina' | 'creek' | 'yas' | 'palm' | 'liveKey' | 'testKey', number> & {
    keys: string[];
    submitted: number;
    rejected: number;
  };

  beforeAll(async () => {
    api = await startApiFixture();
    const projects: StreamEvent[] = [];
    for (let id = 1; id <= PUBLISHED_PROJECTS; id++) {
      projects.push(projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id)));
    }
    await api.given([...publishedReferenceCatalogue(), ...projects]);
    client = await adminClient(api.app);
    const { accepted } = client;

    world.basic = (await accepted('POST', '/plans', { key: 'basic', name: 'Basic', scopes: ['projects:read'], entitlements: [] })).id;
    world.pro = (
      await accepted('POST', '/plans', {
        key: 'pro',
        name: 'Professional',
        scopes: ['projects:read', 'media:read'],
        entitlements: ['images'],
      })
    ).id;
    world.retired = (await accepted('POST', '/plans', { key: 'retired', name: 'Retired', scopes: [], entitlements: [] })).id;
    await accepted('PATCH', `/plans/${world.retired}`, { active: false });

    world.marina = (await accepted('POST', '/clients', { name: 'Marina Homes', plan: 'basic' })).id;
    world.creek = (await accepted('POST', '/clients', { name: 'Creek Agency', plan: 'pro', scopes: ['projects:read'] })).id;
    world.yas = (await accepted('POST', '/clients', { name: 'Yas Realty', plan: 'basic' })).id;
    world.palm = (await accepted('POST', '/clients', { name: 'Palm Estates', plan: 'basic' })).id;
    await accepted('PUT', `/clients/${world.marina}/account-token`, { account_token: 'marina-portal' });
    await accepted('PUT', `/clients/${world.creek}/status`, { status: 'suspended' });
    await accepted('POST', `/clients/${world.yas}/evaluation`, { sample_size: 50 });
    await accepted('POST', `/clients/${world.palm}/evaluation`, { sample_size: 50 });
    await accepted('POST', `/clients/${world.palm}/evaluation/pause`, {});

    const live = await accepted('POST', `/clients/${world.marina}/keys`, { environment: 'live' });
    const test = await accepted('POST', `/clients/${world.marina}/keys`, { environment: 'test' });
    const other = await accepted('POST', `/clients/${world.creek}/keys`, { environment: 'live' });
    world.liveKey = live.id;
    world.testKey = test.id;
    world.keys = [live.key, test.key, other.key];
    await accepted('POST', `/clients/${world.marina}/keys/${test.id}/revoke`);

    await accepted('PUT', `/clients/${world.marina}/subscription`, aSubscription({}));
    await accepted('PUT', `/clients/${world.creek}/subscription`, aSubscription({ status: 'draft', paid: false }));

    world.submitted = (await accepted('POST', `/clients/${world.marina}/plan-changes`, { plan: 'pro', note: 'Needs pictures' })).id;
    world.rejected = (await accepted('POST', `/clients/${world.yas}/plan-changes`, { plan: 'pro' })).id;
    await accepted('POST', `/clients/${world.yas}/plan-changes/${world.rejected}/review`);
    await accepted('POST', `/clients/${world.yas}/plan-changes/${world.rejected}/reject`, { reason: 'Evaluate first' });
    await client.projected();
  });
  afterAll(() => api.close());

  /** Plans of the fixture's own keys are there too; these tests look at the ones they made. */
  const mine = (answer: { body: { data: Array<{ id: number }> } }, ids: number[]) =>
    answer.body.data.filter((item) => ids.includes(item.id)).map((item) => item.id);

  it('when plans are listed, then each is the plan as a GET answers it, with its times; active and q filter them', async () => {
    const all = await client.admin('/plans');
    expect(all.status).toBe(200);
    client.expectDocumented('get', '/plans', all);
    expect(mine(all, [world.basic, world.pro, world.retired])).toEqual([world.basic, world.pro, world.retired]);
    const retired = (all.body.data as Array<{ id: number }>).find((plan) => plan.id === world.retired);
    const one = await client.admin(`/plans/${world.retired}`);
    expect(retired).toEqual({ ...one.body.data, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(one.headers.get('etag')).toBe('"1"');

    expect(idsOf(await client.admin('/plans?active=false'))).toEqual([world.retired]);
    expect(idsOf(await client.admin('/plans?q=profess'))).toEqual([world.pro]);
    expect(idsOf(await client.admin('/plans?q=pro&sort=-id'))).toEqual([world.pro]);
  });

  it('when clients are listed, then each is the client as a GET answers it (plan key, effective grants, revision), with its times', async () => {
    const answer = await client.admin('/clients?q=a&per_page=100');
    client.expectDocumented('get', '/clients', answer);
    for (const id of [world.marina, world.creek, world.yas, world.palm]) {
      const listed = (answer.body.data as Array<{ id: number }>).find((item) => item.id === id);
      const one = await client.admin(`/clients/${id}`);
      expect(listed).toEqual({ ...one.body.data, created_at: expect.any(String), updated_at: expect.any(String) });
    }
  });

  it.each([
    ['q matching an account token', 'q=marina-portal', ['marina']],
    ['q matching a name', 'q=REALTY', ['yas']],
    ['status', 'status=suspended', ['creek']],
    ['plan', 'plan=pro', ['creek']],
    ['a plan no client is on', 'plan=retired', []],
    ['a plan that does not exist', 'plan=gold', []],
    ['evaluation=active', 'evaluation=active', ['yas']],
    ['evaluation=paused', 'evaluation=paused', ['palm']],
    ['evaluation=none with plan', 'evaluation=none&plan=basic', ['marina']],
  ] as const)('when clients are filtered by %s, then only the matching ones are listed', async (_label, parameters, names) => {
    const answer = await client.admin(`/clients?${parameters}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(idsOf(answer)).toEqual(names.map((name) => world[name]));
  });

  it("when a client's keys are listed, then each shows its metadata and revision, never the key or its hash; status and environment filter them", async () => {
    const answer = await client.admin(`/clients/${world.marina}/keys`);
    client.expectDocumented('get', '/clients/{clientId}/keys', answer);
    expect(answer.body.data).toEqual([
      expect.objectContaining({ id: world.liveKey, environment: 'live', status: 'active', revision: 0 }),
      expect.objectContaining({ id: world.testKey, environment: 'test', status: 'revoked', revision: 1, revoked_at: expect.any(String) }),
    ]);
    expect(idsOf(await client.admin(`/clients/${world.marina}/keys?status=revoked`))).toEqual([world.testKey]);
    expect(idsOf(await client.admin(`/clients/${world.marina}/keys?environment=live`))).toEqual([world.liveKey]);
    const paged = await client.admin(`/clients/${world.marina}/keys?per_page=1&page=2&sort=-id`);
    expect(idsOf(paged)).toEqual([world.liveKey]);
    expect(paged.body.meta.pagination).toEqual({ page: 2, per_page: 1, total: 2, total_pages: 2 });

    const everything = JSON.stringify([answer.body, (await client.admin(`/clients/${world.creek}/keys`)).body]);
    for (const key of world.keys) {
      expect(everything).not.toContain(key.slice('svc_live_'.length));
      expect(everything).not.toContain(createHash('sha256').update(key).digest('hex'));
    }
    expect(everything).not.toContain('key_hash');
  });

  it('when the keys of a client that does not exist are listed, then 404', async () => {
    const answer = await client.admin('/clients/999999/keys');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });

  it('when subscriptions are listed, then each client that has one appears once, by client id; status, paid and client_id filter them', async () => {
    const answer = await client.admin('/subscriptions');
    client.expectDocumented('get', '/subscriptions', answer);
    const clientIds = (answer.body.data as Array<{ client_id: number }>).map((item) => item.client_id);
    expect(clientIds).toEqual([world.marina, world.creek]);
    const one = await client.admin(`/clients/${world.creek}/subscription`);
    expect(answer.body.data[1]).toEqual({ ...one.body.data, created_at: expect.any(String), updated_at: expect.any(String) });
    const drafts = await client.admin('/subscriptions?status=draft');
    expect(drafts.body.data.map((item: { client_id: number }) => item.client_id)).toEqual([world.creek]);
    expect((await client.admin('/subscriptions?paid=true')).body.data).toEqual([expect.objectContaining({ client_id: world.marina })]);
    expect((await client.admin(`/subscriptions?client_id=${world.yas}`)).body.data).toEqual([]);
  });

  it('when plan change requests are listed, then each carries its plans by key and its revision; status and client_id filter them', async () => {
    const answer = await client.admin('/plan-changes');
    client.expectDocumented('get', '/plan-changes', answer);
    expect(idsOf(answer)).toEqual([world.submitted, world.rejected]);
    const one = await client.admin(`/clients/${world.yas}/plan-changes/${world.rejected}`);
    expect(answer.body.data[1]).toEqual({ ...one.body.data, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(answer.body.data[1]).toMatchObject({ from_plan: 'basic', to_plan: 'pro', status: 'rejected', revision: 2 });

    expect(idsOf(await client.admin('/plan-changes?status=submitted'))).toEqual([world.submitted]);
    expect(idsOf(await client.admin(`/plan-changes?client_id=${world.yas}`))).toEqual([world.rejected]);
    expect(idsOf(await client.admin('/plan-changes?status=effective'))).toEqual([]);
  });

  it.each([
    ['/clients?plan_id=1', 'query.plan_id', 'is not a known field'],
    ['/clients?evaluation=yes', 'query.evaluation', 'must be one of active, paused, none'],
    ['/plans?active=1', 'query.active', 'must be true or false'],
    ['/subscriptions?client_id=first', 'query.client_id', 'must be a numeric id'],
    ['/plan-changes?status=open', 'query.status', expect.stringContaining('must be one of')],
    ['/clients/1/keys?hash=abc', 'query.hash', 'is not a known field'],
    ['/plan-changes?page=0', 'query.page', 'must be at least 1'],
  ])('when %s is asked, then 422 VALIDATION_FAILED names %s', async (path, field, problem) => {
    const answer = await client.admin(path);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { fields: { [field]: problem } } });
  });
});
