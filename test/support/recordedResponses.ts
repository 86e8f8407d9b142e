import { expect } from 'vitest';
import type { Exchange } from './openApiResponses.js';

// Every answer a test file receives from the service's two APIs through fetch (test/support/http.ts, the
// API fixture and the suites' own fetch calls) is recorded here, so that setup.ts can check each against
// the served OpenAPI documents once the file's tests have run. Requests that deliberately break the
// protocol are written to raw sockets, never through fetch, so they are not recorded.
//
// Only the service is recorded: the origins the test support starts it on (startTestApp, npmStart) say so
// with serviceListensOn. Express apps a test builds for itself, the metrics port and webhook receivers
// may answer paths like /v1/... too, and are no business of the documents.
//
// Importing this module installs the recording fetch. setup.ts imports it before nock, so that nock's
// interceptor wraps it and passes the loopback requests it lets through to it.

export interface RecordedExchange extends Exchange {
  /** The test (or hook) that made the request. */
  test: string;
}

/** The APIs described by the served documents; other paths (probes, /docs, test servers) are not recorded. */
const API_PATH = /^\/(v1|admin\/v1)(\/|$)/;
const JSON_MEDIA_TYPE = /^application\/(.+\+)?json$/;

const UNWRAPPED_FETCH = Symbol.for('test.support.unwrappedFetch');
const holder = globalThis as typeof globalThis & { [UNWRAPPED_FETCH]?: typeof fetch };
/** fetch as Node provides it (kept across test files should the process be reused). */
export const unwrappedFetch: typeof fetch = (holder[UNWRAPPED_FETCH] ??= globalThis.fetch);

let recordings: Array<Promise<RecordedExchange>> = [];
const serviceOrigins = new Set<string>();

/** The service answers at this origin (`http://127.0.0.1:port`) from now on; the function returned ends that. */
export function serviceListensOn(origin: string): () => void {
  const { origin: normalized } = new URL(origin);
  serviceOrigins.add(normalized);
  return () => serviceOrigins.delete(normalized);
}

function requested(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): { method: string; url: string } {
  if (input instanceof Request) return { method: init?.method ?? input.method, url: input.url };
  return { method: init?.method ?? 'GET', url: String(input) };
}

async function record(method: string, response: Response, test: string): Promise<RecordedExchange> {
  const contentType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  // Only a JSON body is validated; other bodies are left to the test alone (a copy nobody reads holds up neither).
  const body = JSON_MEDIA_TYPE.test(contentType)
    ? // A body cut off (the test closed the server mid-answer) is not the document's business.
      await response
        .clone()
        .text()
        .catch(() => undefined)
    : undefined;
  return { method, url: response.url, status: response.status, headers: response.headers, body, test };
}

async function recordingFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const test = expect.getState().currentTestName ?? 'a beforeAll or afterAll hook';
  const response = await unwrappedFetch(input, init);
  const { method, url } = requested(input, init);
  const answered = new URL(response.url || url);
  // After a redirect the method of the final request depends on the status; only GET and HEAD keep theirs.
  const knownMethod = !response.redirected || ['GET', 'HEAD'].includes(method.toUpperCase());
  if (serviceOrigins.has(answered.origin) && API_PATH.test(answered.pathname) && knownMethod) {
    recordings.push(record(method.toUpperCase(), response, test));
  }
  return response;
}

globalThis.fetch = recordingFetch;

/** The answers recorded since the last call, each body read. */
export async function takeRecordedExchanges(): Promise<RecordedExchange[]> {
  const taken = recordings;
  recordings = [];
  return Promise.all(taken);
}
