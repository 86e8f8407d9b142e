import { describe, expect, it } from 'vitest';
import { AGENT_PROFILES, agentProfilesProjection, type AgentProfileDoc } from '../../projections/agentProfiles.js';
import { agentProfileMediaId, mediaAddressesProjection, mediaAddressOf, resolveKey } from '../../projections/mediaAddresses.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { agentProfileHistory } from '../support/agentProfileEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const history = await recorded(agentProfileHistory());

async function projected() {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, agentProfilesProjection, history, 4);
  await projectInBatches(readStore, mediaAddressesProjection, history, 4);
  return readStore;
}

describe('agent profiles read model', () => {
  it('when the history is projected, then each profile holds its fields, status, revision and tombstone as the write side folds them', async () => {
    const readStore = await projected();
    const first = await readStore.get<AgentProfileDoc>(AGENT_PROFILES, 1);
    expect(first).toMatchObject({
      id: 1,
      client_id: 1,
      company_name: 'Creek Homes',
      status: 'approved',
      picture: { key: 'portrait-1b' },
      deleted: false,
      revision: 6,
      _search: 'agent 1 creek homes agent-1@agency.example',
    });
    expect(await readStore.get(AGENT_PROFILES, 2)).toMatchObject({ status: 'rejected', rejection_reason: 'No picture' });
    expect(await readStore.get(AGENT_PROFILES, 3)).toMatchObject({ deleted: true, picture: null });
  });

  it("when a profile's picture is replaced, removed or the profile deleted, then its media id shows the current portrait or none", async () => {
    const readStore = await projected();
    const media = (id: number) => mediaAddressOf(readStore, agentProfileMediaId(id));
    const first = await media(1);
    expect(first?.current.map((image) => image.key)).toEqual(['portrait-1b']);
    expect(resolveKey(first, 'portrait-1')).toMatchObject({ kind: 'earlier', current: { key: 'portrait-1b' } });
    expect((await media(2))?.current.map((image) => image.key)).toEqual(['portrait-2b']);
    expect(resolveKey(await media(3), 'portrait-3')).toEqual({ kind: 'unknown' });
  });

  it('when every event is applied twice, then the read model is the same as applying it once', async () => {
    const once = await projected();
    const twice = createEmbeddedReadStore();
    await projectInBatches(
      twice,
      agentProfilesProjection,
      history.flatMap((event) => [event, event]),
      5,
    );
    await projectInBatches(twice, agentProfilesProjection, history, 3);
    expect(await readModelOf(twice, [agentProfilesProjection])).toEqual(await readModelOf(once, [agentProfilesProjection]));
  });
});
