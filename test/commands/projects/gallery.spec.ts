import { describe, expect, it } from 'vitest';
import * as addGalleryPicture from '../../../commands/projects/addGalleryPicture.js';
import * as attachMasterPlanDocument from '../../../commands/projects/attachMasterPlanDocument.js';
import * as removeGalleryPicture from '../../../commands/projects/removeGalleryPicture.js';
import * as removeMasterPlanDocument from '../../../commands/projects/removeMasterPlanDocument.js';
import * as replaceGalleryPicture from '../../../commands/projects/replaceGalleryPicture.js';
import * as reviseGalleryPicture from '../../../commands/projects/reviseGalleryPicture.js';
import { projectAggregate, type ProjectEventOf } from '../../../src/catalogue/project.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import {
  aGalleryPicture,
  anImage,
  aPdf,
  earlier,
  galleryPictureAdded,
  knownCatalogue,
  now,
  projectCreated,
  projectDeleted,
  projectId,
} from './projectBuilders.js';

const masterPlanDocumentAttached = (): ProjectEventOf<'MasterPlanDocumentAttached'> => ({
  type: 'MasterPlanDocumentAttached',
  data: { project_id: projectId, document: aPdf(), at: earlier },
});

describe('addGalleryPicture', () => {
  const spec = deciderSpec(projectAggregate, addGalleryPicture.decide, { references: knownCatalogue });

  it('when a picture is added without a position, then it goes after the last one under the allocated media id', () => {
    const command = addGalleryPicture.addGalleryPictureSchema.parse({ image: anImage('new1') });
    spec
      .given([
        projectCreated(),
        galleryPictureAdded(aGalleryPicture(50, { position: 0 })),
        galleryPictureAdded(aGalleryPicture(51, { position: 3 })),
      ])
      .when(command, { allocatedIds: { media: 52 } })
      .then([
        {
          type: 'GalleryPictureAdded',
          data: { project_id: projectId, picture: { media_id: 52, caption: null, position: 4, image: anImage('new1') }, at: now },
        },
      ]);
  });

  it('when the first picture is added without a position, then its position is 0', () => {
    const command = addGalleryPicture.addGalleryPictureSchema.parse({ caption: 'Lobby', image: anImage('new1') });
    spec
      .given([projectCreated()])
      .when(command, { allocatedIds: { media: 52 } })
      .then([
        {
          type: 'GalleryPictureAdded',
          data: { project_id: projectId, picture: { media_id: 52, caption: 'Lobby', position: 0, image: anImage('new1') }, at: now },
        },
      ]);
  });

  it('when a position is given, then the picture takes it', () => {
    const command = addGalleryPicture.addGalleryPictureSchema.parse({ image: anImage('new1'), position: 2 });
    spec
      .given([projectCreated()])
      .when(command, { allocatedIds: { media: 52 } })
      .then([
        {
          type: 'GalleryPictureAdded',
          data: { project_id: projectId, picture: { media_id: 52, caption: null, position: 2, image: anImage('new1') }, at: now },
        },
      ]);
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    const command = addGalleryPicture.addGalleryPictureSchema.parse({ image: anImage('new1') });
    spec
      .given([projectCreated(), projectDeleted()])
      .when(command, { allocatedIds: { media: 52 } })
      .thenThrows('PROJECT_DELETED');
  });
});

describe('reviseGalleryPicture', () => {
  const spec = deciderSpec(projectAggregate, reviseGalleryPicture.decide);

  it('when caption and position are revised, then GalleryPictureRevised carries the changes', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50, caption: null, position: 5 })
      .then([
        { type: 'GalleryPictureRevised', data: { project_id: projectId, media_id: 50, changes: { caption: null, position: 5 }, at: now } },
      ]);
  });

  it('when the values are the current ones, then nothing is emitted', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50, caption: 'Pool deck' })
      .then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50 })
      .thenThrows('VALIDATION_FAILED');
  });

  it('when the picture is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ media_id: 77, position: 1 }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Gallery picture 77');
  });
});

describe('replaceGalleryPicture', () => {
  const spec = deciderSpec(projectAggregate, replaceGalleryPicture.decide, { references: knownCatalogue });

  it('when the picture is replaced, then GalleryPictureReplaced keeps the media id', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50, image: anImage('replaced') })
      .then([{ type: 'GalleryPictureReplaced', data: { project_id: projectId, media_id: 50, image: anImage('replaced'), at: now } }]);
  });

  it('when the picture is the current one, then nothing is emitted', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50, image: anImage('pic50') })
      .then([]);
  });

  it('when the picture is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ media_id: 77, image: anImage() }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Gallery picture 77');
  });
});

describe('removeGalleryPicture', () => {
  const spec = deciderSpec(projectAggregate, removeGalleryPicture.decide);

  it('when a picture is removed, then GalleryPictureRemoved', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50))])
      .when({ media_id: 50 })
      .then([{ type: 'GalleryPictureRemoved', data: { project_id: projectId, media_id: 50, at: now } }]);
  });

  it('when the picture is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ media_id: 50 }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Gallery picture 50');
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec
      .given([projectCreated(), galleryPictureAdded(aGalleryPicture(50)), projectDeleted()])
      .when({ media_id: 50 })
      .thenThrows('PROJECT_DELETED');
  });
});

describe('attachMasterPlanDocument and removeMasterPlanDocument', () => {
  const attach = deciderSpec(projectAggregate, attachMasterPlanDocument.decide, { references: knownCatalogue });
  const remove = deciderSpec(projectAggregate, removeMasterPlanDocument.decide);

  it('when a document is attached, then MasterPlanDocumentAttached', () => {
    attach
      .given([projectCreated()])
      .when(aPdf())
      .then([{ type: 'MasterPlanDocumentAttached', data: { project_id: projectId, document: aPdf(), at: now } }]);
  });

  it('when another document replaces the attached one, then MasterPlanDocumentAttached with the new one', () => {
    attach
      .given([projectCreated(), masterPlanDocumentAttached()])
      .when(aPdf('0badc0de'))
      .then([{ type: 'MasterPlanDocumentAttached', data: { project_id: projectId, document: aPdf('0badc0de'), at: now } }]);
  });

  it('when the attached document is attached again, then nothing is emitted', () => {
    attach.given([projectCreated(), masterPlanDocumentAttached()]).when(aPdf()).then([]);
  });

  it('when the file is not a PDF, then the schema refuses it', () => {
    expect(attachMasterPlanDocument.attachMasterPlanDocumentSchema.safeParse({ ...aPdf(), content_type: 'image/png' }).success).toBe(false);
  });

  it('when the document is removed, then MasterPlanDocumentRemoved', () => {
    remove
      .given([projectCreated(), masterPlanDocumentAttached()])
      .when({})
      .then([{ type: 'MasterPlanDocumentRemoved', data: { project_id: projectId, at: now } }]);
  });

  it('when there is no document to remove, then nothing is emitted', () => {
    remove.given([projectCreated()]).when({}).then([]);
  });

  it('when the project is deleted, then attaching is refused with PROJECT_DELETED', () => {
    attach.given([projectCreated(), projectDeleted()]).when(aPdf()).thenThrows('PROJECT_DELETED');
  });
});
