import { existingEditor, type Editor, type EditorEvent } from '../../src/access/editor.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export type DeactivateEditor = Record<string, never>;

/**
 * The account stops working at once: each of its tokens not yet revoked is revoked with it, so a
 * reactivation never brings an old token back. Deactivating a deactivated account changes nothing.
 */
export function decide(_command: DeactivateEditor, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  const editor = existingEditor(state, meta.id);
  if (!editor.active) return [];
  const revocations: EditorEvent[] = editor.tokens
    .filter((token) => token.revoked_at === null)
    .map((token) => ({ type: 'EditorTokenRevoked', data: { editor_id: meta.id, token_id: token.token_id, at: meta.now } }));
  return [...revocations, { type: 'EditorDeactivated', data: { editor_id: meta.id, at: meta.now } }];
}
