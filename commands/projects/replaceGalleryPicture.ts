import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

export const replaceGalleryPictureSchema = z.object({ media_id: z.number().int().positive(), image: imageRefSchema }).strict();

export type ReplaceGalleryPicture = z.infer<typeof replaceGalleryPictureSchema>;

const files = (command: ReplaceGalleryPicture, state: Project | null) => fileClaims({ 'body.image': command.image }, projectFiles(state));

/** The new picture's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: ReplaceGalleryPicture, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * An image-only change: the media id stays, so stored image addresses keep showing the current picture,
 * and the change feed does not report it. The new picture must be a stored file with the facts given.
 */
export function decide(
  command: ReplaceGalleryPicture,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const picture = existingItem(project.gallery, command.media_id, 'Gallery picture');
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(picture.image, command.image)) return [];
  return [
    { type: 'GalleryPictureReplaced', data: { project_id: meta.id, media_id: command.media_id, image: command.image, at: meta.now } },
  ];
}
