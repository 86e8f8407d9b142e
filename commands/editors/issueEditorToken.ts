import { z } from 'zod';
import { existingEditor, type Editor, type EditorEvent } from '../../src/access/editor.js';
import { EDITOR_TOKEN_HASH, EDITOR_TOKEN_HINT } from '../../src/access/editorTokens.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';

/** The id sequence of editor tokens (ids are unique across accounts). */
export const EDITOR_TOKEN_IDS = 'editorToken';

export const issueEditorTokenSchema = z
  .object({
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the token stops working (401 from then on); omitted = never. Must be in the future.' }),
  })
  .strict();

/**
 * What the handler adds to the body: the hash and hint of the token it generated. The token is random, so
 * it is made outside the decider, and it never reaches a decider or an event.
 */
export type IssueEditorTokenBody = z.infer<typeof issueEditorTokenSchema>;
export type IssueEditorToken = IssueEditorTokenBody & { token_hash: string; hint: string };

/** An active account only (a deactivated one is reactivated first); the token's id is allocated by the service. */
export function decide(command: IssueEditorToken, state: Editor | null, meta: CommandMeta & { id: number }): EditorEvent[] {
  // Not input errors but bugs of the caller: a token passed where only its hash may go would be stored for good.
  if (!EDITOR_TOKEN_HASH.test(command.token_hash)) throw new Error('token_hash must be the SHA-256 hex digest of the token.');
  if (!EDITOR_TOKEN_HINT.test(command.hint)) throw new Error('The hint must be the token prefix and 4 characters of the token.');
  const editor = existingEditor(state, meta.id);
  if (!editor.active) throw new Conflict(`Editor ${meta.id} is deactivated; reactivate it before issuing a token.`, { active: false });
  const tokenId = meta.allocatedIds?.[EDITOR_TOKEN_IDS];
  if (tokenId === undefined) throw new Error(`The handler must allocate an ${EDITOR_TOKEN_IDS} id.`);
  const expiresAt = command.expires_at === undefined ? null : new Date(command.expires_at).toISOString();
  if (expiresAt !== null && expiresAt <= meta.now) throw new ValidationFailed({ 'body.expires_at': 'must be in the future' });
  return [
    {
      type: 'EditorTokenIssued',
      data: {
        editor_id: meta.id,
        token_id: tokenId,
        token_hash: command.token_hash,
        hint: command.hint,
        expires_at: expiresAt,
        at: meta.now,
      },
    },
  ];
}
