import { z } from 'zod';
import { editorAggregate, type Editor, type EditorEvent } from '../../src/access/editor.js';
import { requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import * as changeEditorRole from './changeEditorRole.js';
import { editorNameSchema, editorRoleSchema } from './createEditor.js';
import * as deactivateEditor from './deactivateEditor.js';
import * as reactivateEditor from './reactivateEditor.js';
import * as renameEditor from './renameEditor.js';

export const reviseEditorSchema = z
  .object({
    name: editorNameSchema,
    role: editorRoleSchema,
    active: z.boolean().meta({
      description: 'false deactivates the account and revokes its tokens; true reactivates it (it then needs a new token).',
    }),
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type ReviseEditor = z.infer<typeof reviseEditorSchema>;

type Step = (state: Editor | null, meta: CommandMeta & { id: number }) => EditorEvent[];

/**
 * PATCH of an account: each field is its own command (rename, change role, deactivate or reactivate), decided
 * in turn on the state the previous ones leave, so one request appends all their events or none.
 */
export function decide(command: ReviseEditor, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  requireSomeField(command);
  const { name, role, active } = command;
  const steps: Step[] = [];
  if (name !== undefined) steps.push((current, stepMeta) => renameEditor.decide({ name }, current, stepMeta));
  if (role !== undefined) steps.push((current, stepMeta) => changeEditorRole.decide({ role }, current, stepMeta));
  if (active === true) steps.push((current, stepMeta) => reactivateEditor.decide({}, current, stepMeta));
  if (active === false) steps.push((current, stepMeta) => deactivateEditor.decide({}, current, stepMeta));
  const events: EditorEvent[] = [];
  let current = state;
  for (const step of steps) {
    const emitted = step(current, meta);
    current = emitted.reduce(editorAggregate.evolve, current);
    events.push(...emitted);
  }
  return events;
}
