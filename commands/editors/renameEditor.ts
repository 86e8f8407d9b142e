import { existingEditor, type Editor, type EditorEvent } from '../../src/access/editor.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export interface RenameEditor {
  name: string;
}

/** The same name again changes nothing. */
export function decide(command: RenameEditor, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  const editor = existingEditor(state, meta.id);
  if (editor.name === command.name) return [];
  return [{ type: 'EditorRenamed', data: { editor_id: meta.id, name: command.name, at: meta.now } }];
}
