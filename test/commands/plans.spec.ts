import { describe, expect, it } from 'vitest';
import { decide as definePlan, type DefinePlan } from '../../commands/plans/definePlan.js';
import { decide as revisePlan } from '../../commands/plans/revisePlan.js';
import { planAggregate, type PlanEvent } from '../../src/access/plan.js';
import type { ValidationFailed } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

const aPlan = (overrides: Partial<DefinePlan> = {}): DefinePlan => ({
  key: 'starter',
  name: 'Starter',
  scopes: ['projects:read', 'developers:read'],
  entitlements: ['images'],
  active: true,
  detail_fields: null,
  limits: null,
  ...overrides,
});

const defined: PlanEvent = { type: 'PlanDefined', data: { plan_id: 1, ...aPlan(), at: '2024-01-01T00:00:00.000Z' } };

describe('definePlan', () => {
  const spec = deciderSpec(planAggregate, definePlan);

  it('when the default design is not among the enabled ones, then 422 names body.pdf_default_template', () => {
    spec
      .given([])
      .when(aPlan({ pdf_templates: ['minimal'], pdf_default_template: 'classic' }))
      .thenThrows('VALIDATION_FAILED');
  });

  it('when a new plan is defined, then PlanDefined carries its fields, id and time', () => {
    spec
      .given([])
      .when(aPlan(), { id: 3 })
      .then([{ type: 'PlanDefined', data: { plan_id: 3, ...aPlan(), at } }]);
  });

  it('when scopes and entitlements are given in any order, then they are recorded in the order the spec lists them', () => {
    spec
      .given([])
      .when(aPlan({ scopes: ['webhooks:manage', 'developers:read', 'projects:read'], entitlements: ['webhooks', 'floorplans'] }))
      .then([
        {
          type: 'PlanDefined',
          data: {
            plan_id: 1,
            ...aPlan({ scopes: ['projects:read', 'developers:read', 'webhooks:manage'], entitlements: ['floorplans', 'webhooks'] }),
            at,
          },
        },
      ]);
  });

  it('when the plan already exists, then it is refused with CONFLICT', () => {
    spec.given([defined]).when(aPlan()).thenThrows('CONFLICT');
  });
});

describe('revisePlan', () => {
  const spec = deciderSpec(planAggregate, revisePlan);

  it('when the plan limits its detail fields and later exposes all again, then each PlanRevised carries the list or null', () => {
    const limited: PlanEvent = { type: 'PlanRevised', data: { plan_id: 1, changes: { detail_fields: ['overview'] }, at } };
    spec
      .given([defined])
      .when({ detail_fields: ['overview'] })
      .then([limited]);
    spec
      .given([defined, limited])
      .when({ detail_fields: null })
      .then([{ type: 'PlanRevised', data: { plan_id: 1, changes: { detail_fields: null }, at } }]);
    spec
      .given([defined, limited])
      .when({ detail_fields: ['overview'] })
      .then([]);
  });

  it('when scopes are replaced and the plan deactivated, then PlanRevised carries both changes', () => {
    spec
      .given([defined])
      .when({ scopes: ['projects:read'], active: false })
      .then([{ type: 'PlanRevised', data: { plan_id: 1, changes: { scopes: ['projects:read'], active: false }, at } }]);
  });

  it('when the same scopes are given in another order, then nothing is emitted', () => {
    spec
      .given([defined])
      .when({ scopes: ['developers:read', 'projects:read'], name: 'Starter' })
      .then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([defined]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the designs are narrowed so that the default design is no longer enabled, then 422 names body.pdf_default_template', () => {
    const withDefault: PlanEvent = { type: 'PlanRevised', data: { plan_id: 1, changes: { pdf_default_template: 'bold' }, at } };
    const error = spec
      .given([defined, withDefault])
      .when({ pdf_templates: ['minimal', 'classic'] })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ValidationFailed).details).toEqual({
      fields: { 'body.pdf_default_template': "must be one of the plan's pdf_templates (minimal, classic)" },
    });
    spec
      .given([defined, withDefault])
      .when({ pdf_templates: ['minimal', 'classic'], pdf_default_template: 'minimal' })
      .then([
        {
          type: 'PlanRevised',
          data: { plan_id: 1, changes: { pdf_templates: ['minimal', 'classic'], pdf_default_template: 'minimal' }, at },
        },
      ]);
  });

  it('when the plan does not exist, then it is refused with NOT_FOUND', () => {
    const error = spec.given([]).when({ name: 'Basic' }).thenThrows('NOT_FOUND');
    expect(error.message).toBe('Plan 1 does not exist.');
  });
});
