import { existingEditor, type Editor, type EditorEvent } from '../../src/access/editor.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export interface RevokeEditorToken {
  token_id: number;
}

/** A token of another account is the one 404; revoking a revoked token changes nothing. */
export function decide(command: RevokeEditorToken, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  const editor = existingEditor(state, meta.id);
  const token = editor.tokens.find((candidate) => candidate.token_id === command.token_id);
  if (!token) throw new NotFound(`Editor ${meta.id} has no token ${command.token_id}.`);
  if (token.revoked_at !== null) return [];
  return [{ type: 'EditorTokenRevoked', data: { editor_id: meta.id, token_id: command.token_id, at: meta.now } }];
}
