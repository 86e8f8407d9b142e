import { assertNever, type Aggregate } from '../domain/decider.js';
import { Conflict, NotFound } from '../domain/errors.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

export const PLAN_CHANGE_STATUSES = ['submitted', 'under_review', 'approved', 'effective', 'rejected', 'cancelled'] as const;
export type PlanChangeStatus = (typeof PLAN_CHANGE_STATUSES)[number];

export const PLAN_CHANGE_EFFECT_REASONS = ['payment', 'staff_authorisation'] as const;
export type PlanChangeEffectReason = (typeof PLAN_CHANGE_EFFECT_REASONS)[number];

/**
 * Amounts are integers in the currency's minor unit (fils, cents; 1500.00 AED is 150000): sums and
 * products stay exact, and the invoice needs no knowledge of each currency's decimal places.
 */
export interface InvoiceLine {
  description: string;
  quantity: number;
  unit_amount: number;
  amount: number;
}

export interface Invoice {
  number: string;
  currency: string;
  lines: InvoiceLine[];
  total: number;
  issued_at: string;
}

export type PlanChangeRequestEvent =
  | DomainEvent<
      'PlanChangeRequested',
      { request_id: number; client_id: number; from_plan_id: number; to_plan_id: number; note: string | null; at: string }
    >
  | DomainEvent<'PlanChangeReviewStarted', { request_id: number; client_id: number; at: string }>
  | DomainEvent<'PlanChangeApproved', { request_id: number; client_id: number; invoice: Invoice; at: string }>
  | DomainEvent<'PlanChangeRejected', { request_id: number; client_id: number; reason: string; at: string }>
  | DomainEvent<'PlanChangeCancelled', { request_id: number; client_id: number; at: string }>
  | DomainEvent<'PlanChangeTookEffect', { request_id: number; client_id: number; via: PlanChangeEffectReason; at: string }>;

/**
 * A client's request to move to another plan. Submitting it alters no access: only when it takes effect
 * (payment confirmed, or staff authorising active-but-unpaid) is the client moved to the new plan.
 * The aggregate's state is null before PlanChangeRequested.
 */
export interface PlanChangeRequest {
  client_id: number;
  from_plan_id: number;
  to_plan_id: number;
  note: string | null;
  status: PlanChangeStatus;
  submitted_at: string;
  /** Issued on approval; null before. */
  invoice: Invoice | null;
  rejection_reason: string | null;
  effective_via: PlanChangeEffectReason | null;
  effective_at: string | null;
}

export const planChangeRequestStream = (id: number): string => `planChangeRequest-${id}`;

export function evolvePlanChangeRequest(request: PlanChangeRequest | null, event: PlanChangeRequestEvent): PlanChangeRequest | null {
  switch (event.type) {
    case 'PlanChangeRequested': {
      const { client_id, from_plan_id, to_plan_id, note, at } = event.data;
      return {
        client_id,
        from_plan_id,
        to_plan_id,
        note,
        status: 'submitted',
        submitted_at: at,
        invoice: null,
        rejection_reason: null,
        effective_via: null,
        effective_at: null,
      };
    }
    case 'PlanChangeReviewStarted':
      return request && { ...request, status: 'under_review' };
    case 'PlanChangeApproved':
      return request && { ...request, status: 'approved', invoice: event.data.invoice };
    case 'PlanChangeRejected':
      return request && { ...request, status: 'rejected', rejection_reason: event.data.reason };
    case 'PlanChangeCancelled':
      return request && { ...request, status: 'cancelled' };
    case 'PlanChangeTookEffect':
      return request && { ...request, status: 'effective', effective_via: event.data.via, effective_at: event.data.at };
    default:
      return assertNever(event);
  }
}

export const planChangeRequestAggregate: Aggregate<PlanChangeRequest | null, PlanChangeRequestEvent> = {
  category: 'planChangeRequest',
  streamName: planChangeRequestStream,
  initialState: () => null,
  evolve: evolvePlanChangeRequest,
};

/** The client named in the path: a request is acted on only through the client it belongs to. */
export interface PlanChangeOfClient {
  client_id: number;
}

/** Another client's request is answered as missing, so a client id cannot be used to probe request ids. */
export function clientsPlanChange(command: PlanChangeOfClient, request: PlanChangeRequest | null, requestId: number): PlanChangeRequest {
  if (!request || request.client_id !== command.client_id) {
    throw new NotFound(`Plan change request ${requestId} of client ${command.client_id} does not exist.`);
  }
  return request;
}

/** 409 naming the current status and the ones the action is allowed from. */
export function requireStatus(request: PlanChangeRequest, allowed: readonly PlanChangeStatus[], action: string): void {
  if (!allowed.includes(request.status)) {
    throw new Conflict(`A plan change request that is ${request.status} cannot be ${action}.`, {
      status: request.status,
      allowed_from: allowed,
    });
  }
}
