import { describe, it } from 'vitest';
import { decide as registerClient, type RegisterClient } from '../../commands/clients/registerClient.js';
import { decide as activateCommercialAccess } from '../../commands/clients/activateCommercialAccess.js';
import { decide as changeClientStatus } from '../../commands/clients/changeClientStatus.js';
import { decide as pauseEvaluation } from '../../commands/clients/pauseEvaluation.js';
import { decide as reviseClient } from '../../commands/clients/reviseClient.js';
import { decide as setClientControls } from '../../commands/clients/setClientControls.js';
import { decide as setClientRestriction } from '../../commands/clients/setClientRestriction.js';
import { decide as startEvaluation } from '../../commands/clients/startEvaluation.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { clientAggregate, type ClientEvent } from '../../src/access/client.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

/** Plan 2 (starter) and plan 3 (pro) take clients. */
const plans = accessFacts({
  plans: [
    { id: 2, key: 'starter', active: true },
    { id: 3, key: 'pro', active: true },
  ],
});

const aClient = (overrides: Partial<RegisterClient> = {}): RegisterClient => ({ name: 'Marina Homes', plan: 'starter', ...overrides });

const registered: ClientEvent = {
  type: 'ClientRegistered',
  data: { client_id: 1, name: 'Marina Homes', plan_id: 2, scopes: null, entitlements: null, at: '2024-01-01T00:00:00.000Z' },
};
const withOwnScopes: ClientEvent = {
  type: 'ClientRevised',
  data: { client_id: 1, changes: { scopes: ['projects:read', 'media:read'] }, at: '2024-01-02T00:00:00.000Z' },
};

describe('registerClient', () => {
  const spec = deciderSpec(clientAggregate, registerClient, { references: plans });

  it('when a client is registered without lists of its own, then ClientRegistered records null for both', () => {
    spec
      .given([])
      .when(aClient(), { id: 7 })
      .then([
        {
          type: 'ClientRegistered',
          data: { client_id: 7, name: 'Marina Homes', plan_id: 2, scopes: null, entitlements: null, limits: null, at },
        },
      ]);
  });

  it('when a client is registered with its own lists, then they are recorded in the order the spec lists them', () => {
    spec
      .given([])
      .when(aClient({ scopes: ['media:read', 'projects:read'], entitlements: [] }))
      .then([
        {
          type: 'ClientRegistered',
          data: {
            client_id: 1,
            name: 'Marina Homes',
            plan_id: 2,
            scopes: ['projects:read', 'media:read'],
            entitlements: [],
            limits: null,
            at,
          },
        },
      ]);
  });

  it('when the client already exists, then it is refused with CONFLICT', () => {
    spec.given([registered]).when(aClient()).thenThrows('CONFLICT');
  });
});

describe('reviseClient', () => {
  const spec = deciderSpec(clientAggregate, reviseClient, { references: plans });

  it('when the client moves to another plan and drops its own scopes, then ClientRevised carries both changes', () => {
    spec
      .given([registered, withOwnScopes])
      .when({ plan: 'pro', scopes: null })
      .then([{ type: 'ClientRevised', data: { client_id: 1, changes: { plan_id: 3, scopes: null }, at } }]);
  });

  it('when nothing differs from the current values, then nothing is emitted', () => {
    spec
      .given([registered, withOwnScopes])
      .when({ plan: 'starter', scopes: ['media:read', 'projects:read'] })
      .then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([registered]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the client does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Creek Realty' }).thenThrows('NOT_FOUND');
  });
});

describe('changeClientStatus', () => {
  const spec = deciderSpec(clientAggregate, changeClientStatus);

  it('when an active client is suspended, then ClientStatusChanged records both statuses', () => {
    spec
      .given([registered])
      .when({ status: 'suspended' })
      .then([{ type: 'ClientStatusChanged', data: { client_id: 1, status: 'suspended', previous_status: 'active', at } }]);
  });

  it('when the client already has the status, then nothing is recorded', () => {
    spec.given([registered]).when({ status: 'active' }).then([]);
  });

  it('when the client does not exist, then NOT_FOUND', () => {
    spec.given([]).when({ status: 'inactive' }).thenThrows('NOT_FOUND');
  });
});

describe('setClientControls', () => {
  const spec = deciderSpec(clientAggregate, setClientControls);
  const none = { domain: null, ip_allow: [], ip_deny: [] };
  const controls = {
    request_signing: true,
    environments: { live: { domain: 'portal.example.com', ip_allow: ['203.0.113.0/24'], ip_deny: [] }, test: none },
  };

  it('when controls are set, then ClientControlsSet records them whole', () => {
    spec
      .given([registered])
      .when(controls)
      .then([{ type: 'ClientControlsSet', data: { client_id: 1, controls, at } }]);
  });

  it('when the same controls are set again, then nothing is recorded', () => {
    spec
      .given([registered, { type: 'ClientControlsSet', data: { client_id: 1, controls, at } }])
      .when(controls)
      .then([]);
  });

  it('when the client does not exist, then NOT_FOUND', () => {
    spec.given([]).when(controls).thenThrows('NOT_FOUND');
  });
});

describe('setClientRestriction', () => {
  const spec = deciderSpec(clientAggregate, setClientRestriction, {
    references: accessFacts({ catalogue: catalogueFacts({ states: [1, 2], communities: { 3: { state_id: 2 }, 5: { state_id: 2 } } }) }),
  });
  const restricted: ClientEvent = {
    type: 'ClientRestrictionSet',
    data: {
      client_id: 1,
      restriction: {
        states: [
          { state_id: 1, community_ids: [] },
          { state_id: 2, community_ids: [3, 5] },
        ],
      },
      at,
    },
  };

  it('when a restriction is set, then ClientRestrictionSet records it with states and communities in id order', () => {
    spec
      .given([registered])
      .when({
        restriction: {
          states: [
            { state_id: 2, community_ids: [5, 3] },
            { state_id: 1, community_ids: [] },
          ],
        },
      })
      .then([restricted]);
  });

  it('when the same restriction is set again in another order, then nothing is recorded', () => {
    spec
      .given([registered, restricted])
      .when({
        restriction: {
          states: [
            { state_id: 2, community_ids: [3, 5] },
            { state_id: 1, community_ids: [] },
          ],
        },
      })
      .then([]);
  });

  it('when the restriction is lifted, then null is recorded; lifting it again records nothing', () => {
    spec
      .given([registered, restricted])
      .when({ restriction: null })
      .then([{ type: 'ClientRestrictionSet', data: { client_id: 1, restriction: null, at } }]);
    spec.given([registered]).when({ restriction: null }).then([]);
  });

  it('when the client does not exist, then NOT_FOUND', () => {
    spec.given([]).when({ restriction: null }).thenThrows('NOT_FOUND');
  });
});

describe('Evaluation Mode commands', () => {
  const start = deciderSpec(clientAggregate, startEvaluation, { references: accessFacts({}) });
  const pause = deciderSpec(clientAggregate, pauseEvaluation);
  const activate = deciderSpec(clientAggregate, activateCommercialAccess);
  const sampleIds = Array.from({ length: 50 }, (_, index) => index + 1);
  const started: ClientEvent = { type: 'EvaluationStarted', data: { client_id: 1, sample_project_ids: sampleIds, at } };
  const paused: ClientEvent = { type: 'EvaluationPaused', data: { client_id: 1, at } };

  it('when evaluation starts with a sample, then EvaluationStarted freezes it; again while evaluating, CONFLICT', () => {
    const published = { references: accessFacts({ publishedProjectIds: sampleIds }) };
    start.given([registered]).when({}, published).then([started]);
    start.given([registered, started]).when({}, published).thenThrows('CONFLICT');
  });

  it('when fewer than 50 published projects can be sampled, then CONFLICT', () => {
    start
      .given([registered])
      .when({}, { references: accessFacts({ publishedProjectIds: sampleIds.slice(0, 49) }) })
      .thenThrows('CONFLICT');
  });

  it('when an evaluation is paused, then EvaluationPaused; paused again, nothing; a commercial account, CONFLICT', () => {
    pause.given([registered, started]).when({}).then([paused]);
    pause.given([registered, started, paused]).when({}).then([]);
    pause.given([registered]).when({}).thenThrows('CONFLICT');
  });

  it('when commercial access is activated, then CommercialAccessActivated records why; an account already commercial records nothing', () => {
    activate
      .given([registered, started, paused])
      .when({ reason: 'payment' })
      .then([{ type: 'CommercialAccessActivated', data: { client_id: 1, reason: 'payment', at } }]);
    activate.given([registered]).when({ reason: 'staff_authorisation' }).then([]);
  });
});
