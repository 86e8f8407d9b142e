import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/access/accessContext.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

let api: ApiFixture;
let limitedKey: string;
let fullKey: string;
let limitedPlanId: number;

const EXPOSED = ['overview', 'project_types'];

async function keyOnPlan(key: string, detailFields: string[] | null): Promise<{ apiKey: string; planId: number }> {
  const plan = await api.admin('POST', '/plans', { key, name: key, scopes: [...SCOPES], entitlements: [], detail_fields: detailFields });
  expect(plan.status).toBe(201);
  const client = await api.admin('POST', '/clients', { name: key, plan: key });
  const issued = await api.admin('POST', `/clients/${client.body.data.id}/keys`, { environment: 'live' });
  return { apiKey: issued.body.data.key, planId: plan.body.data.id };
}

beforeAll(async () => {
  api = await startApiFixture();
  await api.given([...publishedReferenceCatalogue(), projectCreated(1, {}, minute(1)), projectEvent('ProjectPublished', 1, {}, minute(1))]);
  const limited = await keyOnPlan('limited-fields', [...EXPOSED].reverse());
  limitedKey = limited.apiKey;
  limitedPlanId = limited.planId;
  fullKey = (await keyOnPlan('all-fields', null)).apiKey;
  await api.settle();
});

afterAll(async () => {
  await api.close();
});

describe('plan field access', () => {
  it('when a plan exposes some detail fields, then the detail answers null for the others, in the single detail and the detail batch alike', async () => {
    for (const [path, pick] of [
      ['/projects/1', (body: any) => body.data],
      ['/projects?ids=1&view=detail', (body: any) => body.data[0]],
    ] as const) {
      const limited = pick((await api.get(path, limitedKey)).body);
      const full = pick((await api.get(path, fullKey)).body);
      expect(limited.overview, path).toBe('Overview');
      expect(limited.project_types, path).toEqual(['Apartments']);
      for (const hidden of ['description', 'property_no', 'license_no', 'down_payment_percent']) {
        expect(limited[hidden], `${path} ${hidden}`).toBeNull();
        expect(full[hidden], `${path} ${hidden}`).not.toBeNull();
      }
      expect(limited.name).toBe(full.name);
    }
  });

  it('when the two clients ask in turns, then each keeps getting its own fields and its own ETag', async () => {
    const first = await api.get('/projects/1', limitedKey);
    const full = await api.get('/projects/1', fullKey);
    const again = await api.get('/projects/1', limitedKey);
    expect(again.body.data).toEqual(first.body.data);
    expect(full.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('when the plan is revised to expose every field, then its clients see them all', async () => {
    expect((await api.admin('GET', `/plans/${limitedPlanId}`)).body.data.detail_fields).toEqual(EXPOSED);
    const revised = await api.admin('PATCH', `/plans/${limitedPlanId}`, { detail_fields: null });
    expect(revised.body.data.detail_fields).toBeNull();
    await api.settle();
    expect((await api.get('/projects/1', limitedKey)).body.data.description).toBe('Description');
  });

  it('when a plan names an unknown detail field or repeats one, then 422 names body.detail_fields', async () => {
    for (const detailFields of [
      ['overview', 'price'],
      ['overview', 'overview'],
    ]) {
      const answer = await api.admin('POST', '/plans', {
        key: `bad-${detailFields[1]}`,
        name: 'Bad',
        scopes: [],
        entitlements: [],
        detail_fields: detailFields,
      });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.error.details.fields).some((field) => field.startsWith('body.detail_fields'))).toBe(true);
    }
  });
});
