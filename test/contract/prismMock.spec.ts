import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiExamplesSchema } from '../../src/http/openApiExamples.js';
import { fetchServedDocuments } from '../support/servedDocuments.js';
import { startPrism, type PrismProcess } from './prismProcess.js';

/*
 * `prism mock` on the served /v1 document: what a consumer without the service sees (README, Contract). It
 * answers from the document alone, so the recorded examples attached to it are what it serves.
 */

const EXAMPLES = openApiExamplesSchema.parse(
  JSON.parse(readFileSync(new URL('../../queries/openApiExamples.json', import.meta.url), 'utf8')),
).operations;

describe('prism mock on the served /v1 document', () => {
  let dataDir: string;
  let mock: PrismProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'prism-mock-'));
    const { publicDocument } = await fetchServedDocuments();
    writeFileSync(join(dataDir, 'v1.yaml'), publicDocument);
    mock = await startPrism(join(dataDir, 'v1.yaml'), { mode: 'mock' });
  }, 180_000);

  afterAll(async () => {
    await mock?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  // Prism checks that a key is sent, not which: any bearer token will do.
  const ask = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${mock.origin}${path}`, { headers: { Authorization: 'Bearer any-key', ...headers } });

  it('when a project is asked of the mock, then it answers the recorded example of a project by its slug', async () => {
    const example = EXAMPLES.getProject!.bySlug!;
    const response = await ask(example.request.target.replace(/^\/v1/, ''));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(example.response.body);
  });

  it('when an error is preferred by its status and example name, then the mock answers the recorded error body of that code', async () => {
    const response = await ask('/projects/no-such-project', { Prefer: 'code=404, example=NOT_FOUND' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});
