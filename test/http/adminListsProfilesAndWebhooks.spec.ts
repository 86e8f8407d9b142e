import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { request } from '../support/http.js';
import { adminClient, idsOf, type AdminClient } from './adminListsSupport.js';

/** A public address written as a literal, so no test asks a DNS server. */
const PUBLIC_URL = 'https://93.184.215.14/catalogue-hooks';

/** A second per reading, so records made one after the other never share a created_at. */
let now = Date.now();
const clock = () => new Date((now += 1_000));

const aProfile = (agentName: string) => ({
  agent_name: agentName,
  company_name: 'Marina Homes',
  email: `${agentName.toLowerCase().replaceAll(' ', '.')}@marina-homes.example`,
  phone: '+971 50 123 4567',
});

describe('admin lists of agent profiles and webhooks over HTTP', () => {
  let api: ApiFixture;
  let client: AdminClient;
  let owner: IssuedKey;
  let other: IssuedKey;
  const profiles = {} as Record<'sara' | 'omar' | 'lina' | 'gone' | 'rami', number>;
  const webhooks = {} as Record<'crm' | 'paused' | 'gone' | 'othersHook', string>;

  const createWebhook = async (key: IssuedKey, name: string) => {
    const answer = await request(api.app.baseUrl, '/v1/webhooks', {
      method: 'POST',
      token: key.key,
      body: { name, url: PUBLIC_URL, events: ['project.created'] },
    });
    if (answer.status !== 201) throw new Error(`creating a webhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data.id as string;
  };

  beforeAll(async () => {
    api = await startApiFixture({ clock });
    client = await adminClient(api.app);
    owner = await api.issue();
    other = await api.issue();
    const { accepted } = client;
    const profilesOf = (clientId: number) => `/clients/${clientId}/agent-profiles`;
    profiles.sara = (await accepted('POST', profilesOf(owner.clientId), aProfile('Sara Haddad'))).id;
    profiles.omar = (await accepted('POST', profilesOf(owner.clientId), aProfile('Omar Khalil'))).id;
    profiles.lina = (await accepted('POST', profilesOf(owner.clientId), aProfile('Lina Saeed'))).id;
    profiles.gone = (await accepted('POST', profilesOf(owner.clientId), aProfile('Gone Agent'))).id;
    profiles.rami = (await accepted('POST', profilesOf(other.clientId), aProfile('Rami Aziz'))).id;
    await accepted('POST', `/agent-profiles/${profiles.sara}/submit`);
    await accepted('POST', `/agent-profiles/${profiles.sara}/approve`);
    await accepted('POST', `/agent-profiles/${profiles.omar}/submit`);
    await accepted('DELETE', `/agent-profiles/${profiles.gone}`);

    webhooks.crm = await createWebhook(owner, 'CRM');
    webhooks.paused = await createWebhook(owner, 'Paused');
    webhooks.gone = await createWebhook(owner, 'Gone');
    webhooks.othersHook = await createWebhook(other, 'Theirs');
    await accepted('POST', `/webhooks/${webhooks.paused}/disable`);
    const deleted = await request(api.app.baseUrl, `/v1/webhooks/${webhooks.gone}`, { method: 'DELETE', token: owner.key });
    expect(deleted.status).toBe(200);
    await client.projected();
  });
  afterAll(() => api.close());

  it("when a client's agent profiles are listed, then every status but deleted is, with revisions, paged; status and q filter them", async () => {
    const answer = await client.admin(`/clients/${owner.clientId}/agent-profiles`);
    expect(answer.status).toBe(200);
    client.expectDocumented('get', '/clients/{clientId}/agent-profiles', answer);
    expect(idsOf(answer)).toEqual([profiles.sara, profiles.omar, profiles.lina]);
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    const one = await client.admin(`/agent-profiles/${profiles.sara}`);
    expect(answer.body.data[0]).toEqual(one.body.data);
    expect(one.headers.get('etag')).toBe(`"${answer.body.data[0].revision}"`);

    expect(idsOf(await client.admin(`/clients/${owner.clientId}/agent-profiles?status=submitted`))).toEqual([profiles.omar]);
    expect(idsOf(await client.admin(`/clients/${owner.clientId}/agent-profiles?q=lina.saeed@`))).toEqual([profiles.lina]);
    const byName = await client.admin(`/clients/${owner.clientId}/agent-profiles?sort=agent_name&per_page=2&page=2`);
    expect(idsOf(byName)).toEqual([profiles.sara]);
    expect((await client.admin('/clients/999999/agent-profiles')).status).toBe(404);
  });

  it("when every client's agent profiles are listed, then client_id, status and q filter them across clients", async () => {
    const answer = await client.admin('/agent-profiles');
    client.expectDocumented('get', '/agent-profiles', answer);
    expect(idsOf(answer)).toEqual([profiles.sara, profiles.omar, profiles.lina, profiles.rami]);
    expect(idsOf(await client.admin(`/agent-profiles?client_id=${other.clientId}`))).toEqual([profiles.rami]);
    expect(idsOf(await client.admin('/agent-profiles?status=draft'))).toEqual([profiles.lina, profiles.rami]);
    expect(idsOf(await client.admin('/agent-profiles?q=RAMI'))).toEqual([profiles.rami]);
    const unknown = await client.admin('/agent-profiles?deleted=true');
    expect([unknown.status, unknown.body.error.details.fields]).toEqual([422, { 'query.deleted': 'is not a known field' }]);
  });

  it('when webhooks are listed, then deleted ones are left out, each has its revision, and client, status and paging apply', async () => {
    const answer = await client.admin(`/webhooks?client_id=${owner.clientId}`);
    client.expectDocumented('get', '/webhooks', answer);
    expect(idsOf(answer)).toEqual([webhooks.crm, webhooks.paused]);
    const one = await client.admin(`/webhooks/${webhooks.paused}`);
    expect(answer.body.data[1]).toEqual(one.body.data);
    expect(answer.body.data[1]).toMatchObject({ status: 'disabled', disabled_reason: 'admin', revision: 1 });

    expect(idsOf(await client.admin('/webhooks?status=disabled'))).toEqual([webhooks.paused]);
    const paged = await client.admin('/webhooks?sort=-created_at&per_page=1&page=3');
    expect(idsOf(paged)).toEqual([webhooks.crm]);
    expect(paged.body.meta.pagination).toEqual({ page: 3, per_page: 1, total: 3, total_pages: 3 });
    expect(JSON.stringify(answer.body)).not.toMatch(/whsec_|v1:/);
  });

  it('when a webhook list gets a parameter it does not take, then 422 names it', async () => {
    const answer = await client.admin('/webhooks?owner=1&status=paused');
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields).toEqual({
      'query.owner': 'is not a known field',
      'query.status': 'must be one of active, disabled',
    });
  });
});
