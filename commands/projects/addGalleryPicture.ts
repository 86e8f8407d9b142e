import type { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, allocatedId, galleryPictureFieldsSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

const fields = galleryPictureFieldsSchema.shape;

export const addGalleryPictureSchema = galleryPictureFieldsSchema
  .extend({
    caption: fields.caption.default(null),
    position: fields.position.optional().meta({ description: 'Defaults to after the last picture.' }),
    image: imageRefSchema,
  })
  .strict();

export type AddGalleryPicture = z.infer<typeof addGalleryPictureSchema>;

const files = (command: AddGalleryPicture, state: Project | null) => fileClaims({ 'body.image': command.image }, projectFiles(state));

/** The picture's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: AddGalleryPicture, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * The picture must be a stored file with the facts the command gives. Its media id (used in its image
 * addresses) is allocated by the service (meta.allocatedIds.media).
 */
export function decide(
  command: AddGalleryPicture,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  const mediaId = allocatedId(meta, 'media');
  const position = command.position ?? nextPosition(project);
  return [
    {
      type: 'GalleryPictureAdded',
      data: { project_id: meta.id, picture: { media_id: mediaId, caption: command.caption, position, image: command.image }, at: meta.now },
    },
  ];
}

function nextPosition(project: Project): number {
  const positions = Object.values(project.gallery).map((picture) => picture.position);
  return positions.length === 0 ? 0 : Math.max(...positions) + 1;
}
