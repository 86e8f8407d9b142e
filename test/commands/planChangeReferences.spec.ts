import { describe, expect, it } from 'vitest';
import * as authorisePlanChange from '../../commands/planChanges/authorisePlanChange.js';
import * as confirmPlanChangePayment from '../../commands/planChanges/confirmPlanChangePayment.js';
import * as submitPlanChange from '../../commands/planChanges/submitPlanChange.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { planChangeRequestAggregate, type PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import type { ApiError } from '../../src/domain/errors.js';
import { deciderSpec } from '../support/deciderSpec.js';

/** The rules of plan changes about the client and the plans, decided on the facts the handler read. */

const earlier = '2024-04-01T00:00:00.000Z';
const client4 = { 4: { revision: 3, plan_id: 2 } };
const starter = { id: 2, key: 'starter', active: true };
const professional = { id: 3, key: 'professional', active: true };
const legacy = { id: 5, key: 'legacy', active: false };

const requested: PlanChangeRequestEvent = {
  type: 'PlanChangeRequested',
  data: { request_id: 1, client_id: 4, from_plan_id: 2, to_plan_id: 3, note: null, at: earlier },
};
const reviewStarted: PlanChangeRequestEvent = { type: 'PlanChangeReviewStarted', data: { request_id: 1, client_id: 4, at: earlier } };
const approved: PlanChangeRequestEvent = {
  type: 'PlanChangeApproved',
  data: {
    request_id: 1,
    client_id: 4,
    invoice: { number: 'INV-000001', currency: 'AED', lines: [], total: 0, issued_at: earlier },
    at: earlier,
  },
};
const tookEffect: PlanChangeRequestEvent = {
  type: 'PlanChangeTookEffect',
  data: { request_id: 1, client_id: 4, via: 'payment', at: earlier },
};

describe('submitPlanChange references', () => {
  const spec = deciderSpec(planChangeRequestAggregate, submitPlanChange.decide, {
    references: accessFacts({ clients: client4, plans: [starter, professional, legacy] }),
  });

  it('when a change is submitted, then the client and the plan asked for are looked up', () => {
    expect(submitPlanChange.references({ client_id: 4, plan: 'professional' })).toEqual({ clients: [4], planKeys: ['professional'] });
  });

  it('when the client does not exist, then NOT_FOUND names it', () => {
    const error = spec.given([]).when({ client_id: 7, plan: 'professional' }).thenThrows('NOT_FOUND');
    expect(error.message).toBe('Client 7 does not exist.');
  });

  it('when If-Match names another revision of the client, then CONFLICT with both revisions', () => {
    const error = spec.given([]).when({ client_id: 4, plan: 'professional', expected_client_revision: 2 }).thenThrows('CONFLICT');
    expect((error as ApiError).details).toEqual({ expected_revision: 2, current_revision: 3 });
  });

  it('when the plan asked for is inactive or unknown, then VALIDATION_FAILED names body.plan', () => {
    const inactive = spec.given([]).when({ client_id: 4, plan: 'legacy' }).thenThrows('VALIDATION_FAILED');
    expect((inactive as ApiError).details).toEqual({ fields: { 'body.plan': "plan 'legacy' is not active" } });
    const unknown = spec.given([]).when({ client_id: 4, plan: 'platinum' }).thenThrows('VALIDATION_FAILED');
    expect((unknown as ApiError).details).toEqual({ fields: { 'body.plan': "no plan has the key 'platinum'" } });
  });

  it('when the caller saw the current revision, then the request records the plan the client is on', () => {
    spec
      .given([])
      .when({ client_id: 4, plan: 'professional', expected_client_revision: 3 })
      .then([
        {
          type: 'PlanChangeRequested',
          data: { request_id: 1, client_id: 4, from_plan_id: 2, to_plan_id: 3, note: null, at: '2024-05-01T10:00:00.000Z' },
        },
      ]);
  });
});

describe.each([
  ['confirmPlanChangePayment', confirmPlanChangePayment],
  ['authorisePlanChange', authorisePlanChange],
] as const)('%s references', (_name, slice) => {
  const deactivated = accessFacts({ plans: [{ ...professional, active: false }] });
  const spec = deciderSpec(planChangeRequestAggregate, slice.decide, { references: deactivated });

  it('when a request is read, then the plan it moves the client to is looked up', () => {
    const request = [requested, reviewStarted, approved].reduce(planChangeRequestAggregate.evolve, null);
    expect(slice.references({ client_id: 4 }, request)).toEqual({ planIds: [3] });
  });

  it('when the approved plan was deactivated since, then CONFLICT names the plan', () => {
    const error = spec.given([requested, reviewStarted, approved]).when({ client_id: 4 }).thenThrows('CONFLICT');
    expect((error as ApiError).details).toEqual({ plan: 'professional', plan_active: false });
  });

  it('when the request is already effective, then nothing is emitted whatever the plan has become', () => {
    spec.given([requested, reviewStarted, approved, tookEffect]).when({ client_id: 4 }).then([]);
  });
});
