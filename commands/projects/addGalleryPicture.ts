import type { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, allocatedId, galleryPictureFieldsSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

const fields = galleryPictureFieldsSchema.shape;

export const addGalleryPictureSchema = galleryPictureFieldsSchema
  .extend({
    caption: fields.caption.default(null),
    position: fields.position.optional().meta({ description: 'Defaults to after the last picture.' }),
    image: imageRefSchema,
  })
  .strict();

export type AddGalleryPicture = z.infer<typeof addGalleryPictureSchema>;

/** The picture's media id (used in its image addresses) is allocated by the service (meta.allocatedIds.media). */
export function decide(command: AddGalleryPicture, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
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
