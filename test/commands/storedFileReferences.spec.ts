import { describe, expect, it } from 'vitest';
import * as createDeveloper from '../../commands/developers/createDeveloper.js';
import * as reviseDeveloper from '../../commands/developers/reviseDeveloper.js';
import * as addGalleryPicture from '../../commands/projects/addGalleryPicture.js';
import * as attachBrochure from '../../commands/projects/attachBrochure.js';
import * as setFloorPlates from '../../commands/projects/setFloorPlates.js';
import * as setVideo from '../../commands/projects/setVideo.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { developerAggregate, type DeveloperEvent } from '../../src/catalogue/developer.js';
import { projectAggregate, type ProjectEventOf } from '../../src/catalogue/project.js';
import { fileClaims } from '../../src/catalogue/storedFiles.js';
import type { ApiError } from '../../src/domain/errors.js';
import { deciderSpec } from '../support/deciderSpec.js';
import { storedFacts } from '../support/storedFiles.js';
import { anImage, aPdf, earlier, projectCreated, projectId } from './projects/projectBuilders.js';

/** A stored-file ref a command names must name a blob with the same facts; decided on what the handler read. */

const fieldsOf = (error: Error) => (error as ApiError).details['fields'];
const nothingStored = catalogueFacts({});

describe('stored-file claims', () => {
  it('when refs are null, absent, legacy external documents or already recorded alike, then they are not claims', () => {
    const recorded = anImage('old');
    const claims = fileClaims(
      {
        'body.a': null,
        'body.b': undefined,
        'body.c': { external_url: 'https://docs.example.com/a.pdf', file_name: 'a.pdf' } as never,
        'body.d': recorded,
        'body.e': { ...recorded, width: recorded.width + 1 },
        'body.f': anImage('new'),
      },
      [recorded],
    );
    expect(claims.map(([field]) => field)).toEqual(['body.e', 'body.f']);
  });
});

describe('gallery pictures name stored files', () => {
  const spec = deciderSpec(projectAggregate, addGalleryPicture.decide);
  const command = addGalleryPicture.addGalleryPictureSchema.parse({ image: anImage('n1') });

  it('when a picture is added, then its key is what the handler looks up', () => {
    expect(addGalleryPicture.references(command, null)).toEqual({ storedFiles: ['n1'] });
  });

  it('when the key names no stored file, then it is refused naming body.image.key', () => {
    const error = spec
      .given([projectCreated()])
      .when(command, { allocatedIds: { media: 5 }, references: nothingStored })
      .thenThrows('VALIDATION_FAILED');
    expect(Object.keys(fieldsOf(error) as object)).toEqual(['body.image.key']);
  });

  it('when the stored file has another size, type and pixel size, then each differing fact is named', () => {
    const stored = catalogueFacts({
      storedFiles: storedFacts({ ...anImage('n1'), content_type: 'image/png', size_bytes: 1, width: 10, height: 20 }),
    });
    const error = spec
      .given([projectCreated()])
      .when(command, { allocatedIds: { media: 5 }, references: stored })
      .thenThrows('VALIDATION_FAILED');
    expect(Object.keys(fieldsOf(error) as object).sort()).toEqual([
      'body.image.content_type',
      'body.image.height',
      'body.image.size_bytes',
      'body.image.width',
    ]);
  });
});

describe('floor plates name stored files', () => {
  const spec = deciderSpec(projectAggregate, setFloorPlates.decide);
  const legacy = anImage('made-up-before-uploads');
  const platesSet: ProjectEventOf<'FloorPlatesSet'> = {
    type: 'FloorPlatesSet',
    data: { project_id: projectId, items: [{ title: 'Podium', floors: null, image: legacy }], at: earlier },
  };

  it('when the list is sent again with one more plate, then only the new picture is looked up and checked', () => {
    const command = {
      items: [
        { title: 'Podium', floors: null, image: legacy },
        { title: 'Typical', floors: '4-9', image: anImage('n2') },
      ],
    };
    const state = [projectCreated(), platesSet].reduce(projectAggregate.evolve, projectAggregate.initialState());
    expect(setFloorPlates.references(command, state)).toEqual({ storedFiles: ['n2'] });

    const error = spec.given([projectCreated(), platesSet]).when(command, { references: nothingStored }).thenThrows('VALIDATION_FAILED');
    expect(Object.keys(fieldsOf(error) as object)).toEqual(['body.items.1.image.key']);
    spec
      .given([projectCreated(), platesSet])
      .when(command, { references: catalogueFacts({ storedFiles: storedFacts(anImage('n2')) }) })
      .then([{ type: 'FloorPlatesSet', data: { project_id: projectId, items: command.items, at: expect.any(String) } }]);
  });
});

describe('videos and documents name stored files', () => {
  it('when a video has a stored file and a thumbnail, then both are looked up', () => {
    const command = setVideo.setVideoSchema.parse({
      title: 'Walkthrough',
      file: { key: 'v1', file_name: 'v.mp4', content_type: 'video/mp4', size_bytes: 10 },
      thumbnail: anImage('t1'),
    });
    expect(setVideo.references(command, null)).toEqual({ storedFiles: ['v1', 't1'] });
  });

  it('when a legacy document on another host is attached, then nothing is looked up or checked', () => {
    const command = attachBrochure.attachBrochureSchema.parse({ external_url: 'https://docs.example.com/b.pdf', file_name: 'b.pdf' });
    expect(attachBrochure.references(command, null)).toEqual({ storedFiles: [] });
    deciderSpec(projectAggregate, attachBrochure.decide)
      .given([projectCreated()])
      .when(command, { references: nothingStored })
      .then([{ type: 'BrochureAttached', data: { project_id: projectId, brochure: command, at: expect.any(String) } }]);
  });

  it('when a stored PDF names no stored file, then it is refused naming body.key', () => {
    const error = deciderSpec(projectAggregate, attachBrochure.decide)
      .given([projectCreated()])
      .when(aPdf('n3'), { references: nothingStored })
      .thenThrows('VALIDATION_FAILED');
    expect(Object.keys(fieldsOf(error) as object)).toEqual(['body.key']);
  });
});

describe('developer logos name stored files', () => {
  const created: DeveloperEvent = {
    type: 'DeveloperCreated',
    data: {
      developer_id: 1,
      name: 'Emaar',
      slug: 'emaar',
      description: '',
      website: null,
      logo: anImage('logo1'),
      established_year: null,
      at: earlier,
    },
  };

  it('when a developer is created with a logo the blob store does not hold, then it is refused naming body.logo.key', () => {
    const command = createDeveloper.createDeveloperSchema.parse({ name: 'Nakheel', slug: 'nakheel', logo: anImage('logo2') });
    expect(createDeveloper.references(command)).toEqual({ storedFiles: ['logo2'] });
    const error = deciderSpec(developerAggregate, createDeveloper.decide)
      .given([])
      .when(command, { references: nothingStored })
      .thenThrows('VALIDATION_FAILED');
    expect(Object.keys(fieldsOf(error) as object)).toEqual(['body.logo.key']);
  });

  it('when a revision repeats the logo the developer has, then it is not looked up', () => {
    const developer = developerAggregate.evolve(null, created);
    expect(reviseDeveloper.references({ logo: anImage('logo1'), name: 'Emaar Properties' }, developer)).toEqual({ storedFiles: [] });
  });
});
