import { describe, it } from 'vitest';
import { decide as createState } from '../../commands/states/createState.js';
import { decide as publishState } from '../../commands/states/publishState.js';
import { decide as reviseState } from '../../commands/states/reviseState.js';
import { decide as unpublishState } from '../../commands/states/unpublishState.js';
import { stateAggregate, type StateEvent } from '../../src/catalogue/state.js';
import { NotFound } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;
const dubai = { name: 'Dubai', slug: 'dubai', country_code: 'AE' };
const created: StateEvent = { type: 'StateCreated', data: { state_id: 1, ...dubai, at: '2024-01-01T00:00:00.000Z' } };
const published: StateEvent = { type: 'StatePublished', data: { state_id: 1, at: '2024-01-02T00:00:00.000Z' } };

describe('createState', () => {
  const spec = deciderSpec(stateAggregate, createState);

  it('when a new state is created, then StateCreated carries its fields, id and time', () => {
    spec
      .given([])
      .when(dubai, { id: 7 })
      .then([{ type: 'StateCreated', data: { state_id: 7, ...dubai, at } }]);
  });

  it('when the state already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when(dubai).thenThrows('CONFLICT');
  });
});

describe('reviseState', () => {
  const spec = deciderSpec(stateAggregate, reviseState);

  it('when some fields change, then StateRevised carries only the changed ones', () => {
    spec
      .given([created])
      .when({ name: 'Dubai Emirate', country_code: 'AE' })
      .then([{ type: 'StateRevised', data: { state_id: 1, changes: { name: 'Dubai Emirate' }, at } }]);
  });

  it('when the slug changes, then StateRevised carries the new slug', () => {
    spec
      .given([created])
      .when({ slug: 'dubai-emirate' })
      .then([{ type: 'StateRevised', data: { state_id: 1, changes: { slug: 'dubai-emirate' }, at } }]);
  });

  it('when every given value equals the current one, then nothing is emitted', () => {
    spec.given([created]).when({ name: 'Dubai', slug: 'dubai' }).then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([created]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the state does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Dubai' }).thenThrows(NotFound);
  });
});

describe('publishState', () => {
  const spec = deciderSpec(stateAggregate, publishState);

  it('when an unpublished state is published, then StatePublished is emitted', () => {
    spec
      .given([created])
      .when({})
      .then([{ type: 'StatePublished', data: { state_id: 1, at } }]);
  });

  it('when the state is already published, then nothing is emitted', () => {
    spec.given([created, published]).when({}).then([]);
  });

  it('when the state does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});

describe('unpublishState', () => {
  const spec = deciderSpec(stateAggregate, unpublishState);

  it('when a published state is unpublished, then StateUnpublished is emitted', () => {
    spec
      .given([created, published])
      .when({})
      .then([{ type: 'StateUnpublished', data: { state_id: 1, at } }]);
  });

  it('when the state is not published, then nothing is emitted', () => {
    spec.given([created]).when({}).then([]);
  });

  it('when it was published and unpublished again, then nothing more is emitted', () => {
    spec
      .given([created, published, { type: 'StateUnpublished', data: { state_id: 1, at } }])
      .when({})
      .then([]);
  });

  it('when the state does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});
