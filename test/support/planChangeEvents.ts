import { planChangeRequestStream, type PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import { minute, type StreamEvent } from './catalogueEvents.js';

export function planChangeEvent(event: PlanChangeRequestEvent): StreamEvent {
  return { stream: planChangeRequestStream(event.data.request_id), event };
}

export function planChangeRequested(id: number, clientId: number, toPlanId: number, at = minute(0)): StreamEvent {
  return planChangeEvent({
    type: 'PlanChangeRequested',
    data: { request_id: id, client_id: clientId, from_plan_id: 1, to_plan_id: toPlanId, note: `Request ${id}`, at },
  });
}

/**
 * Requests of clients 1 and 2 (plans 1 and 2 of catalogueHistory) through every event type: one effective
 * after payment, one rejected under review, one cancelled, one left submitted.
 */
export function planChangeHistory(): StreamEvent[] {
  const at = minute(7);
  const invoice = {
    number: 'INV-000001',
    currency: 'AED',
    lines: [{ description: 'Professional, one month', quantity: 1, unit_amount: 150_000, amount: 150_000 }],
    total: 150_000,
    issued_at: at,
  };
  return [
    planChangeRequested(1, 1, 2),
    planChangeRequested(2, 2, 1),
    planChangeRequested(3, 1, 2),
    planChangeRequested(4, 2, 1),
    planChangeEvent({ type: 'PlanChangeReviewStarted', data: { request_id: 1, client_id: 1, at } }),
    planChangeEvent({ type: 'PlanChangeApproved', data: { request_id: 1, client_id: 1, invoice, at } }),
    planChangeEvent({ type: 'PlanChangeTookEffect', data: { request_id: 1, client_id: 1, via: 'payment', at: minute(8) } }),
    planChangeEvent({ type: 'PlanChangeReviewStarted', data: { request_id: 2, client_id: 2, at } }),
    planChangeEvent({ type: 'PlanChangeRejected', data: { request_id: 2, client_id: 2, reason: 'Not this year', at } }),
    planChangeEvent({ type: 'PlanChangeCancelled', data: { request_id: 3, client_id: 1, at } }),
  ];
}
