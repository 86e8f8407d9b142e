import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, videoSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { ValidationFailed } from '../../src/domain/errors.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

const fields = videoSchema.shape;

export const setVideoSchema = videoSchema
  .extend({
    description: fields.description.default(null),
    external_url: fields.external_url.default(null),
    file: fields.file.default(null),
    thumbnail: fields.thumbnail.default(null),
  })
  .strict();

export type SetVideo = z.infer<typeof setVideoSchema>;

const files = (command: SetVideo, state: Project | null) =>
  fileClaims({ 'body.file': command.file, 'body.thumbnail': command.thumbnail }, projectFiles(state));

/** The video's file and thumbnail, when stored (see src/catalogue/storedFiles.ts). */
export function references(command: SetVideo, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * A video plays from an external address or from a stored file, never both (the public video shows one).
 * Its file and thumbnail must be stored files with the facts given.
 */
export function decide(
  command: SetVideo,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (command.external_url !== null && command.file !== null) {
    const problem = 'give at most one of external_url and file';
    throw new ValidationFailed({ 'body.external_url': problem, 'body.file': problem });
  }
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(project.video, command)) return [];
  return [{ type: 'VideoSet', data: { project_id: meta.id, video: command, at: meta.now } }];
}
