import { assertNever, type Aggregate } from '../domain/decider.js';
import { NotFound } from '../domain/errors.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/**
 * The roles of a named account of the admin API, least first: `editor` reads and edits the catalogue,
 * `publisher` also publishes, unpublishes and deletes, `operator` manages who may use /v1 (clients, keys,
 * plans, subscriptions, usage, webhooks) and reads the catalogue, `admin` does everything, the editor accounts
 * too. Each is a set of permission groups, not a rung: src/http/adminRoutes/editorRoles.ts says which.
 */
export const EDITOR_ROLES = ['editor', 'publisher', 'operator', 'admin'] as const;
export type EditorRole = (typeof EDITOR_ROLES)[number];

/**
 * A token as the account keeps it: never the token, nor its hash (that is in the event that issued it and in
 * the lookup the authentication reads, see projections/editors.ts), so no state, list or history shows it.
 */
export interface EditorToken {
  token_id: number;
  /** The prefix and 4 characters of the token (`edt_AbCd…`), to tell an account's tokens apart. */
  hint: string;
  issued_at: string;
  /** After this instant the token is refused; null = it does not expire. */
  expires_at: string | null;
  revoked_at: string | null;
}

export type EditorEvent =
  | DomainEvent<'EditorCreated', { editor_id: number; name: string; role: EditorRole; at: string }>
  | DomainEvent<'EditorRenamed', { editor_id: number; name: string; at: string }>
  | DomainEvent<'EditorRoleChanged', { editor_id: number; role: EditorRole; at: string }>
  | DomainEvent<'EditorDeactivated', { editor_id: number; at: string }>
  | DomainEvent<'EditorReactivated', { editor_id: number; at: string }>
  | DomainEvent<
      'EditorTokenIssued',
      { editor_id: number; token_id: number; token_hash: string; hint: string; expires_at: string | null; at: string }
    >
  | DomainEvent<'EditorTokenRevoked', { editor_id: number; token_id: number; at: string }>;

/**
 * A named account of the admin API: who a change is recorded as (event metadata), with a role and its own
 * tokens. A deactivated account's tokens were revoked with it; reactivated, it needs a new token. Null
 * before EditorCreated.
 */
export interface Editor {
  name: string;
  role: EditorRole;
  active: boolean;
  /** By token id, revoked ones too (they stay on record). */
  tokens: EditorToken[];
  created_at: string;
  updated_at: string;
}

export const editorStream = (id: number): string => `editor-${id}`;

/** The actor id event metadata records for an account's commands (the bootstrap token's is `bootstrap`). */
export const editorActorId = (id: number): string => `editor:${id}`;

function withToken(editor: Editor, tokenId: number, change: (token: EditorToken) => EditorToken): EditorToken[] {
  return editor.tokens.map((token) => (token.token_id === tokenId ? change(token) : token));
}

export function evolveEditor(editor: Editor | null, event: EditorEvent): Editor | null {
  if (event.type === 'EditorCreated') {
    const { name, role, at } = event.data;
    return { name, role, active: true, tokens: [], created_at: at, updated_at: at };
  }
  if (!editor) return null;
  const updated_at = event.data.at;
  switch (event.type) {
    case 'EditorRenamed':
      return { ...editor, name: event.data.name, updated_at };
    case 'EditorRoleChanged':
      return { ...editor, role: event.data.role, updated_at };
    case 'EditorDeactivated':
      return { ...editor, active: false, updated_at };
    case 'EditorReactivated':
      return { ...editor, active: true, updated_at };
    case 'EditorTokenIssued': {
      const { token_id, hint, expires_at, at } = event.data;
      const token: EditorToken = { token_id, hint, issued_at: at, expires_at, revoked_at: null };
      return { ...editor, tokens: [...editor.tokens.filter((kept) => kept.token_id !== token_id), token], updated_at };
    }
    case 'EditorTokenRevoked':
      return {
        ...editor,
        tokens: withToken(editor, event.data.token_id, (token) => ({ ...token, revoked_at: event.data.at })),
        updated_at,
      };
    default:
      return assertNever(event);
  }
}

export const editorAggregate: Aggregate<Editor | null, EditorEvent> = {
  category: 'editor',
  streamName: editorStream,
  initialState: () => null,
  evolve: evolveEditor,
};

/** The account, or the one 404 when there is none. */
export function existingEditor(editor: Editor | null, id: number): Editor {
  if (!editor) throw new NotFound(`Editor ${id} does not exist.`);
  return editor;
}

/** A token that works as of `now`: not revoked, not expired. */
export const tokenIsLive = (token: EditorToken, now: string): boolean =>
  token.revoked_at === null && (token.expires_at === null || token.expires_at > now);
