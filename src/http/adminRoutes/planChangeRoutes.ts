import { z } from 'zod';
import * as approvePlanChange from '../../../commands/planChanges/approvePlanChange.js';
import * as authorisePlanChange from '../../../commands/planChanges/authorisePlanChange.js';
import * as cancelPlanChange from '../../../commands/planChanges/cancelPlanChange.js';
import * as confirmPlanChangePayment from '../../../commands/planChanges/confirmPlanChangePayment.js';
import { makePlanChangeEffective } from '../../../commands/planChanges/planChangeHandlers.js';
import * as rejectPlanChange from '../../../commands/planChanges/rejectPlanChange.js';
import * as startPlanChangeReview from '../../../commands/planChanges/startPlanChangeReview.js';
import * as submitPlanChange from '../../../commands/planChanges/submitPlanChange.js';
import type { AccessSlice } from '../../access/accessReferences.js';
import { planAggregate, planKeySchema, type Plan } from '../../access/plan.js';
import {
  clientsPlanChange,
  PLAN_CHANGE_EFFECT_REASONS,
  PLAN_CHANGE_STATUSES,
  planChangeRequestAggregate,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../access/planChangeRequest.js';
import { loadAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import { createWithSlice, updateWithSlice } from '../../domain/commandSlice.js';
import { NotFound } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { accessFactsReader } from '../accessFacts.js';
import { clientParams, idSchema, pathId, revisionSchema, timestampSchema } from './adminSchemas.js';

const PLAN_CHANGES = 'Plan changes';

// Representations.

const minorUnitsSchema = z.number().int().nonnegative().meta({ description: "In the currency's minor unit (fils, cents)." });

const invoiceSchema = z
  .object({
    number: z.string().meta({ description: 'Allocated by the service, in issue order.', example: 'INV-000042' }),
    currency: z.string().meta({ description: 'ISO 4217 currency code.', example: 'AED' }),
    lines: z.array(
      z.object({
        description: z.string(),
        quantity: z.number().int().positive(),
        unit_amount: minorUnitsSchema,
        amount: minorUnitsSchema.meta({ description: "quantity × unit_amount, in the currency's minor unit." }),
      }),
    ),
    total: minorUnitsSchema.meta({ description: "The sum of the line amounts, in the currency's minor unit." }),
    issued_at: timestampSchema,
  })
  .meta({ id: 'AdminPlanChangeInvoice', description: 'The itemized invoice issued on approval.' });

export const planChangeResponseSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    client_id: idSchema,
    status: z.enum(PLAN_CHANGE_STATUSES).meta({
      description:
        'submitted → under_review → approved (invoiced) → effective; rejected (before approval) and cancelled (before approval) end it too.',
    }),
    from_plan: planKeySchema.meta({ description: 'The plan the client was on when it asked.' }),
    from_plan_id: idSchema,
    to_plan: planKeySchema.meta({ description: 'The plan asked for; the client is moved to it when the change takes effect.' }),
    to_plan_id: idSchema,
    note: z.string().nullable(),
    submitted_at: timestampSchema,
    invoice: invoiceSchema.nullable().meta({ description: 'Issued on approval; null before.' }),
    rejection_reason: z.string().nullable(),
    effective_via: z
      .enum(PLAN_CHANGE_EFFECT_REASONS)
      .nullable()
      .meta({ description: 'payment, or staff authorising active-but-unpaid; null until effective.' }),
    effective_at: timestampSchema.nullable(),
  })
  .meta({
    id: 'AdminPlanChangeRequest',
    description: "A client's request to move to another plan; its access is unchanged until it is effective.",
  });

async function planOf(eventStore: EventStore, id: number): Promise<Plan> {
  const plan = (await loadAggregate(eventStore, planAggregate, id))?.state;
  if (!plan) throw new Error(`A plan change request names plan ${id}, which does not exist.`);
  return plan;
}

async function planChangeRepresentation(
  eventStore: EventStore,
  id: number,
  loaded: LoadedAggregate<PlanChangeRequest | null>,
): Promise<AdminRouteResult> {
  const request = loaded.state;
  if (!request) throw new NotFound();
  const data: z.input<typeof planChangeResponseSchema> = {
    id,
    revision: loaded.revision,
    ...request,
    from_plan: (await planOf(eventStore, request.from_plan_id)).key,
    to_plan: (await planOf(eventStore, request.to_plan_id)).key,
  };
  return { data, revision: loaded.revision };
}

// References.

async function loadClientsRequest(
  eventStore: EventStore,
  clientId: number,
  requestId: number,
): Promise<LoadedAggregate<PlanChangeRequest | null>> {
  const loaded = await loadAggregate(eventStore, planChangeRequestAggregate, requestId);
  clientsPlanChange({ client_id: clientId }, loaded?.state ?? null, requestId);
  return loaded!;
}

// Routes.

const requestParams = z.object({ clientId: pathId, requestId: pathId }).strict();

/** Access is not altered here: the request is only recorded. If-Match names the client's revision (see submitPlanChange). */
const submitPlanChangeRoute: AdminRoute<typeof clientParams, typeof submitPlanChange.submitPlanChangeSchema> = {
  method: 'post',
  path: '/clients/:clientId/plan-changes',
  operationId: 'submitPlanChange',
  summary: 'Submit a request to move a client to another active plan (its access is unchanged until the change is effective)',
  tag: PLAN_CHANGES,
  params: clientParams,
  body: submitPlanChange.submitPlanChangeSchema,
  successStatus: 201,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await createWithSlice(deps, accessFactsReader(deps), {
      aggregate: planChangeRequestAggregate,
      actor,
      command: {
        ...body,
        client_id: params.clientId,
        ...(expectedRevision === undefined ? {} : { expected_client_revision: expectedRevision }),
      },
      slice: submitPlanChange,
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
};

const getPlanChangeRoute: AdminRoute<typeof requestParams> = {
  method: 'get',
  path: '/clients/:clientId/plan-changes/:requestId',
  operationId: 'getPlanChange',
  summary: "Read one of a client's plan change requests, with its invoice once approved",
  tag: PLAN_CHANGES,
  params: requestParams,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params }, deps) {
    return planChangeRepresentation(
      deps.eventStore,
      params.requestId,
      await loadClientsRequest(deps.eventStore, params.clientId, params.requestId),
    );
  },
};

type PlanChangeSlice<Body> = AccessSlice<Body & PlanChangeOfClient, PlanChangeRequest | null, PlanChangeRequestEvent>;

/** Without a body schema the route takes none (or an empty object), as every bodiless admin action does. */
const noBody = z.object({}).strict();

const planChangeCommand = <Body extends z.ZodType = typeof noBody>(options: {
  action: string;
  operationId: string;
  summary: string;
  body?: Body;
  slice: PlanChangeSlice<z.infer<Body>>;
}): AdminRoute<typeof requestParams, Body> => ({
  method: 'post',
  path: `/clients/:clientId/plan-changes/:requestId/${options.action}`,
  operationId: options.operationId,
  summary: options.summary,
  tag: PLAN_CHANGES,
  params: requestParams,
  ...(options.body ? { body: options.body } : {}),
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, accessFactsReader(deps), {
      aggregate: planChangeRequestAggregate,
      id: params.requestId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: { ...(body ?? {}), client_id: params.clientId } as z.infer<Body> & PlanChangeOfClient,
      slice: options.slice,
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
});

const startPlanChangeReviewRoute = planChangeCommand({
  action: 'review',
  operationId: 'startPlanChangeReview',
  summary: 'Start the staff review of a submitted plan change request (no-op when already under review)',
  slice: startPlanChangeReview,
});

const rejectPlanChangeRoute = planChangeCommand({
  action: 'reject',
  operationId: 'rejectPlanChange',
  summary: 'Reject a plan change request that is submitted or under review, with the reason',
  body: rejectPlanChange.rejectPlanChangeSchema,
  slice: rejectPlanChange,
});

const cancelPlanChangeRoute = planChangeCommand({
  action: 'cancel',
  operationId: 'cancelPlanChange',
  summary: 'Withdraw a plan change request before it is approved (no-op when already cancelled)',
  slice: cancelPlanChange,
});

/** The invoice number is claimed only once the approval is decided, so a refused approval leaves no gap. */
const approvePlanChangeRoute: AdminRoute<typeof requestParams, typeof approvePlanChange.approvePlanChangeSchema> = {
  method: 'post',
  path: '/clients/:clientId/plan-changes/:requestId/approve',
  operationId: 'approvePlanChange',
  summary: 'Approve a plan change request under review and issue its itemized invoice (access is still unchanged)',
  tag: PLAN_CHANGES,
  params: requestParams,
  body: approvePlanChange.approvePlanChangeSchema,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, accessFactsReader(deps), {
      aggregate: planChangeRequestAggregate,
      id: params.requestId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      allocate: ['invoice'],
      command: { ...body, client_id: params.clientId },
      slice: approvePlanChange,
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
};

/** See makePlanChangeEffective: the request takes effect, then the client moves to the new plan. */
const takeEffectRoute = (options: {
  action: string;
  operationId: string;
  summary: string;
  slice: AccessSlice<PlanChangeOfClient, PlanChangeRequest | null, PlanChangeRequestEvent>;
}): AdminRoute<typeof requestParams> => ({
  method: 'post',
  path: `/clients/:clientId/plan-changes/:requestId/${options.action}`,
  operationId: options.operationId,
  summary: options.summary,
  tag: PLAN_CHANGES,
  params: requestParams,
  successStatus: 200,
  response: planChangeResponseSchema,
  async handle({ params, expectedRevision, actor }, deps) {
    const result = await makePlanChangeEffective(deps, accessFactsReader(deps), {
      slice: options.slice,
      clientId: params.clientId,
      requestId: params.requestId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
    });
    return planChangeRepresentation(deps.eventStore, result.id, result);
  },
});

const confirmPlanChangePaymentRoute = takeEffectRoute({
  action: 'confirm-payment',
  operationId: 'confirmPlanChangePayment',
  summary: "Confirm payment of an approved plan change's invoice: it takes effect and the client moves to the new plan",
  slice: confirmPlanChangePayment,
});

const authorisePlanChangeRoute = takeEffectRoute({
  action: 'authorise',
  operationId: 'authorisePlanChange',
  summary: 'Authorise an approved plan change active-but-unpaid: it takes effect and the client moves to the new plan',
  slice: authorisePlanChange,
});

/** Admin operations on plan change requests: submitted, reviewed, approved (invoiced), then effective. */
export const planChangeRoutes: AdminRoute[] = [
  submitPlanChangeRoute,
  getPlanChangeRoute,
  startPlanChangeReviewRoute,
  approvePlanChangeRoute,
  rejectPlanChangeRoute,
  cancelPlanChangeRoute,
  confirmPlanChangePaymentRoute,
  authorisePlanChangeRoute,
];
