import { z } from 'zod';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removeGalleryPictureSchema = z.object({ media_id: z.number().int().positive() }).strict();

export type RemoveGalleryPicture = z.infer<typeof removeGalleryPictureSchema>;

export function decide(command: RemoveGalleryPicture, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  existingItem(project.gallery, command.media_id, 'Gallery picture');
  return [{ type: 'GalleryPictureRemoved', data: { project_id: meta.id, media_id: command.media_id, at: meta.now } }];
}
