import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { createResponseChecker, type DescribedApi, type ResponseChecker } from './openApiResponses.js';
import { unwrappedFetch, type RecordedExchange } from './recordedResponses.js';
import { startTestApp } from './testApp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What the documents are generated from: the code, the recorded examples (queries/) and the installed packages. */
const SOURCES = ['src', 'queries', 'commands', 'projections'];
const CACHE_DIR = join(tmpdir(), 'catalogue-api-served-openapi');

/** Both OpenAPI documents as a test app serves them (YAML). */
export async function fetchServedDocuments(): Promise<{ publicDocument: string; adminDocument: string }> {
  const app = await startTestApp();
  try {
    const read = async (path: string, token?: string) => {
      const response = await unwrappedFetch(`${app.baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
      return response.text();
    };
    return { publicDocument: await read('/v1/openapi.yaml'), adminDocument: await read('/admin/openapi.yaml', app.adminToken) };
  } finally {
    await app.close();
  }
}

/** Changes whenever a file the documents are generated from does (its size or modification time). */
function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const files = SOURCES.flatMap((source) =>
    readdirSync(join(ROOT, source), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name)),
  );
  for (const file of [...files.sort(), join(ROOT, 'package-lock.json')]) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/**
 * The served documents, parsed. Rendering and parsing them takes over a second, and every test file runs
 * in a process of its own, so the first one to need them keeps them (as JSON, under the fingerprint of the
 * sources) for the others until a source changes.
 */
async function servedDocuments(): Promise<{ publicDocument: any; adminDocument: any }> {
  const cached = join(CACHE_DIR, `${sourceFingerprint()}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    const { publicDocument, adminDocument } = await fetchServedDocuments();
    const documents = { publicDocument: parse(publicDocument), adminDocument: parse(adminDocument) };
    mkdirSync(CACHE_DIR, { recursive: true });
    // Those of earlier sources will not be read again (files being written end in a pid and are left alone).
    for (const stale of readdirSync(CACHE_DIR).filter((name) => name.endsWith('.json'))) rmSync(join(CACHE_DIR, stale), { force: true });
    // Written whole under another name first, so that a file running alongside never reads half of it.
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(documents));
    renameSync(partial, cached);
    return documents;
  }
}

/** The path below which a document's operations are: its first server's, whether that is relative or absolute. */
const mountOf = (document: any): string => new URL(document.servers[0].url, 'http://localhost').pathname.replace(/\/$/, '');

let checker: Promise<ResponseChecker> | undefined;

/** One checker per process: its schemas are compiled once, when an answer first needs each. */
function servedDocumentsChecker(): Promise<ResponseChecker> {
  checker ??= servedDocuments().then(({ publicDocument, adminDocument }) => {
    const apis: DescribedApi[] = [
      { name: 'public', document: publicDocument },
      { name: 'admin', document: adminDocument },
    ].map((api) => ({ ...api, mount: mountOf(api.document) }));
    return createResponseChecker(apis);
  });
  return checker;
}

/** What each recorded answer contradicts in the served documents, one line per mismatch naming its test. */
export async function undocumentedAnswers(exchanges: readonly RecordedExchange[]): Promise<string[]> {
  const check = await servedDocumentsChecker();
  return exchanges.flatMap((exchange) => check.check(exchange).map((mismatch) => `${exchange.test}: ${mismatch}`));
}
