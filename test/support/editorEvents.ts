import { editorStream, type EditorEvent } from '../../src/access/editor.js';
import { hashEditorToken } from '../../src/access/editorTokens.js';
import { minute, type StreamEvent } from './catalogueEvents.js';

export function editorEvent(event: EditorEvent): StreamEvent {
  return { stream: editorStream(event.data.editor_id), event };
}

/** The hash of a token named `name` in a test (no real token is needed to project one). */
export const tokenHashOf = (name: string): string => hashEditorToken(`edt_${name}`);

export function editorTokenIssued(editorId: number, tokenId: number, at = minute(1), expiresAt: string | null = null): StreamEvent {
  return editorEvent({
    type: 'EditorTokenIssued',
    data: {
      editor_id: editorId,
      token_id: tokenId,
      token_hash: tokenHashOf(`token-${tokenId}`),
      hint: 'edt_AbCd…',
      expires_at: expiresAt,
      at,
    },
  });
}

/** Three accounts through every event type: renamed, promoted, tokens issued and revoked, deactivated and reactivated. */
export function editorHistory(): StreamEvent[] {
  const at = minute(3);
  return [
    editorEvent({ type: 'EditorCreated', data: { editor_id: 1, name: 'Sara Haddad', role: 'editor', at: minute(0) } }),
    editorEvent({ type: 'EditorCreated', data: { editor_id: 2, name: 'Omar Farouk', role: 'operator', at: minute(0) } }),
    editorEvent({ type: 'EditorCreated', data: { editor_id: 3, name: 'Lina Aziz', role: 'admin', at: minute(0) } }),
    editorTokenIssued(1, 1),
    editorTokenIssued(1, 2, minute(1), minute(60)),
    editorTokenIssued(2, 3),
    editorEvent({ type: 'EditorRenamed', data: { editor_id: 1, name: 'Sara Haddad-Nasser', at } }),
    editorEvent({ type: 'EditorRoleChanged', data: { editor_id: 1, role: 'publisher', at } }),
    editorEvent({ type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 2, at } }),
    editorEvent({ type: 'EditorTokenRevoked', data: { editor_id: 2, token_id: 3, at } }),
    editorEvent({ type: 'EditorDeactivated', data: { editor_id: 2, at } }),
    editorEvent({ type: 'EditorDeactivated', data: { editor_id: 3, at } }),
    editorEvent({ type: 'EditorReactivated', data: { editor_id: 3, at: minute(4) } }),
    editorTokenIssued(3, 4, minute(5)),
  ];
}
