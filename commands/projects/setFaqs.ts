import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, faqSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setFaqsSchema = z.object({ items: z.array(faqSchema).max(200) }).strict();

export type SetFaqs = z.infer<typeof setFaqsSchema>;

/** Replaces the project's FAQs; sending the current list again emits nothing. */
export function decide(command: SetFaqs, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.faqs, command.items)) return [];
  return [{ type: 'FaqsSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
