import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

const LIMIT = 3;
let api: ApiFixture;

beforeAll(async () => {
  api = await startApiFixture({ env: { EVALUATION_REQUEST_LIMIT: String(LIMIT) } });
  const projects: StreamEvent[] = [];
  for (let id = 1; id <= 50; id++) projects.push(projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id)));
  await api.given([...publishedReferenceCatalogue(), ...projects]);
});

afterAll(async () => {
  await api.close();
});

async function evaluatingTestKey(): Promise<{ clientId: number; key: string }> {
  const { clientId } = await api.issue();
  const key = (await api.admin('POST', `/clients/${clientId}/keys`, { environment: 'test' })).body.data.key as string;
  expect((await api.admin('POST', `/clients/${clientId}/evaluation`, { sample_size: 50 })).status).toBe(200);
  await api.settle();
  return { clientId, key };
}

describe('Evaluation Mode safety threshold', () => {
  it('when an evaluation makes more requests than the threshold, then it is paused for good with EVALUATION_ACCESS_PAUSED', async () => {
    const { clientId, key } = await evaluatingTestKey();
    for (let request = 1; request <= LIMIT; request++) expect((await api.get('/projects/1', key)).status, `request ${request}`).toBe(200);
    const crossing = await api.get('/projects/1', key);
    expect(crossing.status).toBe(403);
    expect(crossing.body.error.code).toBe('EVALUATION_ACCESS_PAUSED');
    await api.settle();
    const client = (await api.admin('GET', `/clients/${clientId}`)).body.data;
    expect(client.access_mode).toMatchObject({ mode: 'evaluation', paused: true });
    expect((await api.get('/projects/1', key)).body.error.code).toBe('EVALUATION_ACCESS_PAUSED');
  });

  it('when another evaluating client is under the threshold, then it is still served; after commercial activation nothing is counted', async () => {
    const { clientId, key } = await evaluatingTestKey();
    expect((await api.get('/projects/1', key)).status).toBe(200);
    await api.admin('POST', `/clients/${clientId}/commercial-activation`, { reason: 'payment' });
    await api.settle();
    for (let request = 0; request <= LIMIT; request++) expect((await api.get('/projects/1', key)).status).toBe(200);
  });
});
