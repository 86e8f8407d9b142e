import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

export const SUBSCRIPTION_STATUSES = ['draft', 'active', 'suspended', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * A client's commercial subscription, one per client (its stream is named by the client's id). Only an
 * active one within its period grants access; a trial grants it until trial_ends_at unless paid, and an
 * unpaid invoice until grace_days after payment_due_at.
 */
export interface Subscription {
  client_id: number;
  status: SubscriptionStatus;
  period_start: string;
  /** null = open-ended. */
  period_end: string | null;
  /** null = not a trial. */
  trial_ends_at: string | null;
  /** null = nothing due. */
  payment_due_at: string | null;
  grace_days: number;
  /** The current invoice is paid: ends the trial and the grace period for good. */
  paid: boolean;
}

export type SubscriptionEvent = DomainEvent<'SubscriptionSet', Subscription & { at: string }>;

export const subscriptionStream = (clientId: number): string => `subscription-${clientId}`;

export function evolveSubscription(subscription: Subscription | null, event: SubscriptionEvent): Subscription | null {
  switch (event.type) {
    case 'SubscriptionSet': {
      const { at: _at, ...fields } = event.data;
      return fields;
    }
    default:
      return assertNever(event.type);
  }
}

export const subscriptionAggregate: Aggregate<Subscription | null, SubscriptionEvent> = {
  category: 'subscription',
  streamName: subscriptionStream,
  initialState: () => null,
  evolve: evolveSubscription,
};
