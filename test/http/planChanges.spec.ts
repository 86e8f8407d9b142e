import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChangeRequestStream } from '../../src/access/planChangeRequest.js';
import { request } from '../support/http.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';

let api: ApiFixture;

/** The target plan grants developers:read on top of projects:read, which is all the clients start with. */
const WIDE = 'wide';

beforeAll(async () => {
  api = await startApiFixture();
  await api.given(publishedReferenceCatalogue());
  const wide = await api.admin('POST', '/plans', {
    key: WIDE,
    name: 'Wide',
    scopes: ['projects:read', 'developers:read'],
    entitlements: [],
  });
  expect(wide.status).toBe(201);
});

afterAll(async () => {
  await api.close();
});

const narrowClient = () => api.issue({ scopes: ['projects:read'], entitlements: [] });
const base = (issued: IssuedKey) => `/clients/${issued.clientId}/plan-changes`;
const lines = [
  { description: 'Wide plan, 12 months', quantity: 12, unit_amount: 99_950 },
  { description: 'Onboarding', quantity: 1, unit_amount: 50_000 },
];

/** What the key may do now, as /v1 answers it once the access projection has caught up. */
const developersStatus = async (issued: IssuedKey) => {
  await api.settle();
  return (await api.get('/developers', issued.key)).status;
};

async function submitted(issued: IssuedKey): Promise<number> {
  const answer = await api.admin('POST', base(issued), { plan: WIDE });
  expect(answer.status).toBe(201);
  return answer.body.data.id;
}

async function approved(issued: IssuedKey): Promise<number> {
  const id = await submitted(issued);
  expect((await api.admin('POST', `${base(issued)}/${id}/review`)).status).toBe(200);
  expect((await api.admin('POST', `${base(issued)}/${id}/approve`, { currency: 'AED', lines })).status).toBe(200);
  return id;
}

const clientPlan = async (issued: IssuedKey) => (await api.admin('GET', `/clients/${issued.clientId}`)).body.data.plan;

describe('plan change requests over the admin API', () => {
  it('when a request is submitted, reviewed, approved and paid, then access changes only on payment, to the new plan', async () => {
    const issued = await narrowClient();
    const oldPlan = await clientPlan(issued);
    expect(await developersStatus(issued)).toBe(403);

    const submittedAnswer = await api.admin('POST', base(issued), { plan: WIDE, note: 'We need developers' });
    expect(submittedAnswer.status).toBe(201);
    expect(submittedAnswer.headers.get('etag')).toBe('"0"');
    const id = submittedAnswer.body.data.id;
    expect(submittedAnswer.body.data).toEqual({
      id: expect.any(Number),
      revision: 0,
      client_id: issued.clientId,
      status: 'submitted',
      from_plan: oldPlan,
      from_plan_id: expect.any(Number),
      to_plan: WIDE,
      to_plan_id: expect.any(Number),
      note: 'We need developers',
      submitted_at: expect.any(String),
      invoice: null,
      rejection_reason: null,
      effective_via: null,
      effective_at: null,
    });
    expect(await developersStatus(issued)).toBe(403);

    const review = await api.admin('POST', `${base(issued)}/${id}/review`);
    expect(review.body.data).toMatchObject({ status: 'under_review', revision: 1 });

    const approval = await api.admin('POST', `${base(issued)}/${id}/approve`, { currency: 'AED', lines });
    expect(approval.status).toBe(200);
    expect(approval.body.data.status).toBe('approved');
    expect(approval.body.data.invoice).toEqual({
      number: expect.stringMatching(/^INV-\d{6}$/),
      currency: 'AED',
      lines: [
        { description: 'Wide plan, 12 months', quantity: 12, unit_amount: 99_950, amount: 1_199_400 },
        { description: 'Onboarding', quantity: 1, unit_amount: 50_000, amount: 50_000 },
      ],
      total: 1_249_400,
      issued_at: expect.any(String),
    });
    expect(await developersStatus(issued)).toBe(403);
    expect(await clientPlan(issued)).toBe(oldPlan);

    const paid = await api.admin('POST', `${base(issued)}/${id}/confirm-payment`);
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'effective', effective_via: 'payment', effective_at: expect.any(String) });
    expect(await clientPlan(issued)).toBe(WIDE);
    expect(await developersStatus(issued)).toBe(200);

    const read = await api.admin('GET', `${base(issued)}/${id}`);
    expect(read.body.data).toEqual(paid.body.data);
    expect(read.headers.get('etag')).toBe(`"${paid.body.data.revision}"`);
  });

  it("when staff authorise an approved request active-but-unpaid, then the key gets the new plan's grants", async () => {
    const issued = await narrowClient();
    const id = await approved(issued);
    expect(await developersStatus(issued)).toBe(403);
    const authorised = await api.admin('POST', `${base(issued)}/${id}/authorise`);
    expect(authorised.status).toBe(200);
    expect(authorised.body.data).toMatchObject({ status: 'effective', effective_via: 'staff_authorisation' });
    expect(await developersStatus(issued)).toBe(200);
  });

  it('when the change is recorded as effective but the client was not moved, then calling the route again moves it and records nothing more', async () => {
    const issued = await narrowClient();
    const id = await approved(issued);
    // What a failure between the two appends leaves behind: the request effective, the client on its old plan.
    await api.app.eventStore.appendToStream(
      planChangeRequestStream(id),
      [
        {
          type: 'PlanChangeTookEffect',
          data: { request_id: id, client_id: issued.clientId, via: 'payment', at: new Date().toISOString() },
        },
      ],
      { expectedRevision: 2 },
    );
    expect(await developersStatus(issued)).toBe(403);

    const retried = await api.admin('POST', `${base(issued)}/${id}/confirm-payment`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'effective', effective_via: 'payment', revision: 3 });
    expect(await clientPlan(issued)).toBe(WIDE);
    expect(await developersStatus(issued)).toBe(200);

    const client = await api.admin('GET', `/clients/${issued.clientId}`);
    const again = await api.admin('POST', `${base(issued)}/${id}/authorise`);
    expect(again.body.data).toMatchObject({ revision: 3, effective_via: 'payment' });
    expect((await api.admin('GET', `/clients/${issued.clientId}`)).body.data.revision).toBe(client.body.data.revision);
  });

  it('when the approved plan was deactivated meanwhile, then taking effect is refused with 409 and nothing changes until it is active again', async () => {
    const issued = await narrowClient();
    const id = await approved(issued);
    const target = (await api.admin('GET', `${base(issued)}/${id}`)).body.data.to_plan_id;
    await api.admin('PATCH', `/plans/${target}`, { active: false });
    const refused = await api.admin('POST', `${base(issued)}/${id}/confirm-payment`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { plan: WIDE, plan_active: false } });
    expect((await api.admin('GET', `${base(issued)}/${id}`)).body.data.status).toBe('approved');
    expect(await clientPlan(issued)).not.toBe(WIDE);

    await api.admin('PATCH', `/plans/${target}`, { active: true });
    expect((await api.admin('POST', `${base(issued)}/${id}/confirm-payment`)).status).toBe(200);
    expect(await developersStatus(issued)).toBe(200);
  });

  it('when a transition is not allowed from the current state, then 409 CONFLICT names that state and nothing is written', async () => {
    const issued = await narrowClient();
    const id = await submitted(issued);
    const path = `${base(issued)}/${id}`;
    const refusal = async (action: string, body?: unknown) => {
      const answer = await api.admin('POST', `${path}/${action}`, body);
      expect(answer.status, action).toBe(409);
      expect(answer.body.error.code).toBe('CONFLICT');
      return answer.body.error.details;
    };

    expect(await refusal('approve', { currency: 'AED', lines })).toEqual({ status: 'submitted', allowed_from: ['under_review'] });
    expect(await refusal('confirm-payment')).toEqual({ status: 'submitted', allowed_from: ['approved'] });
    await api.admin('POST', `${path}/review`);
    expect(await refusal('authorise')).toEqual({ status: 'under_review', allowed_from: ['approved'] });
    await api.admin('POST', `${path}/approve`, { currency: 'AED', lines });
    expect(await refusal('cancel')).toEqual({ status: 'approved', allowed_from: ['submitted', 'under_review'] });
    expect(await refusal('reject', { reason: 'Too late' })).toEqual({ status: 'approved', allowed_from: ['submitted', 'under_review'] });
    expect(await refusal('approve', { currency: 'AED', lines })).toEqual({ status: 'approved', allowed_from: ['under_review'] });
    expect((await api.admin('GET', path)).body.data).toMatchObject({ status: 'approved', revision: 2 });

    const rejectedId = await submitted(issued);
    const rejected = await api.admin('POST', `${base(issued)}/${rejectedId}/reject`, { reason: 'Not offered in your region' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Not offered in your region' });
    const cancelledId = await submitted(issued);
    expect((await api.admin('POST', `${base(issued)}/${cancelledId}/cancel`)).body.data.status).toBe('cancelled');
    expect((await api.admin('POST', `${base(issued)}/${cancelledId}/cancel`)).body.data).toMatchObject({
      status: 'cancelled',
      revision: 1,
    });
    expect((await api.admin('POST', `${base(issued)}/${cancelledId}/review`)).body.error.details.status).toBe('cancelled');
    expect(await developersStatus(issued)).toBe(403);
  });

  it('when a submission names no plan, an unknown, inactive or the current plan, or an unknown field, then 422 names each field', async () => {
    const issued = await narrowClient();
    const fieldsOf = async (body: unknown) => {
      const answer = await api.admin('POST', base(issued), body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      return answer.body.error.details.fields;
    };
    expect(Object.keys(await fieldsOf({}))).toEqual(['body.plan']);
    expect(Object.keys(await fieldsOf({ plan: WIDE, note: '', extra: 1 })).sort()).toEqual(['body.extra', 'body.note']);
    expect(await fieldsOf({ plan: 'no-such-plan' })).toEqual({ 'body.plan': "no plan has the key 'no-such-plan'" });
    await api.admin('POST', '/plans', { key: 'retired', name: 'Retired', scopes: [], entitlements: [], active: false });
    expect(await fieldsOf({ plan: 'retired' })).toEqual({ 'body.plan': "plan 'retired' is not active" });
    expect(await fieldsOf({ plan: await clientPlan(issued) })).toEqual({ 'body.plan': 'the client is already on this plan' });
  });

  it('when an approval or rejection body is wrong, then 422 names each field and money is never a decimal', async () => {
    const issued = await narrowClient();
    const id = await submitted(issued);
    await api.admin('POST', `${base(issued)}/${id}/review`);
    const approve = await api.admin('POST', `${base(issued)}/${id}/approve`, {
      currency: 'aed',
      lines: [{ description: '', quantity: 0, unit_amount: 12.5, vat: 5 }],
      discount: 1,
    });
    expect(approve.status).toBe(422);
    expect(Object.keys(approve.body.error.details.fields).sort()).toEqual([
      'body.currency',
      'body.discount',
      'body.lines.0.description',
      'body.lines.0.quantity',
      'body.lines.0.unit_amount',
      'body.lines.0.vat',
    ]);
    const noLines = await api.admin('POST', `${base(issued)}/${id}/approve`, { currency: 'AED', lines: [] });
    expect(Object.keys(noLines.body.error.details.fields)).toEqual(['body.lines']);
    const decimalString = await api.admin('POST', `${base(issued)}/${id}/approve`, {
      currency: 'AED',
      lines: [{ description: 'Plan', quantity: 1, unit_amount: '999.50' }],
    });
    expect(Object.keys(decimalString.body.error.details.fields)).toEqual(['body.lines.0.unit_amount']);
    const reject = await api.admin('POST', `${base(issued)}/${id}/reject`, {});
    expect(reject.status).toBe(422);
    expect(Object.keys(reject.body.error.details.fields)).toEqual(['body.reason']);
    const review = await api.admin('POST', `${base(issued)}/${id}/review`, { note: 'x' });
    expect(review.body.error.details.fields).toEqual({ 'body.note': 'is not a known field' });
    expect((await api.admin('GET', `${base(issued)}/${id}`)).body.data).toMatchObject({ status: 'under_review', invoice: null });
  });

  it("when the client or the request is unknown, or the request is another client's, then 404; a malformed id is 422", async () => {
    const issued = await narrowClient();
    const other = await narrowClient();
    const id = await submitted(issued);
    expect((await api.admin('POST', '/clients/999999/plan-changes', { plan: WIDE })).status).toBe(404);
    expect((await api.admin('GET', `${base(issued)}/999999`)).status).toBe(404);
    expect((await api.admin('POST', `${base(issued)}/999999/review`)).status).toBe(404);
    expect((await api.admin('POST', `${base(issued)}/999999/approve`, { currency: 'AED', lines })).status).toBe(404);
    expect((await api.admin('POST', `${base(issued)}/999999/confirm-payment`)).status).toBe(404);
    for (const action of ['review', 'cancel', 'confirm-payment', 'authorise']) {
      expect((await api.admin('POST', `${base(other)}/${id}/${action}`)).status, action).toBe(404);
    }
    expect((await api.admin('GET', `${base(other)}/${id}`)).status).toBe(404);
    const malformed = await api.admin('GET', `${base(issued)}/abc`);
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.error.details.fields)).toEqual(['params.requestId']);
  });

  it('when If-Match names a stale client revision on submission, then 409 CONFLICT; the current one is accepted', async () => {
    const issued = await narrowClient();
    const submit = (ifMatch: string) =>
      request(api.app.baseUrl, `/admin/v1${base(issued)}`, {
        method: 'POST',
        token: api.app.adminToken,
        headers: { 'if-match': ifMatch },
        body: { plan: WIDE },
      });
    const clientRevision = (await api.admin('GET', `/clients/${issued.clientId}`)).body.data.revision;
    const stale = await submit(`"${clientRevision + 1}"`);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('CONFLICT');
    expect((await submit(`"${clientRevision}"`)).status).toBe(201);
  });
});
