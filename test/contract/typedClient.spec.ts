import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { fetchServedDocuments } from '../support/servedDocuments.js';
import {
  allProjectSummaries,
  CatalogueApiError,
  catalogueClient,
  projectDetails,
  projectIfAvailable,
  syncChanges,
  worthRetrying,
  type CatalogueClient,
  type ProjectChange,
} from './catalogueConsumer.js';

const GENERATED = fileURLToPath(new URL('./generated/catalogueApi.ts', import.meta.url));
const REGENERATE = 'npx vitest run test/contract/typedClient.spec.ts --update';

describe('a client generated from /v1/openapi.yaml', () => {
  it('when types are generated from the served document, then they are the committed test/contract/generated/catalogueApi.ts', async () => {
    const { publicDocument } = await fetchServedDocuments();
    // What a consumer runs (README, Contract): openapi-typescript with its defaults, then this repository's formatting.
    const generated = `${COMMENT_HEADER}// Kept current by test/contract/typedClient.spec.ts; regenerate with: ${REGENERATE}\n\n${astToString(await openapiTS(publicDocument))}`;
    const formatted = await format(generated, { ...(await resolveConfig(GENERATED)), filepath: GENERATED });
    await expect(formatted, `the served document changed: ${REGENERATE}`).toMatchFileSnapshot(GENERATED);
  }, 60_000);
});

describe('the typed consumer against the service', () => {
  let api: ApiFixture;
  let client: CatalogueClient;
  const published = (id: number, name: string, at: string) => [
    projectCreated(id, { name, slug: `project-${id}` }, at),
    projectEvent('ProjectPublished', id, {}, at),
  ];

  beforeAll(async () => {
    api = await startApiFixture();
    await api.given([...publishedReferenceCatalogue(), ...published(1, 'Azure Bay', minute(1)), ...published(2, 'Birch Court', minute(2))]);
    client = catalogueClient(`${api.app.baseUrl}/v1`, await api.key());
  });
  afterAll(() => api.close());

  it('when the catalogue is listed page by page and its details are read in a batch, then every project comes once', async () => {
    const summaries = await allProjectSummaries(client, 1);
    expect(summaries.map((project) => project.name)).toEqual(['Azure Bay', 'Birch Court']);
    const details = await projectDetails(
      client,
      summaries.map((project) => project.id),
    );
    expect(details.map((project) => [project.id, project.slug])).toEqual([
      [1, 'project-1'],
      [2, 'project-2'],
    ]);
  });

  it('when the change feed is synced and synced again from its cursor, then each change is applied once', async () => {
    const applied: ProjectChange[] = [];
    const cursor = await syncChanges(client, 'start', (change) => applied.push(change));
    expect(applied.map((change) => change.project?.name)).toEqual(['Azure Bay', 'Birch Court']);
    await api.given([projectEvent('ProjectRevised', 2, { changes: { name: 'Birch Court II' } }, minute(3))]);
    const later: ProjectChange[] = [];
    expect(await syncChanges(client, cursor, (change) => later.push(change))).not.toBe(cursor);
    expect(later.map((change) => [change.project_id, change.project?.name])).toEqual([[2, 'Birch Court II']]);
  });

  it('when the service refuses, then the consumer branches on the error code', async () => {
    expect(await projectIfAvailable(client, '999')).toBeNull();
    expect((await projectIfAvailable(client, 'project-1'))?.name).toBe('Azure Bay');
    const unknownKey = catalogueClient(`${api.app.baseUrl}/v1`, 'svc_live_unknown');
    const refused = await unknownKey.get('/projects', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CatalogueApiError);
    expect(refused).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(worthRetrying(refused)).toBe(false);
    expect(worthRetrying(new CatalogueApiError(503, 'PROJECTION_BEHIND', 'behind', {}))).toBe(true);
  });

  it('when a request the generated types refuse is sent anyway, then the service refuses it as well', async () => {
    // @ts-expect-error per_page is a number in the document.
    const wrongType = client.get('/projects', { query: { per_page: 'ten' } });
    await expect(wrongType).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    // @ts-expect-error the document lists the values of view.
    const wrongValue = client.get('/projects', { query: { view: 'full' } });
    await expect(wrongValue).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    // @ts-expect-error the document has no such parameter.
    const unknownParameter = client.get('/projects', { query: { colour: 'red' } });
    await expect(unknownParameter).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
  });
});
