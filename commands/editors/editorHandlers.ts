import { editorAggregate, type Editor, type EditorEvent } from '../../src/access/editor.js';
import { editorTokenHint, generateEditorToken, hashEditorToken } from '../../src/access/editorTokens.js';
import type { CommandDeps, CommandResult } from '../../src/domain/commandHandler.js';
import { updateWithSlice, type FactsReader } from '../../src/domain/commandSlice.js';
import * as issueEditorToken from './issueEditorToken.js';

/** Editor commands judge nothing outside the account. */
export const noEditorFacts: FactsReader<never, null> = {
  read: () => Promise.reject(new Error('Editor commands read no references.')),
  none: null,
};

/** A token just issued: the account as it now stands (hash-free) and the token itself, which leaves the service once. */
export interface IssuedEditorToken {
  result: CommandResult<Editor | null, EditorEvent>;
  tokenId: number;
  token: string;
}

/**
 * Issues a token to an account. The token is random, so it is generated here, outside the decider, which
 * sees only its hash and hint.
 */
export async function issueEditorTokenTo(
  deps: CommandDeps,
  request: issueEditorToken.IssueEditorTokenBody & { editorId: number; expectedRevision?: number; actor: string },
): Promise<IssuedEditorToken> {
  const { editorId, expectedRevision, actor, ...body } = request;
  const token = generateEditorToken();
  const result = await updateWithSlice(deps, noEditorFacts, {
    aggregate: editorAggregate,
    id: editorId,
    ...(expectedRevision === undefined ? {} : { expectedRevision }),
    actor,
    allocate: [issueEditorToken.EDITOR_TOKEN_IDS],
    command: { ...body, token_hash: hashEditorToken(token), hint: editorTokenHint(token) },
    slice: issueEditorToken,
  });
  const issued = result.events.find((event) => event.type === 'EditorTokenIssued');
  if (issued?.type !== 'EditorTokenIssued') throw new Error('Issuing a token appended no EditorTokenIssued.');
  return { result, tokenId: issued.data.token_id, token };
}
