import { evolveEditor, type Editor, type EditorEvent } from '../src/access/editor.js';
import { assertNever } from '../src/domain/decider.js';
import { alreadyApplied, everyEventType, positionNumber, type PositionedDoc, type Projection } from '../src/projectionEngine/projection.js';
import { foldRecord, type AdminRecord, type AdminRecordKind } from './adminRecords.js';
import { searchText } from './shared/apiShape.js';

export const ADMIN_EDITORS = 'admin_editors';
export const EDITOR_TOKENS = 'editor_tokens';

export type AdminEditorDoc = AdminRecord<Editor>;

/**
 * Which account a token belongs to, found by the token's SHA-256 hash (the `_id`). Written once, when the
 * token is issued: whether it still works (revoked, expired, the account deactivated, its role) is read from
 * the account's document, so this lookup never changes and holds nothing but ids.
 */
export interface EditorTokenDoc extends PositionedDoc {
  _id: string;
  token_id: number;
  editor_id: number;
}

const editorKind: AdminRecordKind<Editor, EditorEvent> = {
  collection: ADMIN_EDITORS,
  idOf: (event) => event.data.editor_id,
  evolve: evolveEditor,
  search: (editor) => searchText(editor.name),
};

/**
 * The editor accounts: the admin list of them (each folded with the aggregate's own evolve, with its
 * revision) and the token lookup the admin authentication reads on every request (src/http/adminAuth.ts):
 * a token's hash to its account, then the account's document for its role, whether it is active and
 * whether that token is revoked or expired. Two `get`s per request.
 */
export const editorsProjection: Projection<EditorEvent> = {
  name: 'editors',
  version: 1,
  collections: [ADMIN_EDITORS, EDITOR_TOKENS],
  indexes: {
    [ADMIN_EDITORS]: [{ keys: [['role', 1]] }, { keys: [['name', 1]] }, { keys: [['updated_at', 1]] }],
    [EDITOR_TOKENS]: [],
  },
  handles: everyEventType<EditorEvent>({
    EditorCreated: true,
    EditorRenamed: true,
    EditorRoleChanged: true,
    EditorDeactivated: true,
    EditorReactivated: true,
    EditorTokenIssued: true,
    EditorTokenRevoked: true,
  }),
  async apply(event, ctx) {
    switch (event.type) {
      case 'EditorTokenIssued': {
        const { token_hash, token_id, editor_id } = event.data;
        if (!alreadyApplied(await ctx.get<EditorTokenDoc>(EDITOR_TOKENS, token_hash), event)) {
          const lookup: EditorTokenDoc = { _id: token_hash, token_id, editor_id, _position: positionNumber(event) };
          ctx.put(EDITOR_TOKENS, lookup);
        }
        await foldRecord(editorKind, event, ctx);
        return;
      }
      case 'EditorCreated':
      case 'EditorRenamed':
      case 'EditorRoleChanged':
      case 'EditorDeactivated':
      case 'EditorReactivated':
      case 'EditorTokenRevoked':
        await foldRecord(editorKind, event, ctx);
        return;
      default:
        return assertNever(event);
    }
  },
};
