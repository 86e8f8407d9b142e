import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField } from '../../src/catalogue/changes.js';
import {
  activeProject,
  existingItem,
  galleryPictureFieldsSchema,
  type GalleryPictureFields,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Caption and position; the picture itself is changed by replaceGalleryPicture (an image-only change). */
export const reviseGalleryPictureSchema = galleryPictureFieldsSchema.partial().extend({ media_id: z.number().int().positive() }).strict();

export type ReviseGalleryPicture = z.infer<typeof reviseGalleryPictureSchema>;

export function decide(command: ReviseGalleryPicture, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const { media_id, ...requested } = command;
  const picture = existingItem(project.gallery, media_id, 'Gallery picture');
  requireSomeField(requested);
  const changes = changedFields<GalleryPictureFields>(picture, requested);
  if (!hasChanges(changes)) return [];
  return [{ type: 'GalleryPictureRevised', data: { project_id: meta.id, media_id, changes, at: meta.now } }];
}
