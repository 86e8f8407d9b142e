import { describe, expect, it } from 'vitest';
import { decide as createDeveloper, type CreateDeveloper } from '../../commands/developers/createDeveloper.js';
import { decide as publishDeveloper } from '../../commands/developers/publishDeveloper.js';
import { decide as reviseDeveloper } from '../../commands/developers/reviseDeveloper.js';
import { decide as unpublishDeveloper } from '../../commands/developers/unpublishDeveloper.js';
import { developerAggregate, type DeveloperEvent } from '../../src/catalogue/developer.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';
import { storedFacts } from '../support/storedFiles.js';

const at = defaultMeta.now;

const logo = (key = '0f0e0d0c'): ImageRef => ({
  key,
  file_name: 'logo.png',
  content_type: 'image/png',
  width: 512,
  height: 512,
  size_bytes: 20_480,
});

/** The blob store holds the logos these cases name. */
const references = catalogueFacts({ storedFiles: storedFacts(logo(), logo('99887766')) });

const aDeveloper = (overrides: Partial<CreateDeveloper> = {}): CreateDeveloper => ({
  name: 'Emaar Properties',
  slug: 'emaar-properties',
  description: 'Master developer.',
  website: 'https://www.emaar.com',
  logo: logo(),
  established_year: 1997,
  ...overrides,
});

const created: DeveloperEvent = { type: 'DeveloperCreated', data: { developer_id: 1, ...aDeveloper(), at: '2024-01-01T00:00:00.000Z' } };
const published: DeveloperEvent = { type: 'DeveloperPublished', data: { developer_id: 1, at: '2024-01-02T00:00:00.000Z' } };

describe('createDeveloper', () => {
  const spec = deciderSpec(developerAggregate, createDeveloper, { references });

  it('when a new developer is created, then DeveloperCreated carries its fields, id and time', () => {
    spec
      .given([])
      .when(aDeveloper(), { id: 2 })
      .then([{ type: 'DeveloperCreated', data: { developer_id: 2, ...aDeveloper(), at } }]);
  });

  it('when it was established this year, then it is accepted', () => {
    spec
      .given([])
      .when(aDeveloper({ established_year: 2024 }))
      .then([{ type: 'DeveloperCreated', data: { developer_id: 1, ...aDeveloper({ established_year: 2024 }), at } }]);
  });

  it('when its established year lies in the future, then it is refused naming body.established_year', () => {
    const error = spec
      .given([])
      .when(aDeveloper({ established_year: 2025 }))
      .thenThrows('VALIDATION_FAILED');
    expect(error).toMatchObject({ details: { fields: { 'body.established_year': 'must not be in the future' } } });
  });

  it('when the developer already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when(aDeveloper()).thenThrows('CONFLICT');
  });
});

describe('reviseDeveloper', () => {
  const spec = deciderSpec(developerAggregate, reviseDeveloper, { references });

  it('when the logo is replaced and the website cleared, then DeveloperRevised carries both changes', () => {
    spec
      .given([created])
      .when({ logo: logo('99887766'), website: null })
      .then([{ type: 'DeveloperRevised', data: { developer_id: 1, changes: { logo: logo('99887766'), website: null }, at } }]);
  });

  it('when nothing differs from the current values, then nothing is emitted', () => {
    spec.given([created]).when({ logo: logo(), established_year: 1997 }).then([]);
  });

  it('when the established year is moved into the future, then it is refused with VALIDATION_FAILED', () => {
    spec.given([created]).when({ established_year: 2031 }).thenThrows('VALIDATION_FAILED');
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([created]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the developer does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Emaar' }).thenThrows('NOT_FOUND');
  });
});

describe('publishDeveloper', () => {
  const spec = deciderSpec(developerAggregate, publishDeveloper);

  it('when an unpublished developer is published, then DeveloperPublished is emitted', () => {
    spec
      .given([created])
      .when({})
      .then([{ type: 'DeveloperPublished', data: { developer_id: 1, at } }]);
  });

  it('when it is already published, then nothing is emitted', () => {
    spec.given([created, published]).when({}).then([]);
  });

  it('when the developer does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});

describe('unpublishDeveloper', () => {
  const spec = deciderSpec(developerAggregate, unpublishDeveloper);

  it('when a published developer is unpublished, then DeveloperUnpublished is emitted', () => {
    spec
      .given([created, published])
      .when({})
      .then([{ type: 'DeveloperUnpublished', data: { developer_id: 1, at } }]);
  });

  it('when it is not published, then nothing is emitted', () => {
    spec.given([created]).when({}).then([]);
  });

  it('when the developer does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});
