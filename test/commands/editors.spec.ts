import { describe, expect, it } from 'vitest';
import { decide as createEditor } from '../../commands/editors/createEditor.js';
import { decide as issueEditorToken, EDITOR_TOKEN_IDS, type IssueEditorToken } from '../../commands/editors/issueEditorToken.js';
import { decide as reviseEditor } from '../../commands/editors/reviseEditor.js';
import { decide as revokeEditorToken } from '../../commands/editors/revokeEditorToken.js';
import { editorAggregate, type EditorEvent } from '../../src/access/editor.js';
import { EDITOR_TOKEN_PATTERN, editorTokenHint, generateEditorToken, hashEditorToken } from '../../src/access/editorTokens.js';
import type { ValidationFailed } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;
const earlier = '2024-04-01T09:00:00.000Z';

const created: EditorEvent = { type: 'EditorCreated', data: { editor_id: 1, name: 'Sara Haddad', role: 'editor', at: earlier } };
const tokenIssued = (tokenId: number): EditorEvent => ({
  type: 'EditorTokenIssued',
  data: { editor_id: 1, token_id: tokenId, token_hash: 'a'.repeat(64), hint: 'edt_AbCd…', expires_at: null, at: earlier },
});
const deactivated: EditorEvent = { type: 'EditorDeactivated', data: { editor_id: 1, at: earlier } };

const aToken = (overrides: Partial<IssueEditorToken> = {}): IssueEditorToken => ({
  token_hash: 'b'.repeat(64),
  hint: 'edt_WxYz…',
  ...overrides,
});
const withTokenId = (tokenId: number) => ({ allocatedIds: { [EDITOR_TOKEN_IDS]: tokenId } });

describe('createEditor', () => {
  const spec = deciderSpec(editorAggregate, createEditor);

  it('when an account is created, then EditorCreated carries its name, role, id and time', () => {
    spec
      .given([])
      .when({ name: 'Sara Haddad', role: 'publisher' }, { id: 4 })
      .then([{ type: 'EditorCreated', data: { editor_id: 4, name: 'Sara Haddad', role: 'publisher', at } }]);
  });

  it('when the account already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when({ name: 'Sara', role: 'editor' }).thenThrows('CONFLICT');
  });
});

describe('reviseEditor', () => {
  const spec = deciderSpec(editorAggregate, reviseEditor);

  it('when name and role change together, then one request decides a rename and a role change', () => {
    spec
      .given([created])
      .when({ name: 'Sara Haddad-Nasser', role: 'operator' })
      .then([
        { type: 'EditorRenamed', data: { editor_id: 1, name: 'Sara Haddad-Nasser', at } },
        { type: 'EditorRoleChanged', data: { editor_id: 1, role: 'operator', at } },
      ]);
  });

  it('when the values are the current ones, then nothing is decided', () => {
    spec.given([created]).when({ name: 'Sara Haddad', role: 'editor', active: true }).then([]);
  });

  it('when an account with tokens is deactivated, then its live tokens are revoked before it is deactivated', () => {
    const revoked: EditorEvent = { type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 2, at: earlier } };
    spec
      .given([created, tokenIssued(1), tokenIssued(2), revoked, tokenIssued(3)])
      .when({ active: false })
      .then([
        { type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 1, at } },
        { type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 3, at } },
        { type: 'EditorDeactivated', data: { editor_id: 1, at } },
      ]);
  });

  it('when a deactivated account is reactivated, then it is active again and its tokens stay revoked', () => {
    spec
      .given([created, deactivated])
      .when({ active: true })
      .then([{ type: 'EditorReactivated', data: { editor_id: 1, at } }]);
  });

  it('when the body names no field, then 422', () => {
    const error = spec.given([created]).when({}).thenThrows('VALIDATION_FAILED') as ValidationFailed;
    expect(error.details).toEqual({ fields: { body: 'names no field to change' } });
  });

  it('when the account does not exist, then NOT_FOUND', () => {
    spec.given([]).when({ role: 'admin' }).thenThrows('NOT_FOUND');
  });
});

describe('issueEditorToken', () => {
  const spec = deciderSpec(editorAggregate, issueEditorToken);

  it('when a token is issued, then the event holds its allocated id, hash, hint and expiry, never the token', () => {
    spec
      .given([created])
      .when(aToken({ expires_at: '2024-06-01T12:00:00+04:00' }), withTokenId(9))
      .then([
        {
          type: 'EditorTokenIssued',
          data: { editor_id: 1, token_id: 9, token_hash: 'b'.repeat(64), hint: 'edt_WxYz…', expires_at: '2024-06-01T08:00:00.000Z', at },
        },
      ]);
  });

  it('when the expiry is not in the future, then 422 names body.expires_at', () => {
    const error = spec
      .given([created])
      .when(aToken({ expires_at: at }), withTokenId(9))
      .thenThrows('VALIDATION_FAILED') as ValidationFailed;
    expect(error.details).toEqual({ fields: { 'body.expires_at': 'must be in the future' } });
  });

  it('when the account is deactivated, then CONFLICT', () => {
    spec.given([created, deactivated]).when(aToken(), withTokenId(9)).thenThrows('CONFLICT');
  });

  it('when the handler passes something other than a hash, then it is a bug, not a request error', () => {
    spec
      .given([created])
      .when(aToken({ token_hash: 'edt_not-a-hash' }), withTokenId(9))
      .thenThrows(Error);
  });
});

describe('revokeEditorToken', () => {
  const spec = deciderSpec(editorAggregate, revokeEditorToken);

  it('when a live token is revoked, then EditorTokenRevoked; revoking it again decides nothing', () => {
    spec
      .given([created, tokenIssued(5)])
      .when({ token_id: 5 })
      .then([{ type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 5, at } }]);
    spec
      .given([created, tokenIssued(5), { type: 'EditorTokenRevoked', data: { editor_id: 1, token_id: 5, at } }])
      .when({ token_id: 5 })
      .then([]);
  });

  it('when the account has no such token, then NOT_FOUND', () => {
    spec
      .given([created, tokenIssued(5)])
      .when({ token_id: 6 })
      .thenThrows('NOT_FOUND');
  });
});

describe('editor tokens', () => {
  it('when a token is generated, then it is well-formed, its hint is its first 8 characters and its hash is SHA-256 hex', () => {
    const token = generateEditorToken();
    expect(token).toMatch(EDITOR_TOKEN_PATTERN);
    expect(editorTokenHint(token)).toBe(`${token.slice(0, 8)}…`);
    expect(hashEditorToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(generateEditorToken()).not.toBe(token);
  });
});
