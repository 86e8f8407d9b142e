import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { request } from '../support/http.js';
import { adminClient, type AdminClient } from './adminListsSupport.js';

/** A public address written as a literal, so no test asks a DNS server. */
const PUBLIC_URL = 'https://93.184.215.14/catalogue-hooks';

interface Edited {
  /** The list the editors find the record in, and the record's id. */
  list: string;
  id: number | string;
  /** The write both editors send, each with the revision the list showed. */
  method: string;
  path: string;
  body?: (editor: number) => unknown;
}

describe('If-Match on admin writes, with the revisions the lists show', () => {
  let api: ApiFixture;
  let client: AdminClient;
  let owner: IssuedKey;
  const cases: Record<string, Edited> = {};
  /** A webhook nothing else writes. */
  let retriedWebhook: string;

  beforeAll(async () => {
    api = await startApiFixture();
    client = await adminClient(api.app);
    owner = await api.issue();
    const { accepted } = client;
    const state = (await accepted('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).id;
    const community = (await accepted('POST', '/communities', { state_id: state, name: 'Dubai Marina', slug: 'dubai-marina' })).id;
    const developer = (await accepted('POST', '/developers', { name: 'Emaar', slug: 'emaar' })).id;
    const project = (
      await accepted('POST', '/projects', {
        name: 'Marina Heights',
        slug: 'marina-heights',
        developer_id: developer,
        state_id: state,
        community_id: community,
        nature: 'off_plan',
      })
    ).id;
    const profile = (
      await accepted('POST', `/clients/${owner.clientId}/agent-profiles`, {
        agent_name: 'Sara Haddad',
        company_name: 'Marina Homes',
        email: 'sara@marina-homes.example',
        phone: '+971 50 123 4567',
      })
    ).id;
    const hook = await request(api.app.baseUrl, '/v1/webhooks', {
      method: 'POST',
      token: owner.key,
      body: { name: 'CRM', url: PUBLIC_URL, events: ['project.created'] },
    });
    expect(hook.status).toBe(201);
    const erp = await request(api.app.baseUrl, '/v1/webhooks', {
      method: 'POST',
      token: owner.key,
      body: { name: 'ERP', url: PUBLIC_URL, events: ['project.created'] },
    });
    expect(erp.status).toBe(201);
    retriedWebhook = erp.body.data.id;
    Object.assign(cases, {
      project: {
        list: '/projects',
        id: project,
        method: 'PATCH',
        path: `/projects/${project}`,
        body: (editor) => ({ name: `Heights ${editor}` }),
      },
      community: { list: '/communities', id: community, method: 'POST', path: `/communities/${community}/publish` },
      client: {
        list: '/clients',
        id: owner.clientId,
        method: 'PATCH',
        path: `/clients/${owner.clientId}`,
        body: (editor) => ({ name: `Owner ${editor}` }),
      },
      'API key': {
        list: `/clients/${owner.clientId}/keys`,
        id: owner.keyId,
        method: 'POST',
        path: `/clients/${owner.clientId}/keys/${owner.keyId}/deactivate`,
      },
      'agent profile': {
        list: '/agent-profiles',
        id: profile,
        method: 'PATCH',
        path: `/agent-profiles/${profile}`,
        body: (editor) => ({ agent_name: `Sara ${editor}` }),
      },
      webhook: { list: '/webhooks', id: hook.body.data.id, method: 'POST', path: `/webhooks/${hook.body.data.id}/disable` },
    } satisfies Record<string, Edited>);
    await client.projected();
  });
  afterAll(() => api.close());

  it.each(['project', 'community', 'client', 'API key', 'agent profile', 'webhook'])(
    'when two editors write a %s with the revision its list showed, then the first write succeeds and the second is 409 CONFLICT, appending nothing',
    async (name) => {
      const edited = cases[name]!;
      const listed = (await client.admin(`${edited.list}?per_page=100`)).body.data.find((item: { id: unknown }) => item.id === edited.id);
      expect(listed, `${edited.list} lists ${String(edited.id)}`).toBeDefined();
      const ifMatch = { 'if-match': `"${listed.revision}"` };
      const write = (editor: number) =>
        client.admin(edited.path, { method: edited.method, headers: ifMatch, ...(edited.body ? { body: edited.body(editor) } : {}) });

      const first = await write(1);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.headers.get('etag')).toBe(`"${listed.revision + 1}"`);
      const head = await api.app.eventStore.headPosition();
      const second = await write(2);
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { expected_revision: listed.revision, current_revision: listed.revision + 1 },
      });
      expect(await api.app.eventStore.headPosition()).toBe(head);

      await client.projected();
      const relisted = (await client.admin(`${edited.list}?per_page=100`)).body.data.find((item: { id: unknown }) => item.id === edited.id);
      expect(relisted.revision).toBe(listed.revision + 1);
    },
  );

  it('when a create is sent with If-Match, then 409 CONFLICT and no id is used up; without it the create takes the next id', async () => {
    const before = (await client.admin('/states?sort=-id&per_page=1')).body.data[0].id as number;
    const refused = await client.admin('/states', {
      method: 'POST',
      headers: { 'if-match': '"0"' },
      body: { name: 'Sharjah', slug: 'sharjah', country_code: 'AE' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { expected_revision: 0, current_revision: -1 } });
    const created = await client.accepted('POST', '/states', { name: 'Sharjah', slug: 'sharjah', country_code: 'AE' });
    expect(created.id).toBe(before + 1);
  });

  it('when a delivery retry names a stale revision of its webhook, then 409 CONFLICT; the current one lets the retry be judged on the delivery', async () => {
    const retry = (revision: number) =>
      client.admin(`/webhooks/${retriedWebhook}/deliveries/evt_${'0'.repeat(32)}.${retriedWebhook}/retry`, {
        method: 'POST',
        headers: { 'if-match': `"${revision}"` },
      });

    const stale = await retry(7);
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toEqual({ expected_revision: 7, current_revision: 0 });
    const current = await retry(0);
    expect(current.status).toBe(409);
    expect(current.body.error).toMatchObject({ code: 'CONFLICT', details: {} });
    expect(current.body.error.message).toMatch(/has not failed/);
  });
});
