import { describe, expect, it } from 'vitest';
import * as issueApiKey from '../../commands/apiKeys/issueApiKey.js';
import * as moveClientToPlan from '../../commands/clients/moveClientToPlan.js';
import * as registerClient from '../../commands/clients/registerClient.js';
import * as reviseClient from '../../commands/clients/reviseClient.js';
import * as setClientRestriction from '../../commands/clients/setClientRestriction.js';
import * as startEvaluation from '../../commands/clients/startEvaluation.js';
import * as setSubscription from '../../commands/subscriptions/setSubscription.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { apiKeyAggregate } from '../../src/access/apiKey.js';
import { clientAggregate, type ClientEvent } from '../../src/access/client.js';
import { subscriptionAggregate } from '../../src/access/subscription.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import type { ApiError } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

/** The rules of access commands about what lies outside their aggregate, decided on the facts the handler read. */

const at = defaultMeta.now;
const fieldsOf = (error: Error) => (error as ApiError).details['fields'];
const plans = accessFacts({
  plans: [
    { id: 2, key: 'starter', active: true },
    { id: 5, key: 'legacy', active: false },
  ],
});
const registered: ClientEvent = {
  type: 'ClientRegistered',
  data: { client_id: 1, name: 'Marina Homes', plan_id: 2, scopes: null, entitlements: null, at: '2024-01-01T00:00:00.000Z' },
};

describe('client plans', () => {
  const register = deciderSpec(clientAggregate, registerClient.decide, { references: plans });
  const revise = deciderSpec(clientAggregate, reviseClient.decide, { references: plans });

  it('when a client names a plan, then the plan is looked up by its key', () => {
    expect(registerClient.references({ name: 'x', plan: 'starter' })).toEqual({ planKeys: ['starter'] });
    expect(reviseClient.references({ name: 'x' })).toEqual({ planKeys: [] });
  });

  it('when a client is registered on a plan no one has, then it is refused naming body.plan', () => {
    const error = register.given([]).when({ name: 'Marina Homes', plan: 'platinum' }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.plan': "no plan has the key 'platinum'" });
  });

  it('when a client is registered on an inactive plan, then it is refused naming body.plan', () => {
    const error = register.given([]).when({ name: 'Marina Homes', plan: 'legacy' }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.plan': "plan 'legacy' is not active" });
  });

  it('when a missing client is moved to an inactive plan, then the plan is what is reported', () => {
    revise.given([]).when({ plan: 'legacy' }).thenThrows('VALIDATION_FAILED');
  });

  it('when a client is moved by plan key, then ClientRevised records the plan id', () => {
    const moved = accessFacts({
      plans: [
        { id: 2, key: 'starter', active: true },
        { id: 3, key: 'pro', active: true },
      ],
    });
    revise
      .given([registered])
      .when({ plan: 'pro' }, { references: moved })
      .then([{ type: 'ClientRevised', data: { client_id: 1, changes: { plan_id: 3 }, at } }]);
  });
});

describe('moveClientToPlan', () => {
  const spec = deciderSpec(clientAggregate, moveClientToPlan.decide);

  it('when a plan change takes effect, then the client moves to its plan; already there, nothing', () => {
    spec
      .given([registered])
      .when({ plan_id: 3 })
      .then([{ type: 'ClientRevised', data: { client_id: 1, changes: { plan_id: 3 }, at } }]);
    spec.given([registered]).when({ plan_id: 2 }).then([]);
  });
});

describe('client restriction references', () => {
  const references = accessFacts({ catalogue: catalogueFacts({ states: [1, 2], communities: { 3: { state_id: 2 } } }) });
  const spec = deciderSpec(clientAggregate, setClientRestriction.decide, { references });

  it('when a restriction is set, then every state and community it names is looked up', () => {
    expect(setClientRestriction.references({ restriction: { states: [{ state_id: 2, community_ids: [3, 4] }] } })).toEqual({
      catalogue: { states: [2], communities: [3, 4] },
    });
  });

  it('when states or communities are missing or misplaced, then one refusal names each', () => {
    const error = spec
      .given([registered])
      .when({
        restriction: {
          states: [
            { state_id: 9, community_ids: [] },
            { state_id: 1, community_ids: [3, 8] },
          ],
        },
      })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({
      'body.restriction.states.0.state_id': 'no state has the id 9',
      'body.restriction.states.1.community_ids.0': 'community 3 is not in state 1',
      'body.restriction.states.1.community_ids.1': 'no community has the id 8',
    });
  });
});

describe('evaluation sample', () => {
  const spec = deciderSpec(clientAggregate, startEvaluation.decide, { references: accessFacts({}) });
  const published = Array.from({ length: 200 }, (_, index) => index + 1);

  it('when the catalogue is larger than the sample, then the sample is spread evenly over it in id order', () => {
    const sample = Array.from({ length: 50 }, (_, index) => 1 + index * 4);
    spec
      .given([registered])
      .when({ sample_size: 50 }, { references: accessFacts({ publishedProjectIds: published }) })
      .then([{ type: 'EvaluationStarted', data: { client_id: 1, sample_project_ids: sample, at } }]);
  });

  it('when no size is given, then 60 projects are sampled', () => {
    const [event] = startEvaluation.decide({}, clientAggregate.evolve(null, registered), {
      ...defaultMeta,
      references: accessFacts({ publishedProjectIds: published }),
    });
    expect(event?.type === 'EvaluationStarted' && event.data.sample_project_ids.length).toBe(60);
  });

  it('when the evaluation starts, then the published catalogue is looked up', () => {
    expect(startEvaluation.references()).toEqual({ publishedProjects: true });
  });
});

describe('keys and subscriptions of a client', () => {
  const issue = deciderSpec(apiKeyAggregate, issueApiKey.decide, {
    references: accessFacts({ clients: { 4: { revision: 6, plan_id: 2 } } }),
  });
  const subscribe = deciderSpec(subscriptionAggregate, setSubscription.decide, { references: accessFacts({}) });
  const anIssue = { environment: 'live' as const, client_id: 4, key_hash: 'a3'.repeat(32), hint: 'svc_live_AbCd…' };

  it('when a key is issued, then its client is looked up', () => {
    expect(issueApiKey.references(anIssue)).toEqual({ clients: [4] });
  });

  it('when a key is issued to a client that does not exist, then NOT_FOUND names the client', () => {
    const error = issue
      .given([])
      .when({ ...anIssue, client_id: 7 })
      .thenThrows('NOT_FOUND');
    expect(error.message).toBe('Client 7 does not exist.');
  });

  it('when If-Match names another revision of the client, then CONFLICT with both revisions', () => {
    const error = issue
      .given([])
      .when({ ...anIssue, expected_client_revision: 5 })
      .thenThrows('CONFLICT');
    expect((error as ApiError).details).toEqual({ expected_revision: 5, current_revision: 6 });
  });

  it('when a subscription is set for a client that does not exist, then NOT_FOUND', () => {
    const subscription = setSubscription.setSubscriptionSchema.parse({
      status: 'active',
      period_start: '2024-01-01T00:00:00Z',
      period_end: null,
      trial_ends_at: null,
      payment_due_at: null,
      grace_days: 7,
      paid: true,
    });
    subscribe
      .given([])
      .when({ ...subscription, client_id: 3 }, { id: 3 })
      .thenThrows('NOT_FOUND');
  });
});
