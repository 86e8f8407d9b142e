import { describe, expect, it } from 'vitest';
import * as attachBrochure from '../../../commands/projects/attachBrochure.js';
import * as removeBrochure from '../../../commands/projects/removeBrochure.js';
import * as removeVideo from '../../../commands/projects/removeVideo.js';
import * as setVideo from '../../../commands/projects/setVideo.js';
import { projectAggregate, type ProjectEventOf, type Video } from '../../../src/catalogue/project.js';
import type { ApiError } from '../../../src/domain/errors.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import { anImage, aPdf, earlier, knownCatalogue, now, projectCreated, projectDeleted, projectId } from './projectBuilders.js';

const externalVideo = (): Video => ({
  title: 'Walkthrough',
  description: null,
  external_url: 'https://video.example.com/watch/abc',
  file: null,
  thumbnail: anImage('thumb1'),
});

const videoSet = (video: Video): ProjectEventOf<'VideoSet'> => ({
  type: 'VideoSet',
  data: { project_id: projectId, video, at: earlier },
});

describe('setVideo', () => {
  const spec = deciderSpec(projectAggregate, setVideo.decide, { references: knownCatalogue });

  it('when a video with an external address is set, then VideoSet carries it', () => {
    spec
      .given([projectCreated()])
      .when(externalVideo())
      .then([{ type: 'VideoSet', data: { project_id: projectId, video: externalVideo(), at: now } }]);
  });

  it('when a video with a stored file replaces the current one, then VideoSet carries the file', () => {
    const command = setVideo.setVideoSchema.parse({
      title: 'Walkthrough',
      file: { key: 'v1d30', file_name: 'walkthrough.mp4', content_type: 'video/mp4', size_bytes: 48_000_000 },
    });
    spec
      .given([projectCreated(), videoSet(externalVideo())])
      .when(command)
      .then([{ type: 'VideoSet', data: { project_id: projectId, video: command, at: now } }]);
    expect(command).toMatchObject({ external_url: null, description: null, thumbnail: null });
  });

  it('when both an external address and a file are given, then it is refused naming both fields', () => {
    const error = spec
      .given([projectCreated()])
      .when({ ...externalVideo(), file: { key: 'v1d30', file_name: 'walkthrough.mp4', content_type: 'video/mp4', size_bytes: 48_000_000 } })
      .thenThrows('VALIDATION_FAILED');
    expect(Object.keys((error as ApiError).details.fields as object)).toEqual(['body.external_url', 'body.file']);
  });

  it('when the video is the current one, then nothing is emitted', () => {
    spec
      .given([projectCreated(), videoSet(externalVideo())])
      .when(externalVideo())
      .then([]);
  });

  it('when the external address is not http(s), then the schema refuses it', () => {
    expect(setVideo.setVideoSchema.safeParse({ title: 'x', external_url: 'javascript:alert(1)' }).success).toBe(false);
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec.given([projectCreated(), projectDeleted()]).when(externalVideo()).thenThrows('PROJECT_DELETED');
  });
});

describe('removeVideo', () => {
  const spec = deciderSpec(projectAggregate, removeVideo.decide);

  it('when the video is removed, then VideoRemoved', () => {
    spec
      .given([projectCreated(), videoSet(externalVideo())])
      .when({})
      .then([{ type: 'VideoRemoved', data: { project_id: projectId, at: now } }]);
  });

  it('when there is no video, then nothing is emitted', () => {
    spec.given([projectCreated()]).when({}).then([]);
  });
});

describe('attachBrochure and removeBrochure', () => {
  const attach = deciderSpec(projectAggregate, attachBrochure.decide, { references: knownCatalogue });
  const remove = deciderSpec(projectAggregate, removeBrochure.decide);
  const brochureAttached: ProjectEventOf<'BrochureAttached'> = {
    type: 'BrochureAttached',
    data: { project_id: projectId, brochure: aPdf(), at: earlier },
  };

  it('when a brochure is attached, then BrochureAttached', () => {
    attach
      .given([projectCreated()])
      .when(aPdf())
      .then([{ type: 'BrochureAttached', data: { project_id: projectId, brochure: aPdf(), at: now } }]);
  });

  it('when the attached brochure is attached again, then nothing is emitted', () => {
    attach.given([projectCreated(), brochureAttached]).when(aPdf()).then([]);
  });

  it('when the brochure is removed, then BrochureRemoved', () => {
    remove
      .given([projectCreated(), brochureAttached])
      .when({})
      .then([{ type: 'BrochureRemoved', data: { project_id: projectId, at: now } }]);
  });

  it('when there is no brochure, then removing emits nothing', () => {
    remove.given([projectCreated()]).when({}).then([]);
  });

  it('when the project is deleted, then removing is refused with PROJECT_DELETED', () => {
    remove.given([projectCreated(), brochureAttached, projectDeleted()]).when({}).thenThrows('PROJECT_DELETED');
  });
});
