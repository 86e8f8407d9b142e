import { describe, it } from 'vitest';
import { decide as setSubscription, type SetSubscription } from '../../commands/subscriptions/setSubscription.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { subscriptionAggregate, type SubscriptionEvent } from '../../src/access/subscription.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

/** Client 3 exists; the subscription stream is its own. */
const references = accessFacts({ clients: { 3: { revision: 0, plan_id: 2 } } });
const ofClient3 = (subscription: Omit<SetSubscription, 'client_id'>): SetSubscription => ({ ...subscription, client_id: 3 });

const aSubscription = (overrides: Partial<SetSubscription> = {}): Omit<SetSubscription, 'client_id'> => ({
  status: 'active',
  period_start: '2024-01-01T00:00:00.000Z',
  period_end: null,
  trial_ends_at: null,
  payment_due_at: null,
  grace_days: 7,
  paid: true,
  ...overrides,
});

describe('setSubscription', () => {
  const spec = deciderSpec(subscriptionAggregate, setSubscription, { references });
  const recorded: SubscriptionEvent = { type: 'SubscriptionSet', data: { client_id: 3, ...aSubscription(), at } };

  it('when a first subscription is set, then SubscriptionSet records it for the client whose stream it is', () => {
    spec.given([]).when(ofClient3(aSubscription()), { id: 3 }).then([recorded]);
  });

  it('when the same subscription is set again, then nothing is recorded', () => {
    spec.given([recorded]).when(ofClient3(aSubscription()), { id: 3 }).then([]);
  });

  it('when it changes, then the whole new subscription is recorded', () => {
    spec
      .given([recorded])
      .when(ofClient3(aSubscription({ status: 'suspended' })), { id: 3 })
      .then([{ type: 'SubscriptionSet', data: { client_id: 3, ...aSubscription({ status: 'suspended' }), at } }]);
  });
});
