import { existingEditor, type Editor, type EditorEvent } from '../../src/access/editor.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export type ReactivateEditor = Record<string, never>;

/** The account works again once it is issued a new token (deactivation revoked its old ones); an active one changes nothing. */
export function decide(_command: ReactivateEditor, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  const editor = existingEditor(state, meta.id);
  if (editor.active) return [];
  return [{ type: 'EditorReactivated', data: { editor_id: meta.id, at: meta.now } }];
}
