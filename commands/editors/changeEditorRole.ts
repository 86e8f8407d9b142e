import { existingEditor, type Editor, type EditorEvent, type EditorRole } from '../../src/access/editor.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export interface ChangeEditorRole {
  role: EditorRole;
}

/**
 * The new role holds for the account's every token from its next request on; the same role again changes
 * nothing. A deactivated account can be given a role too (it takes effect once reactivated).
 */
export function decide(command: ChangeEditorRole, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  const editor = existingEditor(state, meta.id);
  if (editor.role === command.role) return [];
  return [{ type: 'EditorRoleChanged', data: { editor_id: meta.id, role: command.role, at: meta.now } }];
}
