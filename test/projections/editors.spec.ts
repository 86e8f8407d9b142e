import { describe, expect, it } from 'vitest';
import { ADMIN_EDITORS, EDITOR_TOKENS, editorsProjection } from '../../projections/editors.js';
import { editorAggregate, type Editor, type EditorEvent } from '../../src/access/editor.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { editorHistory, tokenHashOf } from '../support/editorEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const history = await recorded(editorHistory());

async function projected(): Promise<ReadStore> {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, editorsProjection, history, 4);
  return readStore;
}

/** Each account's stream folded as the write side folds it. */
function writeSide(): Array<{ id: number; revision: number; state: Editor | null }> {
  const folded = new Map<number, { state: Editor | null; revision: number }>();
  for (const event of history) {
    const id = Number(event.streamName.slice('editor-'.length));
    const state = editorAggregate.evolve(folded.get(id)?.state ?? editorAggregate.initialState(), event as unknown as EditorEvent);
    folded.set(id, { state, revision: event.revision });
  }
  return [...folded].map(([id, { state, revision }]) => ({ id, revision, state }));
}

const withoutBookkeeping = ({ _id, id, revision, _search, _position, ...state }: Doc) => ({ id, revision, state });

describe('editors read model', () => {
  it('when the history is projected, then every account is its stream folded by the write side, with the stream revision', async () => {
    const readStore = await projected();
    const { items } = await readStore.find(ADMIN_EDITORS, { sort: [['_id', 1]] });
    expect(items.map(withoutBookkeeping)).toEqual(writeSide());
  });

  it('when tokens are issued, then each hash leads to its token and account, and no account document holds a hash', async () => {
    const readStore = await projected();
    expect(await readStore.get(EDITOR_TOKENS, tokenHashOf('token-2'))).toMatchObject({ token_id: 2, editor_id: 1 });
    expect(await readStore.get(EDITOR_TOKENS, tokenHashOf('token-4'))).toMatchObject({ token_id: 4, editor_id: 3 });
    const accounts = JSON.stringify((await readStore.find(ADMIN_EDITORS)).items);
    for (const tokenId of [1, 2, 3, 4]) expect(accounts).not.toContain(tokenHashOf(`token-${tokenId}`));
  });

  it('when a token is revoked or its account deactivated, then the account document says so (the lookup itself never changes)', async () => {
    const readStore = await projected();
    const sara = await readStore.get<Doc & Editor>(ADMIN_EDITORS, 1);
    expect(sara?.tokens.map((token) => [token.token_id, token.revoked_at !== null])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(sara).toMatchObject({ role: 'publisher', name: 'Sara Haddad-Nasser', active: true });
    expect(await readStore.get(ADMIN_EDITORS, 2)).toMatchObject({ active: false });
  });

  it('when every event is applied twice, then the read model is the same as applying it once', async () => {
    const once = await projected();
    const twice = createEmbeddedReadStore();
    await projectInBatches(
      twice,
      editorsProjection,
      history.flatMap((event) => [event, event]),
      5,
    );
    await projectInBatches(twice, editorsProjection, history, 3);
    expect(await readModelOf(twice, [editorsProjection])).toEqual(await readModelOf(once, [editorsProjection]));
  });
});
