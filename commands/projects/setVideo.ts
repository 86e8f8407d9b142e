import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, videoSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { ValidationFailed } from '../../src/domain/errors.js';

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

/** A video plays from an external address or from a stored file, never both (the public video shows one). */
export function decide(command: SetVideo, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (command.external_url !== null && command.file !== null) {
    const problem = 'give at most one of external_url and file';
    throw new ValidationFailed({ 'body.external_url': problem, 'body.file': problem });
  }
  if (isDeepStrictEqual(project.video, command)) return [];
  return [{ type: 'VideoSet', data: { project_id: meta.id, video: command, at: meta.now } }];
}
