import { z } from 'zod';
import { EDITOR_ROLES, type Editor, type EditorEvent } from '../../src/access/editor.js';
import { singleLineText } from '../../src/catalogue/text.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';

export const editorNameSchema = singleLineText(200, { min: 1 }).meta({
  description: 'Who the account is, as histories show it.',
  example: 'Sara Haddad',
});

export const editorRoleSchema = z.enum(EDITOR_ROLES, { error: `must be one of ${EDITOR_ROLES.join(', ')}` }).meta({
  description:
    'editor: catalogue commands; publisher: also publish, unpublish and delete; operator: also clients, keys, plans, subscriptions, usage and webhooks; admin: everything, editor accounts too. Each role includes the ones before it.',
});

export const createEditorSchema = z.object({ name: editorNameSchema, role: editorRoleSchema }).strict();

export type CreateEditor = z.infer<typeof createEditorSchema>;

/** A new account is active and has no token yet (see issueEditorToken). */
export function decide(command: CreateEditor, editor: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  if (editor) throw new Conflict(`Editor ${meta.id} already exists.`);
  return [{ type: 'EditorCreated', data: { editor_id: meta.id, name: command.name, role: command.role, at: meta.now } }];
}
