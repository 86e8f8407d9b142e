import { describe, expect, it } from 'vitest';
import * as addPaymentPlan from '../../../commands/projects/addPaymentPlan.js';
import * as removePaymentPlan from '../../../commands/projects/removePaymentPlan.js';
import * as revisePaymentPlan from '../../../commands/projects/revisePaymentPlan.js';
import { projectAggregate, type Milestone } from '../../../src/catalogue/project.js';
import type { ApiError } from '../../../src/domain/errors.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import { aPaymentPlan, now, paymentPlanAdded, projectCreated, projectDeleted, projectId } from './projectBuilders.js';

const milestones = (...percents: number[]): Milestone[] =>
  percents.map((percent, index) => ({ label: `Instalment ${index + 1}`, percent, due: null }));

describe('addPaymentPlan', () => {
  const spec = deciderSpec(projectAggregate, addPaymentPlan.decide);

  it('when a payment plan is added, then PaymentPlanAdded carries it under the allocated id', () => {
    spec
      .given([projectCreated()])
      .when({ name: '50/50', milestones: milestones(50, 50) }, { allocatedIds: { paymentPlan: 31 } })
      .then([
        {
          type: 'PaymentPlanAdded',
          data: { project_id: projectId, payment_plan: { payment_plan_id: 31, name: '50/50', milestones: milestones(50, 50) }, at: now },
        },
      ]);
  });

  it('when thirds are given with two decimals, then their sum counts as 100', () => {
    spec
      .given([projectCreated()])
      .when({ name: 'Thirds', milestones: milestones(33.33, 33.33, 33.34) }, { allocatedIds: { paymentPlan: 31 } })
      .then([
        {
          type: 'PaymentPlanAdded',
          data: {
            project_id: projectId,
            payment_plan: { payment_plan_id: 31, name: 'Thirds', milestones: milestones(33.33, 33.33, 33.34) },
            at: now,
          },
        },
      ]);
  });

  it('when the percents do not sum to 100, then it is refused naming body.milestones', () => {
    const error = spec
      .given([projectCreated()])
      .when({ name: 'Short', milestones: milestones(20, 70) }, { allocatedIds: { paymentPlan: 31 } })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.milestones': 'percents must sum to 100; they sum to 90' } });
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec
      .given([projectCreated(), projectDeleted()])
      .when({ name: '50/50', milestones: milestones(50, 50) }, { allocatedIds: { paymentPlan: 31 } })
      .thenThrows('PROJECT_DELETED');
  });

  it('when there is no milestone, then the schema refuses it', () => {
    expect(addPaymentPlan.addPaymentPlanSchema.safeParse({ name: 'None', milestones: [] }).success).toBe(false);
  });
});

describe('revisePaymentPlan', () => {
  const spec = deciderSpec(projectAggregate, revisePaymentPlan.decide);

  it('when the milestones are replaced, then PaymentPlanRevised carries them', () => {
    spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31))])
      .when({ payment_plan_id: 31, milestones: milestones(10, 90) })
      .then([
        {
          type: 'PaymentPlanRevised',
          data: { project_id: projectId, payment_plan_id: 31, changes: { milestones: milestones(10, 90) }, at: now },
        },
      ]);
  });

  it('when the name is the current one, then nothing is emitted', () => {
    spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31))])
      .when({ payment_plan_id: 31, name: '60/40' })
      .then([]);
  });

  it('when the new milestones do not sum to 100, then it is refused naming body.milestones', () => {
    const error = spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31))])
      .when({ payment_plan_id: 31, milestones: milestones(60, 60) })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.milestones': 'percents must sum to 100; they sum to 120' } });
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31))])
      .when({ payment_plan_id: 31 })
      .thenThrows('VALIDATION_FAILED');
  });

  it('when the payment plan is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ payment_plan_id: 32, name: 'x' }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Payment plan 32');
  });
});

describe('removePaymentPlan', () => {
  const spec = deciderSpec(projectAggregate, removePaymentPlan.decide);

  it('when a payment plan is removed, then PaymentPlanRemoved', () => {
    spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31))])
      .when({ payment_plan_id: 31 })
      .then([{ type: 'PaymentPlanRemoved', data: { project_id: projectId, payment_plan_id: 31, at: now } }]);
  });

  it('when the payment plan is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ payment_plan_id: 31 }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Payment plan 31');
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec
      .given([projectCreated(), paymentPlanAdded(aPaymentPlan(31)), projectDeleted()])
      .when({ payment_plan_id: 31 })
      .thenThrows('PROJECT_DELETED');
  });
});
