import { describe, expect, it } from 'vitest';
import { decide as approvePlanChange, type ApprovePlanChange } from '../../commands/planChanges/approvePlanChange.js';
import { decide as authorisePlanChange } from '../../commands/planChanges/authorisePlanChange.js';
import { decide as cancelPlanChange } from '../../commands/planChanges/cancelPlanChange.js';
import { decide as confirmPlanChangePayment } from '../../commands/planChanges/confirmPlanChangePayment.js';
import { decide as rejectPlanChange } from '../../commands/planChanges/rejectPlanChange.js';
import { decide as startPlanChangeReview } from '../../commands/planChanges/startPlanChangeReview.js';
import { decide as submitPlanChange } from '../../commands/planChanges/submitPlanChange.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { planChangeRequestAggregate, type Invoice, type PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import { ApiError } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;
const ofClient = { client_id: 4 };
/** Client 4 is on plan 2 (starter); plan 3 (professional) takes clients. */
const references = accessFacts({
  clients: { 4: { revision: 0, plan_id: 2 } },
  plans: [
    { id: 2, key: 'starter', active: true },
    { id: 3, key: 'professional', active: true },
  ],
});

const requested: PlanChangeRequestEvent = {
  type: 'PlanChangeRequested',
  data: { request_id: 1, client_id: 4, from_plan_id: 2, to_plan_id: 3, note: null, at: '2024-04-01T00:00:00.000Z' },
};
const reviewStarted: PlanChangeRequestEvent = {
  type: 'PlanChangeReviewStarted',
  data: { request_id: 1, client_id: 4, at: '2024-04-02T00:00:00.000Z' },
};
const invoice: Invoice = {
  number: 'INV-000001',
  currency: 'AED',
  lines: [{ description: 'Professional plan, 12 months', quantity: 1, unit_amount: 1_200_000, amount: 1_200_000 }],
  total: 1_200_000,
  issued_at: '2024-04-03T00:00:00.000Z',
};
const approved: PlanChangeRequestEvent = {
  type: 'PlanChangeApproved',
  data: { request_id: 1, client_id: 4, invoice, at: '2024-04-03T00:00:00.000Z' },
};
const rejected: PlanChangeRequestEvent = {
  type: 'PlanChangeRejected',
  data: { request_id: 1, client_id: 4, reason: 'No', at: '2024-04-03T00:00:00.000Z' },
};
const cancelled: PlanChangeRequestEvent = {
  type: 'PlanChangeCancelled',
  data: { request_id: 1, client_id: 4, at: '2024-04-03T00:00:00.000Z' },
};
const tookEffect: PlanChangeRequestEvent = {
  type: 'PlanChangeTookEffect',
  data: { request_id: 1, client_id: 4, via: 'payment', at: '2024-04-04T00:00:00.000Z' },
};

const detailsOf = (error: Error) => {
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).details;
};

describe('submitPlanChange', () => {
  const spec = deciderSpec(planChangeRequestAggregate, submitPlanChange, { references });

  it('when a client asks for another plan, then PlanChangeRequested records both plans and the note', () => {
    spec
      .given([])
      .when({ client_id: 4, plan: 'professional', note: 'More media' }, { id: 9 })
      .then([
        { type: 'PlanChangeRequested', data: { request_id: 9, client_id: 4, from_plan_id: 2, to_plan_id: 3, note: 'More media', at } },
      ]);
  });

  it('when no note is given, then the note is recorded as null', () => {
    spec
      .given([])
      .when({ client_id: 4, plan: 'professional' })
      .then([{ type: 'PlanChangeRequested', data: { request_id: 1, client_id: 4, from_plan_id: 2, to_plan_id: 3, note: null, at } }]);
  });

  it('when the client asks for the plan it is on, then VALIDATION_FAILED names body.plan', () => {
    const error = spec.given([]).when({ client_id: 4, plan: 'starter' }).thenThrows('VALIDATION_FAILED');
    expect(detailsOf(error)).toEqual({ fields: { 'body.plan': 'the client is already on this plan' } });
  });

  it('when the request already exists, then it is refused with CONFLICT', () => {
    spec.given([requested]).when({ client_id: 4, plan: 'professional' }).thenThrows('CONFLICT');
  });
});

describe('startPlanChangeReview', () => {
  const spec = deciderSpec(planChangeRequestAggregate, startPlanChangeReview);

  it('when a submitted request is taken up, then PlanChangeReviewStarted', () => {
    spec
      .given([requested])
      .when(ofClient)
      .then([{ type: 'PlanChangeReviewStarted', data: { request_id: 1, client_id: 4, at } }]);
  });

  it('when the review is already under way, then nothing is emitted', () => {
    spec.given([requested, reviewStarted]).when(ofClient).then([]);
  });

  it.each([
    ['approved', [requested, reviewStarted, approved]],
    ['rejected', [requested, rejected]],
    ['cancelled', [requested, cancelled]],
    ['effective', [requested, reviewStarted, approved, tookEffect]],
  ] as const)('when the request is %s, then CONFLICT names that state', (status, history) => {
    const error = spec
      .given([...history])
      .when(ofClient)
      .thenThrows('CONFLICT');
    expect(detailsOf(error)).toEqual({ status, allowed_from: ['submitted'] });
  });

  it('when the request belongs to another client or does not exist, then NOT_FOUND', () => {
    spec.given([requested]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
    spec.given([]).when(ofClient).thenThrows('NOT_FOUND');
  });
});

describe('approvePlanChange', () => {
  const spec = deciderSpec(planChangeRequestAggregate, approvePlanChange);
  const approval: ApprovePlanChange = {
    client_id: 4,
    currency: 'AED',
    lines: [
      { description: 'Professional plan, 12 months', quantity: 12, unit_amount: 99_950 },
      { description: 'Onboarding', quantity: 1, unit_amount: 0 },
    ],
  };
  const allocated = { allocatedIds: { invoice: 42 } };

  it('when a request under review is approved, then the invoice carries each line amount, the total and its allocated number', () => {
    spec
      .given([requested, reviewStarted])
      .when(approval, allocated)
      .then([
        {
          type: 'PlanChangeApproved',
          data: {
            request_id: 1,
            client_id: 4,
            invoice: {
              number: 'INV-000042',
              currency: 'AED',
              lines: [
                { description: 'Professional plan, 12 months', quantity: 12, unit_amount: 99_950, amount: 1_199_400 },
                { description: 'Onboarding', quantity: 1, unit_amount: 0, amount: 0 },
              ],
              total: 1_199_400,
              issued_at: at,
            },
            at,
          },
        },
      ]);
  });

  it.each([
    ['submitted', [requested]],
    ['approved', [requested, reviewStarted, approved]],
    ['rejected', [requested, rejected]],
    ['cancelled', [requested, cancelled]],
    ['effective', [requested, reviewStarted, approved, tookEffect]],
  ] as const)('when the request is %s, then CONFLICT names that state', (status, history) => {
    const error = spec
      .given([...history])
      .when(approval, allocated)
      .thenThrows('CONFLICT');
    expect(detailsOf(error)).toEqual({ status, allowed_from: ['under_review'] });
  });

  it('when the request belongs to another client, then NOT_FOUND', () => {
    spec
      .given([requested, reviewStarted])
      .when({ ...approval, client_id: 5 }, allocated)
      .thenThrows('NOT_FOUND');
  });
});

describe('rejectPlanChange', () => {
  const spec = deciderSpec(planChangeRequestAggregate, rejectPlanChange);

  it.each([
    ['submitted', [requested]],
    ['under review', [requested, reviewStarted]],
  ] as const)('when a request %s is rejected, then PlanChangeRejected records the reason', (_status, history) => {
    spec
      .given([...history])
      .when({ client_id: 4, reason: 'Not offered in your region' })
      .then([{ type: 'PlanChangeRejected', data: { request_id: 1, client_id: 4, reason: 'Not offered in your region', at } }]);
  });

  it.each([
    ['approved', [requested, reviewStarted, approved]],
    ['rejected', [requested, rejected]],
    ['cancelled', [requested, cancelled]],
    ['effective', [requested, reviewStarted, approved, tookEffect]],
  ] as const)('when the request is %s, then CONFLICT names that state', (status, history) => {
    const error = spec
      .given([...history])
      .when({ client_id: 4, reason: 'No' })
      .thenThrows('CONFLICT');
    expect(detailsOf(error)).toEqual({ status, allowed_from: ['submitted', 'under_review'] });
  });
});

describe('cancelPlanChange', () => {
  const spec = deciderSpec(planChangeRequestAggregate, cancelPlanChange);

  it.each([
    ['submitted', [requested]],
    ['under review', [requested, reviewStarted]],
  ] as const)('when a request %s is withdrawn, then PlanChangeCancelled', (_status, history) => {
    spec
      .given([...history])
      .when(ofClient)
      .then([{ type: 'PlanChangeCancelled', data: { request_id: 1, client_id: 4, at } }]);
  });

  it('when the request is already cancelled, then nothing is emitted', () => {
    spec.given([requested, cancelled]).when(ofClient).then([]);
  });

  it.each([
    ['approved', [requested, reviewStarted, approved]],
    ['rejected', [requested, rejected]],
    ['effective', [requested, reviewStarted, approved, tookEffect]],
  ] as const)('when the request is %s, then CONFLICT names that state', (status, history) => {
    const error = spec
      .given([...history])
      .when(ofClient)
      .thenThrows('CONFLICT');
    expect(detailsOf(error)).toEqual({ status, allowed_from: ['submitted', 'under_review'] });
  });
});

describe.each([
  ['confirmPlanChangePayment', confirmPlanChangePayment, 'payment'],
  ['authorisePlanChange', authorisePlanChange, 'staff_authorisation'],
] as const)('%s', (_name, decide, via) => {
  const spec = deciderSpec(planChangeRequestAggregate, decide, { references });

  it(`when an approved request takes effect, then PlanChangeTookEffect records ${via}`, () => {
    spec
      .given([requested, reviewStarted, approved])
      .when(ofClient)
      .then([{ type: 'PlanChangeTookEffect', data: { request_id: 1, client_id: 4, via, at } }]);
  });

  it('when the request is already effective, then nothing is emitted, so the route can finish the client move', () => {
    spec.given([requested, reviewStarted, approved, tookEffect]).when(ofClient).then([]);
  });

  it.each([
    ['submitted', [requested]],
    ['under_review', [requested, reviewStarted]],
    ['rejected', [requested, rejected]],
    ['cancelled', [requested, cancelled]],
  ] as const)('when the request is %s, then CONFLICT names that state', (status, history) => {
    const error = spec
      .given([...history])
      .when(ofClient)
      .thenThrows('CONFLICT');
    expect(detailsOf(error)).toEqual({ status, allowed_from: ['approved'] });
  });

  it('when the request belongs to another client, then NOT_FOUND', () => {
    spec.given([requested, reviewStarted, approved]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
  });
});
