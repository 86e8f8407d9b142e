import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const replaceGalleryPictureSchema = z.object({ media_id: z.number().int().positive(), image: imageRefSchema }).strict();

export type ReplaceGalleryPicture = z.infer<typeof replaceGalleryPictureSchema>;

/**
 * An image-only change: the media id stays, so stored image addresses keep showing the current picture,
 * and the change feed does not report it.
 */
export function decide(command: ReplaceGalleryPicture, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const picture = existingItem(project.gallery, command.media_id, 'Gallery picture');
  if (isDeepStrictEqual(picture.image, command.image)) return [];
  return [
    { type: 'GalleryPictureReplaced', data: { project_id: meta.id, media_id: command.media_id, image: command.image, at: meta.now } },
  ];
}
