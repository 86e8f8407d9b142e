import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EXAMPLES_ENVIRONMENT, adminSceneOf, recordExchanges } from '../../src/cli/adminOpenApiExamples.js';
import {
  EXAMPLES_EPOCH,
  LINK_SIGNING_SECRET,
  PUBLIC_BASE_URL,
  requestIdFor,
  SEED_PROJECTS,
  withExampleService,
} from '../../src/cli/exampleRecording.js';
import { loadConfig } from '../../src/config.js';
import { openApiExamplesSchema, type RecordedExample } from '../../src/http/openApiExamples.js';
import { createLogger } from '../../src/logger.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { DEMO_API_KEYS_FILE_NAME } from '../../src/seed/demoClient.js';
import { request } from '../support/http.js';
import { fetchServedDocuments } from '../support/servedDocuments.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startPrism, type PrismProcess } from './prismProcess.js';
import { startUpstreamTap, type UpstreamTap } from './prismUpstreamTap.js';

/*
 * Issue 21's "done when": a validating proxy in front of the service sees no violation over a sweep of every
 * operation, and refuses every invalid request OpenAPI can express. Prism (`prism proxy --errors`) stands
 * in front of the service with the documents the service serves; between Prism and the service a tap keeps
 * the service's own answers, so each answer Prism passes on is compared with the one the service gave.
 *
 * The sweep replays the requests recorded in queries/openApiExamples.json. The service runs as
 * `npm run openapi:examples` (src/cli/openApiExamples.ts) ran it to record them: the demo catalogue of 30
 * projects, the same link signing secret and public base URL, its clock at the same epoch, so that the
 * recorded slugs, media keys and signed links hold; what the service makes afresh (a webhook's id, a
 * cursor, a write's position) is taken from the live answer and put in the later requests in its place.
 *
 * A second Prism, on the admin document, sees the refusals of its request bodies and parameters, and every
 * admin example (src/http/adminOpenApiExamples.json) recorded again: src/cli/adminOpenApiExamples.ts's own
 * scenario runs on a service started as it starts one, its requests sent through Prism, so that each example
 * meets the state it was recorded in and carries the ids, revisions and positions of the live answers.
 */

const EXAMPLES = openApiExamplesSchema.parse(
  JSON.parse(readFileSync(new URL('../../queries/openApiExamples.json', import.meta.url), 'utf8')),
).operations;

/** As src/cli/openApiExamples.ts records the examples. */
const RECORDING_ENV = { SEED_DEMO: 'true', SEED_PROJECTS: String(SEED_PROJECTS), LINK_SIGNING_SECRET, PUBLIC_BASE_URL };
/**
 * The recorded webhook's host resolves nowhere here; the same URL on this machine (nothing listens on port 9,
 * so the test delivery fails at once, as the recorded one did) is allowed by WEBHOOK_ALLOWED_PRIVATE_CIDRS.
 */
const WEBHOOK_HOST = { recorded: 'https://hooks.demo-agency.example/', here: 'https://127.0.0.1:9/' };

/**
 * Recorded examples the sweep does not send through Prism, and why. Those the document refuses are sent in
 * the refusals' test instead (REFUSALS).
 */
const NOT_REPLAYED: Readonly<Record<string, string>> = {
  // The four refusals of a request head are written to a raw socket: no HTTP client sends them, and Node's
  // HTTP server, Prism's as much as the service's, answers them before any handler could forward them.
  'getHealth/BAD_REQUEST': 'a header line that cannot be read: refused by the HTTP parser',
  'getHealth/REQUEST_TIMEOUT': 'a request head that never ends: there is no request to forward',
  'getHealth/EXPECTATION_FAILED': 'an Expect header other than 100-continue: answered by the HTTP server itself',
  'getHealth/HEADERS_TOO_LARGE': 'a 17 KB header: refused by the HTTP parser',
  'getImage/BAD_REQUEST':
    'a malformed percent-encoding in a path parameter throws URIError in Prism 5.14.2’s path validation (uri-template-lite’s match in @stoplight/prism-http validator getPathParams) and the Prism process exits',
  'getProject/INTERNAL_ERROR': 'not provoked: the error middleware’s answer to an error it does not know (see its description)',
  'getImage/SERVICE_UNAVAILABLE': 'not provoked: the error middleware’s answer to DependencyUnavailable (see its description)',
  'generateProjectPdf/RENDERER_UNAVAILABLE': 'not provoked: the error middleware’s answer to RendererUnavailable (see its description)',
  'generateProjectPdf/RENDER_TIMEOUT': 'not provoked: the error middleware’s answer to RenderTimeout (see its description)',
  'createWebhook/PAYLOAD_TOO_LARGE':
    'its 1.1 MB body is not recorded (only its headers); OpenAPI cannot bound a body’s size, so no proxy judges it by its size',
};

const ADMIN_EXAMPLES = openApiExamplesSchema.parse(
  JSON.parse(readFileSync(new URL('../../src/http/adminOpenApiExamples.json', import.meta.url), 'utf8')),
).operations;

/** Admin examples the sweep does not send through Prism (the recorder sends them to the service itself), and why. */
const ADMIN_NOT_REPLAYED: Readonly<Record<string, string>> = {
  'listStates/BAD_REQUEST': NOT_REPLAYED['getHealth/BAD_REQUEST']!,
  'listStates/REQUEST_TIMEOUT': NOT_REPLAYED['getHealth/REQUEST_TIMEOUT']!,
  'listStates/EXPECTATION_FAILED': NOT_REPLAYED['getHealth/EXPECTATION_FAILED']!,
  'listStates/HEADERS_TOO_LARGE': NOT_REPLAYED['getHealth/HEADERS_TOO_LARGE']!,
  'importCatalogue/PAYLOAD_TOO_LARGE':
    'a Content-Length of 300 MB with no body, written to a raw socket: the service refuses it by its head alone',
  'getClient/INTERNAL_ERROR': 'not provoked: the error middleware’s answer to an error it does not know (see its description)',
  'getClient/SERVICE_UNAVAILABLE': 'not provoked: the error middleware’s answer to DependencyUnavailable (see its description)',
  'registerClient/SERVICE_UNAVAILABLE': 'not provoked: the error middleware’s answer to DependencyUnavailable (see its description)',
  'replaceFloorPlanImage/pictureAsBody':
    'a PNG as the body: Prism 5 reads a request body as text and forwards other bytes (stoplightio/prism#1321), so the service no longer finds a picture',
  'addGalleryPicture/FILE_CORRUPT': 'half a PNG as the body: Prism 5 changes bytes that are no UTF-8 on their way (stoplightio/prism#1321)',
};

/** Admin examples whose requests break a rule the document states: Prism refuses them without forwarding them. */
const ADMIN_REFUSED: Readonly<Record<string, { why: string; prism: PrismRefusal }>> = {
  'listStates/UNAUTHENTICATED': { why: 'no token', prism: { status: 401 } },
  'listStates/VALIDATION_FAILED': { why: 'per_page over 100', prism: { status: 422, location: 'query.per_page' } },
  'createState/VALIDATION_FAILED': { why: 'an unknown field and an empty name', prism: { status: 422, location: 'body.name' } },
  'createState/PAYLOAD_TOO_LARGE': {
    why: 'a name over 200 characters (its size, 1.1 MB, no document can bound)',
    prism: { status: 422, location: 'body.name' },
  },
  'createState/UNSUPPORTED_MEDIA_TYPE': { why: 'a form body, where the operation takes JSON', prism: { status: 422 } },
  'createDeveloper/UNSUPPORTED_MEDIA_TYPE': {
    why: 'a text body, where the operation takes JSON, a form or a picture',
    prism: { status: 422 },
  },
  'addFloorPlan/VALIDATION_FAILED': { why: 'a floor plan without its required title', prism: { status: 422, location: 'body' } },
  'importCatalogue/UNSUPPORTED_MEDIA_TYPE': { why: 'a JSON array, where the operation takes NDJSON', prism: { status: 422 } },
};

/**
 * The brochure renderer as a double (Chromium is test/pdf's business). It says when a render begins, and
 * takes long enough that a request sent then, through Prism on a loaded machine, meets it in progress.
 */
function slowRenderer() {
  let begins: (() => void) | undefined;
  return {
    nextRenderBegins: () => new Promise<void>((resolve) => (begins = resolve)),
    async render(request: BrochureRequest) {
      begins?.();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return { pdf: Buffer.from(`%PDF-1.7\n% brochure of project ${request.projectId}\n%%EOF\n`), pages: 1, mapDrawn: false };
    },
  };
}

/** Each operation of the document by its operationId: whether it takes no key. */
function operationsOf(document: any): Map<string, { keyless: boolean }> {
  const operations = new Map<string, { keyless: boolean }>();
  for (const item of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(item)) {
      if (typeof operation?.operationId !== 'string') continue;
      const security = operation.security ?? document.security ?? [];
      operations.set(operation.operationId, { keyless: security.length === 0 });
    }
  }
  return operations;
}

/** What came back through Prism, and what the service had answered to the same request. */
interface Proxied {
  status: number;
  headers: Headers;
  body: Buffer;
  upstream: ReturnType<UpstreamTap['answerTo']>;
}

/** What is wrong with Prism's refusal: another status, or no violation where one was expected. */
function prismRefusalFault(proxied: Proxied, expected: PrismRefusal): string | undefined {
  if (proxied.status !== expected.status) return `Prism answered ${proxied.status}: ${proxied.body.toString('utf8').slice(0, 300)}`;
  if (expected.location === undefined) return undefined;
  // Prism names a path parameter in lower case, and an item of a list by its index (query.include.0).
  const wanted = expected.location.toLowerCase();
  const locations = ((json(proxied.body).validation ?? []) as Array<{ location: string[] }>).map(({ location }) => location.join('.'));
  if (locations.some((location) => location.toLowerCase() === wanted || location.toLowerCase().startsWith(`${wanted}.`))) return undefined;
  return `Prism's violations are at ${locations.join(', ')}, not ${expected.location}: ${proxied.body.toString('utf8').slice(0, 500)}`;
}

const isText = (contentType: string | null | undefined) => /json|yaml|text/.test(contentType ?? '');
const json = (body: Buffer) => JSON.parse(body.toString('utf8'));

describe('a validating proxy (Prism) in front of the service', () => {
  let dataDir: string;
  let app: TestApp;
  let tap: UpstreamTap;
  /** Between the admin Prism and a service: the test app, then the admin examples' own service. */
  let adminTap: UpstreamTap;
  let publicPrism: PrismProcess;
  let adminPrism: PrismProcess;
  let publicOperations: Map<string, { keyless: boolean }>;
  let served: { publicDocument: string; adminDocument: string };
  let liveKey: string;
  let demoClientId: number;
  const renderer = slowRenderer();
  /** Moves the service's clock on (links expire). */
  let clockJumpMs = 0;

  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await request(app.baseUrl, `/admin/v1${path}`, {
      method,
      token: app.adminToken,
      ...(body === undefined ? {} : { body }),
    });
    if (answer.status >= 300) throw new Error(`${method} /admin/v1${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  /** A request through a Prism (mounted at `mount` on the service), with a fresh X-Request-Id the tap keys its record by. */
  const throughPrism = async (
    prism: PrismProcess,
    mount: string,
    sent: { method: string; target: string; headers?: Record<string, string>; body?: string | Buffer },
  ): Promise<Proxied> => {
    if (!sent.target.startsWith(`${mount}/`)) throw new Error(`${sent.target} is not below ${mount}`);
    const requestId = randomUUID();
    const response = await fetch(`${prism.origin}${sent.target.slice(mount.length)}`, {
      method: sent.method,
      headers: { ...sent.headers, 'X-Request-Id': requestId },
      redirect: 'manual',
      ...(sent.body === undefined ? {} : { body: sent.body }),
    });
    const body = Buffer.from(await response.arrayBuffer());
    return {
      status: response.status,
      headers: response.headers,
      body,
      upstream: (prism === adminPrism ? adminTap : tap).answerTo(requestId),
    };
  };

  /** What is wrong with an answer Prism passed on: a violation, or a difference from the service's own answer. */
  const faultsOf = (proxied: Proxied, method: string): string[] => {
    const faults: string[] = [];
    const violations = proxied.headers.get('sl-violations');
    if (violations !== null) faults.push(`sl-violations: ${violations}`);
    const { upstream } = proxied;
    if (upstream === undefined)
      return [...faults, `not forwarded; Prism answered ${proxied.status}: ${proxied.body.toString('utf8').slice(0, 500)}`];
    if (upstream.status !== proxied.status) faults.push(`Prism answered ${proxied.status}, the service ${upstream.status}`);
    const contentType = upstream.headers['content-type'];
    if (proxied.headers.get('content-type') !== (contentType ?? null)) {
      faults.push(`content-type ${proxied.headers.get('content-type')}, the service's ${contentType}`);
    }
    // Prism reads every answer as text and writes it out again, so bytes that are no UTF-8 (a picture, a
    // PDF) come out changed (stoplightio/prism#1321: it does not pass binary bodies through); and it sends
    // a HEAD answer's Content-Length as 0. Text is passed on as it is and compared byte for byte.
    if (method !== 'HEAD' && isText(contentType) && !proxied.body.equals(upstream.body)) {
      faults.push(`body differs from the service's: ${proxied.body.toString('utf8').slice(0, 300)}`);
    }
    return faults;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'prism-proxy-'));
    [tap, adminTap] = await Promise.all([startUpstreamTap(), startUpstreamTap()]);
    // Prism's start and the demo catalogue's seed take many seconds each, so Prism starts meanwhile on the
    // documents of a bare test app; a test below shows they are the seeded service's own.
    const prismsStarted = fetchServedDocuments().then(async (documents) => {
      served = documents;
      publicOperations = operationsOf(parse(documents.publicDocument));
      writeFileSync(join(dataDir, 'v1.yaml'), documents.publicDocument);
      writeFileSync(join(dataDir, 'admin.yaml'), documents.adminDocument);
      // Prism matches a request's path against `paths` alone, whatever `servers` says, and appends it to
      // the upstream address: so the upstream is the API's mount on the service.
      const started = await Promise.allSettled([
        startPrism(join(dataDir, 'v1.yaml'), { mode: 'proxy', upstream: `${tap.origin}/v1` }),
        startPrism(join(dataDir, 'admin.yaml'), { mode: 'proxy', upstream: `${adminTap.origin}/admin/v1` }),
      ]);
      if (started[0].status === 'fulfilled') publicPrism = started[0].value;
      if (started[1].status === 'fulfilled') adminPrism = started[1].value;
      for (const result of started) if (result.status === 'rejected') throw result.reason;
    });
    const startedAt = Date.now();
    const appStarted = startTestApp({
      dataDir,
      env: { DATA_DIR: dataDir, ...RECORDING_ENV, WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.1/32', CONSISTENCY_WAIT_MS: '300' },
      clock: () => new Date(EXAMPLES_EPOCH + (Date.now() - startedAt) + clockJumpMs),
      brochureRenderer: renderer,
    }).then((started) => {
      app = started;
      tap.forwardTo(app.baseUrl);
      adminTap.forwardTo(app.baseUrl);
    });
    // Both run to their end, so that afterAll stops whatever did start.
    for (const result of await Promise.allSettled([prismsStarted, appStarted])) if (result.status === 'rejected') throw result.reason;

    const keys = readFileSync(join(dataDir, DEMO_API_KEYS_FILE_NAME), 'utf8');
    liveKey = /^DEMO_API_KEY_LIVE=(\S+)$/m.exec(keys)![1]!;
    demoClientId = Number(/\(client (\d+),/.exec(keys)![1]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([publicPrism?.stop(), adminPrism?.stop()]);
    await Promise.all([tap?.close(), adminTap?.close()]);
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the recorded examples are listed, then each is replayed, refused as invalid or named with the reason it cannot be', () => {
    const all = Object.entries(EXAMPLES).flatMap(([operationId, examples]) =>
      Object.keys(examples).map((name) => `${operationId}/${name}`),
    );
    const accounted = new Set([
      ...SWEEP.flatMap((step) => ('replay' in step ? [step.replay, ...(step.whileRendering ? [step.whileRendering] : [])] : [])),
      ...Object.keys(NOT_REPLAYED),
      ...REFUSALS.flatMap((refusal) => (refusal.example === undefined ? [] : [refusal.example])),
    ]);
    expect(all.filter((example) => !accounted.has(example))).toEqual([]);
    expect([...accounted].filter((example) => !all.includes(example))).toEqual([]);
  });

  it('when the seeded service’s documents are read, then they are those Prism validates against, but for their servers', async () => {
    // The top-level `servers` block, to the next top-level key (compared as text: parsing takes seconds).
    const withoutServers = (text: string) => text.replace(/^servers:\n(?: .*\n)*/m, '');
    const publicDocument = (await request(app.baseUrl, '/v1/openapi.yaml')).body as string;
    const adminDocument = (await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body as string;
    expect(withoutServers(publicDocument)).toEqual(withoutServers(served.publicDocument));
    expect(withoutServers(adminDocument)).toEqual(withoutServers(served.adminDocument));
  });

  it('when a request breaks a rule the document states, then Prism refuses it without forwarding it, naming the parameter, and the service refuses it too', async () => {
    const faults: string[] = [];
    for (const refusal of REFUSALS) {
      const sent = sentOf(refusal, liveKey, app.adminToken);
      const [prism, mount] = refusal.api === 'admin' ? [adminPrism, '/admin/v1'] : [publicPrism, '/v1'];
      const proxied = await throughPrism(prism, mount, sent);
      const fault = (what: string) => faults.push(`${refusal.what}: ${what}`);
      if (proxied.upstream !== undefined) fault(`forwarded; the service answered ${proxied.upstream.status}`);
      const refusalFault = prismRefusalFault(proxied, refusal.prism);
      if (refusalFault !== undefined) fault(refusalFault);
      const direct = await request(app.baseUrl, sent.target, {
        method: sent.method,
        headers: sent.headers,
        ...(sent.body === undefined ? {} : { body: sent.body }),
      });
      if (direct.status !== refusal.service.status || direct.body?.error?.code !== refusal.service.code) {
        fault(`the service answered ${direct.status}: ${JSON.stringify(direct.body)}`);
      } else if (refusal.service.field !== undefined && !(refusal.service.field in (direct.body.error.details?.fields ?? {}))) {
        fault(`the service's error names ${JSON.stringify(direct.body.error.details)}, not ${refusal.service.field}`);
      }
    }
    expect(faults).toEqual([]);
  });

  it('when a request breaks a rule OpenAPI cannot express, then Prism forwards it and passes on the service’s refusal', async () => {
    const faults: string[] = [];
    for (const refusal of BEYOND_OPENAPI) {
      const sent = sentOf(refusal, liveKey, app.adminToken);
      const proxied = await throughPrism(publicPrism, '/v1', sent);
      faults.push(...faultsOf(proxied, sent.method).map((fault) => `${refusal.what}: ${fault}`));
      const body = proxied.upstream === undefined ? undefined : json(proxied.upstream.body);
      if (proxied.status !== refusal.service.status || body?.error?.code !== refusal.service.code) {
        faults.push(`${refusal.what}: answered ${proxied.status}: ${proxied.body.toString('utf8').slice(0, 300)}`);
      } else if (refusal.service.field !== undefined && !(refusal.service.field in (body.error.details?.fields ?? {}))) {
        faults.push(`${refusal.what}: the service's error names ${JSON.stringify(body.error.details)}, not ${refusal.service.field}`);
      }
    }
    expect(faults).toEqual([]);
  });

  it('when the admin examples are recorded again through Prism, then it finds no violation and passes on the service’s answers, every example replayed, refused as invalid or named with the reason it cannot be', async () => {
    const exampleOf = new Map<string, string>(
      Object.entries(ADMIN_EXAMPLES).flatMap(([operationId, examples]) =>
        Object.keys(examples).map((name) => [requestIdFor(`${operationId}/${name}`), `${operationId}/${name}`] as const),
      ),
    );
    const replayed = new Set<string>();
    /** Each example Prism refused, with what is wrong with its refusal (if anything). */
    const refused = new Map<string, string | undefined>();
    const succeeded = new Set<string>();
    const faults: string[] = [];
    const direct = globalThis.fetch;
    await withExampleService(loadConfig({}), createLogger({ level: 'silent' }), ADMIN_EXAMPLES_ENVIRONMENT, async (running) => {
      adminTap.forwardTo(running.origin);
      const scene = await adminSceneOf(running);
      // The recorder sends each example with fetch and the example's own X-Request-Id; those requests go
      // through Prism, what it sends to set up or look up goes to the service as it is.
      const viaPrism = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
        const url = String(input);
        // throughPrism sends its own X-Request-Id, which the tap keys the service's answer by.
        const { 'x-request-id': requestId, ...headers } = Object.fromEntries(new Headers(init.headers));
        const example = exampleOf.get(requestId ?? '');
        if (example === undefined || example in ADMIN_NOT_REPLAYED || !url.startsWith(`${running.origin}/admin/v1/`))
          return direct(input, init);
        const method = init.method ?? 'GET';
        const proxied = await throughPrism(adminPrism, '/admin/v1', {
          method,
          target: url.slice(running.origin.length),
          headers,
          ...(init.body === undefined || init.body === null ? {} : { body: init.body as string | Buffer }),
        });
        if (proxied.upstream === undefined) {
          // Refused without forwarding: the service's own refusal lets the scenario go on.
          const expected = ADMIN_REFUSED[example];
          refused.set(
            example,
            expected === undefined
              ? `not listed in ADMIN_REFUSED; Prism answered ${proxied.status}: ${proxied.body.toString('utf8').slice(0, 300)}`
              : prismRefusalFault(proxied, expected.prism),
          );
          return direct(input, init);
        }
        replayed.add(example);
        faults.push(...faultsOf(proxied, method).map((fault) => `${example}: ${fault}`));
        if (proxied.status < 400) succeeded.add(example.split('/')[0]!);
        const empty = proxied.body.length === 0 || [204, 304].includes(proxied.status);
        return new Response(empty ? null : proxied.body, { status: proxied.status, headers: proxied.headers });
      };
      vi.stubGlobal('fetch', viaPrism);
      try {
        await recordExchanges(scene);
      } finally {
        vi.unstubAllGlobals();
      }
      // The same examples as recorded (the recorder checked each status); what each answered is checked above.
      const namesOf = (operations: Record<string, Record<string, unknown>>) =>
        Object.entries(operations)
          .flatMap(([operationId, examples]) => Object.keys(examples).map((name) => `${operationId}/${name}`))
          .sort();
      expect(namesOf(scene.recorder.examples)).toEqual(namesOf(ADMIN_EXAMPLES));
    });

    expect(faults).toEqual([]);
    expect(Object.fromEntries([...refused].filter(([, fault]) => fault !== undefined))).toEqual({});
    expect(Object.keys(ADMIN_REFUSED).filter((example) => !refused.has(example))).toEqual([]);
    expect(
      [...exampleOf.values()].filter((example) => !replayed.has(example) && !refused.has(example) && !(example in ADMIN_NOT_REPLAYED)),
    ).toEqual([]);
    expect(Object.keys(ADMIN_NOT_REPLAYED).filter((example) => ![...exampleOf.values()].includes(example))).toEqual([]);
    expect(Object.keys(ADMIN_EXAMPLES).filter((operationId) => !succeeded.has(operationId))).toEqual([]);
  }, 300_000);

  // Last: its final steps stop the projector and close the read store.
  it('when every recorded example is replayed through Prism, then it finds no violation and passes on the service’s answers, every operation answered with success', async () => {
    const keys: Record<KeyName, string | undefined> = {
      demo: liveKey,
      none: undefined,
      starter: undefined,
      projectsOnly: undefined,
      onePerMinute: undefined,
    };
    /** Values the service made afresh: the recorded one → the live one, in later targets, headers and bodies. */
    const fresh = new Map<string, string>([[WEBHOOK_HOST.recorded, WEBHOOK_HOST.here]]);
    const refresh = (text: string) => [...fresh].reduce((replaced, [recorded, live]) => replaced.replaceAll(recorded, live), text);
    const faults: string[] = [];
    const succeeded = new Set<string>();

    const replay = async (step: ReplayStep): Promise<void> => {
      const [operationId, name] = step.replay.split('/') as [string, string];
      const example: RecordedExample = EXAMPLES[operationId]![name]!;
      const operation = publicOperations.get(operationId)!;
      const key = keys[step.key ?? (operation.keyless ? 'none' : 'demo')];
      const headers: Record<string, string> = Object.fromEntries(
        Object.entries(example.request.headers ?? {}).map(([header, value]) => [header, refresh(value)]),
      );
      if (key !== undefined) headers.Authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (example.request.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = refresh(JSON.stringify(example.request.body));
      }
      const proxied = await throughPrism(publicPrism, '/v1', {
        method: example.request.method,
        target: refresh(example.request.target),
        headers,
        body,
      });
      // Where Prism follows the service's redirect itself, only what reached the service can be judged.
      const stepFaults = step.redirectFollowedByPrism
        ? proxied.upstream === undefined
          ? [`not forwarded; Prism answered ${proxied.status}`]
          : []
        : faultsOf(proxied, example.request.method);
      const status = step.redirectFollowedByPrism ? proxied.upstream?.status : proxied.status;
      if (status !== example.response.status) stepFaults.push(`answered ${status} where the example was ${example.response.status}`);
      faults.push(...stepFaults.map((fault) => `${step.replay}: ${fault}`));
      if (status !== undefined && status < 400) succeeded.add(operationId);
      if (isText(proxied.headers.get('content-type')) && example.response.contentType === 'application/json') {
        const live = json(proxied.body);
        const recorded = example.response.body as any;
        for (const [was, is] of [
          [recorded?.data?.id, live?.data?.id],
          [recorded?.meta?.cursor, live?.meta?.cursor],
        ]) {
          if (typeof was === 'string' && typeof is === 'string' && was !== is) fresh.set(was, is);
        }
      }
    };

    const scene: Scene = { app, admin, keys, fresh, demoClientId, jumpClock: (ms) => (clockJumpMs += ms) };
    for (const step of SWEEP) {
      if ('setUp' in step) await step.run(scene);
      else if (step.whileRendering === undefined) await replay(step);
      else {
        const renderBegins = renderer.nextRenderBegins();
        const first = replay({ replay: step.whileRendering });
        await renderBegins;
        await replay(step);
        await first;
      }
    }

    expect(faults).toEqual([]);
    expect([...publicOperations.keys()].filter((operationId) => !succeeded.has(operationId))).toEqual([]);
  }, 120_000);
});

/** Prism's answer to a request it refuses, and where (`in.name`) its violation is. */
interface PrismRefusal {
  status: number;
  location?: string;
}

type KeyName = 'demo' | 'none' | 'starter' | 'projectsOnly' | 'onePerMinute';

interface Scene {
  app: TestApp;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  keys: Record<KeyName, string | undefined>;
  fresh: Map<string, string>;
  demoClientId: number;
  jumpClock(ms: number): void;
}

interface ReplayStep {
  /** `operationId/example name` */
  replay: string;
  /** Whose key; default: the demo client's, or none where the operation takes none. */
  key?: KeyName;
  /** Sent while the brochure this other example's request asks for is being rendered. */
  whileRendering?: string;
  /**
   * Prism 5 follows an upstream redirect itself instead of passing it on (stoplightio/prism#1977, open), here
   * to a developer's host this machine cannot reach, and answers 500: the request is still validated and
   * forwarded, and the service's own answer is the recorded redirect.
   */
  redirectFollowedByPrism?: true;
}

type SweepStep = ReplayStep | { setUp: string; run(scene: Scene): Promise<void> };

interface Refusal {
  what: string;
  api?: 'admin';
  /** A recorded example's request, or one written here. */
  example?: string;
  method?: string;
  target?: string;
  body?: unknown;
  /** A body that is no JSON, with its media type. */
  rawBody?: { contentType: string; text: string };
  /** Sent without a key (or admin token). */
  keyless?: true;
  prism: PrismRefusal;
  /** The service's answer, and the field its error names. */
  service: { status: number; code: string; field?: string };
}

function sentOf(
  refusal: Omit<Refusal, 'prism'>,
  liveKey: string,
  adminToken: string,
): { method: string; target: string; headers: Record<string, string>; body?: string } {
  const recorded =
    refusal.example === undefined ? undefined : EXAMPLES[refusal.example.split('/')[0]!]![refusal.example.split('/')[1]!]!.request;
  const headers: Record<string, string> = {};
  if (!refusal.keyless) headers.authorization = `Bearer ${refusal.api === 'admin' ? adminToken : liveKey}`;
  const json = refusal.body ?? recorded?.body;
  let body: string | undefined;
  if (refusal.rawBody !== undefined) {
    headers['content-type'] = refusal.rawBody.contentType;
    body = refusal.rawBody.text;
  } else if (json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  }
  return {
    method: refusal.method ?? recorded?.method ?? 'GET',
    target: refusal.target ?? recorded!.target,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1).join(',');
const invalid = (field: string) => ({ status: 422, code: 'VALIDATION_FAILED', field });

const A_WEBHOOK = { name: 'Catalogue sync', url: 'https://127.0.0.1:9/catalogue', events: ['project.created'] };
const A_PLAN = {
  key: 'prism-plan',
  name: 'Prism plan',
  scopes: [],
  entitlements: [],
  limits: { burst: { requests: 10, window_ms: 1_000 }, per_minute: 60, daily: 1_000, monthly: 10_000, test_daily: 100, overage: null },
};

/** Requests the documents refuse, as the service does: each rule OpenAPI can state, stated. */
const REFUSALS: Refusal[] = [
  {
    what: 'no API key',
    example: 'listProjects/UNAUTHENTICATED',
    keyless: true,
    prism: { status: 401 },
    service: { status: 401, code: 'UNAUTHENTICATED' },
  },
  {
    what: 'per_page over 100 (and an unknown parameter)',
    example: 'listProjects/VALIDATION_FAILED',
    prism: { status: 422, location: 'query.per_page' },
    service: invalid('query.per_page'),
  },
  {
    what: 'page 0 of projects',
    target: '/v1/projects?page=0',
    prism: { status: 422, location: 'query.page' },
    service: invalid('query.page'),
  },
  {
    what: 'per_page 0 of projects',
    target: '/v1/projects?per_page=0',
    prism: { status: 422, location: 'query.per_page' },
    service: invalid('query.per_page'),
  },
  {
    what: 'per_page 0 of the change feed',
    target: '/v1/projects/changes?cursor=start&per_page=0',
    prism: { status: 422, location: 'query.per_page' },
    service: invalid('query.per_page'),
  },
  {
    what: 'per_page 101 of the change feed',
    target: '/v1/projects/changes?cursor=start&per_page=101',
    prism: { status: 422, location: 'query.per_page' },
    service: invalid('query.per_page'),
  },
  {
    what: 'page 0 of webhooks',
    target: '/v1/webhooks?page=0',
    prism: { status: 422, location: 'query.page' },
    service: invalid('query.page'),
  },
  {
    what: 'an id twice',
    target: '/v1/projects?ids=18,18&view=detail',
    prism: { status: 422, location: 'query.ids' },
    service: invalid('query.ids'),
  },
  {
    what: '101 ids',
    target: `/v1/projects?ids=${ids(101)}&view=detail`,
    prism: { status: 422, location: 'query.ids' },
    service: invalid('query.ids'),
  },
  {
    what: '26 ids in a batch',
    target: `/v1/projects/resources?ids=${ids(26)}&include=floor_plans`,
    prism: { status: 422, location: 'query.ids' },
    service: invalid('query.ids'),
  },
  {
    what: 'a batch without ids',
    target: '/v1/projects/resources?include=floor_plans',
    prism: { status: 422, location: 'query' },
    service: invalid('query.ids'),
  },
  {
    what: 'an unknown include',
    target: '/v1/projects/resources?ids=18&include=brochures',
    prism: { status: 422, location: 'query.include' },
    service: invalid('query.include'),
  },
  {
    what: 'an include twice',
    target: '/v1/projects/resources?ids=18&include=floor_plans,floor_plans',
    prism: { status: 422, location: 'query.include' },
    service: invalid('query.include'),
  },
  {
    what: 'a negative min_price',
    target: '/v1/projects?min_price=-1',
    prism: { status: 422, location: 'query.min_price' },
    service: invalid('query.min_price'),
  },
  {
    what: 'a price that is no number',
    target: '/v1/projects?max_price=cheap',
    prism: { status: 422, location: 'query.max_price' },
    service: invalid('query.max_price'),
  },
  {
    what: 'an unknown sort',
    target: '/v1/projects?sort=price',
    prism: { status: 422, location: 'query.sort' },
    service: invalid('query.sort'),
  },
  {
    what: 'an unknown view',
    target: '/v1/projects?view=full',
    prism: { status: 422, location: 'query.view' },
    service: invalid('query.view'),
  },
  {
    what: 'an unknown nature',
    target: '/v1/projects?nature=rented',
    prism: { status: 422, location: 'query.nature' },
    service: invalid('query.nature'),
  },
  {
    what: 'a q over 200 characters',
    target: `/v1/projects?q=${'x'.repeat(201)}`,
    prism: { status: 422, location: 'query.q' },
    service: invalid('query.q'),
  },
  {
    what: 'a webhook id of the wrong form',
    example: 'listWebhookDeliveries/VALIDATION_FAILED',
    prism: { status: 422, location: 'path.id' },
    service: invalid('params.id'),
  },
  {
    what: 'a webhook with an empty name, a URL with a fragment and an unknown event',
    example: 'createWebhook/VALIDATION_FAILED',
    prism: { status: 422, location: 'body.name' },
    service: invalid('body.name'),
  },
  {
    what: 'a webhook with an unknown field',
    method: 'POST',
    target: '/v1/webhooks',
    body: { ...A_WEBHOOK, colour: 'blue' },
    prism: { status: 422, location: 'body' },
    service: invalid('body.colour'),
  },
  {
    what: 'a webhook naming an event twice',
    method: 'POST',
    target: '/v1/webhooks',
    body: { ...A_WEBHOOK, events: ['project.created', 'project.created'] },
    prism: { status: 422, location: 'body.events' },
    service: invalid('body.events'),
  },
  {
    what: 'a body that is no JSON',
    example: 'createWebhook/UNSUPPORTED_MEDIA_TYPE',
    rawBody: { contentType: 'application/x-www-form-urlencoded', text: 'name=Catalogue+sync' },
    prism: { status: 422 },
    service: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    what: 'a brochure section asked for twice',
    example: 'generateProjectPdf/VALIDATION_FAILED',
    prism: { status: 422, location: 'body.sections' },
    service: invalid('body.sections'),
  },
  {
    what: 'an agent profile id that is no integer',
    method: 'POST',
    target: '/v1/projects/royal-court-18/pdf?agent_profile_id=first',
    body: { template: 'classic' },
    prism: { status: 422, location: 'query.agent_profile_id' },
    service: invalid('query.agent_profile_id'),
  },
  {
    what: 'an admin project id that is no integer',
    api: 'admin',
    target: '/admin/v1/projects/royal-court-18',
    prism: { status: 422, location: 'path.projectId' },
    service: invalid('params.projectId'),
  },
  {
    what: 'an unknown webhook status',
    method: 'PUT',
    target: `/v1/webhooks/wh_${'0'.repeat(24)}`,
    body: { status: 'sleeping' },
    prism: { status: 422, location: 'body.status' },
    service: invalid('body.status'),
  },
  {
    what: 'an unknown key status in an admin list',
    api: 'admin',
    target: '/admin/v1/clients/1/keys?status=lost',
    prism: { status: 422, location: 'query.status' },
    service: invalid('query.status'),
  },
  {
    what: 'an admin plan with an unknown field',
    api: 'admin',
    method: 'POST',
    target: '/admin/v1/plans',
    body: { ...A_PLAN, colour: 'blue' },
    prism: { status: 422, location: 'body' },
    service: invalid('body.colour'),
  },
  {
    what: 'an admin plan naming a scope twice',
    api: 'admin',
    method: 'POST',
    target: '/admin/v1/plans',
    body: { ...A_PLAN, scopes: ['projects:read', 'projects:read'] },
    prism: { status: 422, location: 'body.scopes' },
    service: invalid('body.scopes'),
  },
];

/**
 * Rules OpenAPI cannot state, which the service enforces: the document says so in the parameter's
 * description, and Prism, which judges a request by the document alone, forwards the request.
 */
const BEYOND_OPENAPI: Array<Omit<Refusal, 'prism'>> = [
  // A parameter object cannot forbid parameters it does not list (there is no additionalProperties for `in: query`).
  { what: 'an unknown query parameter', target: '/v1/projects?colour=blue', service: invalid('query.colour') },
  // A parameter cannot be required only when another has a given value (`view=detail` needs `ids`).
  { what: 'view=detail without ids', target: '/v1/projects?view=detail', service: invalid('query.ids') },
];

const replayAll = (operationIds: readonly string[], name: string): ReplayStep[] =>
  operationIds.map((operationId) => ({ replay: `${operationId}/${name}` }));

/** A live key of a new client on `plan`, the client revised as `revision` says. */
async function clientKey(scene: Scene, name: string, plan: string, revision?: unknown): Promise<string> {
  const clientId = (await scene.admin('POST', '/clients', { name, plan })).data.id as number;
  if (revision !== undefined) await scene.admin('PATCH', `/clients/${clientId}`, revision);
  return (await scene.admin('POST', `/clients/${clientId}/keys`, { environment: 'live' })).data.key as string;
}

/** The recorded request's path, split into its segments below /v1 (decoded). */
const segmentsOf = (example: string): string[] => {
  const [operationId, name] = example.split('/') as [string, string];
  return new URL(EXAMPLES[operationId]![name]!.request.target, 'http://localhost').pathname.split('/').slice(2).map(decodeURIComponent);
};

/**
 * The recorded examples in an order whose set-ups give each the state it was recorded in (as
 * src/cli/openApiExamples.ts made them): reads first, then what writes, then what takes the service apart.
 */
const SWEEP: SweepStep[] = [
  { replay: 'getHealth/ok' },
  { replay: 'getOpenApiDocument/document' },
  { replay: 'listProjects/summaries' },
  { replay: 'listProjects/detailBatch' },
  { replay: 'listProjects/API_KEY_IN_QUERY' },
  { replay: 'listProjectChanges/fromTheStart' },
  { replay: 'listProjectChanges/nextPage' },
  { replay: 'getProjectResourcesBatch/floorPlansAndPaymentPlans' },
  { replay: 'getProject/bySlug' },
  { replay: 'getProject/NOT_FOUND' },
  ...replayAll(
    [
      'listFloorPlans',
      'listPaymentPlans',
      'listAmenities',
      'listNearbyPlaces',
      'listPaymentMethods',
      'listFaqs',
      'listVirtualTours',
      'listFloorPlates',
      'listRelatedProjects',
    ],
    'ofAProject',
  ),
  { replay: 'getProjectMedia/gallery' },
  { replay: 'getProjectVideo/videoFile' },
  { replay: 'getProjectVideo/externalVideo' },
  { replay: 'getProjectVideo/VIDEO_NOT_AVAILABLE' },
  { replay: 'getProjectBrochure/storedBrochure' },
  { replay: 'getProjectBrochure/DOCUMENT_UNAVAILABLE' },
  { replay: 'downloadDocument/brochure' },
  { replay: 'headDocument/brochure' },
  { replay: 'downloadDocument/LINK_INVALID' },
  {
    setUp: 'an editor attaches the brochure on the developer’s site that the recorded external link names',
    async run({ app, admin, keys }) {
      const [, , , encodedUrl, fileName] = segmentsOf('followExternalDocument/legacyBrochure') as [string, string, string, string, string];
      const slug = fileName.replace(/-brochure\.pdf$/, '');
      const found = await request(app.baseUrl, `/v1/projects/${slug}`, { token: keys.demo! });
      const { id } = found.body.data as { id: number };
      await admin('PUT', `/projects/${id}/brochure`, {
        external_url: Buffer.from(encodedUrl, 'base64url').toString('utf8'),
        file_name: fileName,
      });
    },
  },
  { replay: 'followExternalDocument/legacyBrochure', redirectFollowedByPrism: true },
  { replay: 'headExternalDocument/legacyBrochure', redirectFollowedByPrism: true },
  { replay: 'getImage/gallery800' },
  { replay: 'headImage/gallery800' },
  { replay: 'getImage/NOT_FOUND' },
  { replay: 'getImage/RANGE_NOT_SATISFIABLE' },
  {
    setUp: 'the demo client gets the account token the recorded image addresses name',
    async run({ admin, demoClientId }) {
      const [, , accountToken] = segmentsOf('getAccountImage/gallery800') as [string, string, string];
      await admin('PUT', `/clients/${demoClientId}/account-token`, { account_token: accountToken });
    },
  },
  { replay: 'getAccountImage/gallery800' },
  { replay: 'headAccountImage/gallery800' },
  { replay: 'listDevelopers/firstPage' },
  { replay: 'getDeveloper/bySlug' },
  { replay: 'listCommunities/inAState' },
  { replay: 'getCommunity/bySlug' },
  { replay: 'getState/bySlug' },
  { replay: 'listSubCommunities/inAState' },
  { replay: 'getSubCommunity/bySlug' },
  { replay: 'getCatalogMetadata/metadata' },
  { replay: 'listAgentProfiles/approved' },
  { replay: 'listPdfTemplates/designs' },
  { replay: 'createWebhook/catalogueSync' },
  { replay: 'listWebhooks/firstPage' },
  { replay: 'getWebhook/catalogueSync' },
  { replay: 'updateWebhook/renamed' },
  { replay: 'rotateWebhookSecret/rotated' },
  { replay: 'sendWebhookTestEvent/queued' },
  { replay: 'listWebhookDeliveries/testEvent' },
  { replay: 'listWebhookDeliveries/NOT_FOUND' },
  {
    setUp: 'an administrator disables the webhook',
    async run({ admin, fresh }) {
      const [, id] = segmentsOf('updateWebhook/CONFLICT') as [string, string];
      await admin('POST', `/webhooks/${fresh.get(id) ?? id}/disable`);
    },
  },
  { replay: 'updateWebhook/CONFLICT' },
  { replay: 'sendWebhookTestEvent/CONFLICT' },
  { replay: 'deleteWebhook/deleted' },
  {
    setUp: 'a client on the starter plan, without webhooks:manage',
    async run(scene) {
      scene.keys.starter = await clientKey(scene, 'Marina Homes Portal', 'starter');
    },
  },
  { replay: 'listWebhooks/INSUFFICIENT_SCOPE', key: 'starter' },
  { replay: 'getProjectBrochure/INSUFFICIENT_SCOPE', key: 'starter' },
  {
    setUp: 'a client whose own scopes are projects:read alone',
    async run(scene) {
      scene.keys.projectsOnly = await clientKey(scene, 'Harbour View Listings', 'starter', { scopes: ['projects:read'] });
    },
  },
  { replay: 'getState/INSUFFICIENT_SCOPE', key: 'projectsOnly' },
  {
    setUp: 'a client allowed one request a minute',
    async run(scene) {
      scene.keys.onePerMinute = await clientKey(scene, 'Gulf Listings Widget', 'professional', {
        limits: { burst: { requests: 20, window_ms: 2_000 }, per_minute: 1, daily: 1_000, monthly: 20_000, test_daily: 100, overage: null },
      });
    },
  },
  { replay: 'listProjects/onePerMinute', key: 'onePerMinute' },
  { replay: 'listProjects/PER_MINUTE_LIMIT_EXCEEDED', key: 'onePerMinute' },
  { replay: 'generateProjectPdf/IDEMPOTENCY_KEY_IN_USE', whileRendering: 'generateProjectPdf/rendered' },
  { replay: 'generateProjectPdf/replayed' },
  {
    setUp: 'the demo client is allowed one PDF a minute',
    async run({ admin, demoClientId }) {
      await admin('PATCH', `/clients/${demoClientId}`, { pdf_limits: { per_minute: 1, daily: 100, monthly: 1_000 } });
    },
  },
  { replay: 'generateProjectPdf/PER_MINUTE_LIMIT_EXCEEDED' },
  {
    setUp: 'the file behind the recorded link to another brochure is deleted',
    async run({ app }) {
      const [, , key] = segmentsOf('downloadDocument/DOCUMENT_UNAVAILABLE') as [string, string, string];
      await app.blobStore.delete(key);
    },
  },
  { replay: 'downloadDocument/DOCUMENT_UNAVAILABLE' },
  {
    setUp: 'the projector stops, and an administrator writes',
    async run({ app, admin, demoClientId, fresh }) {
      await app.projector.stop();
      const { position } = (await admin('PATCH', `/clients/${demoClientId}`, { name: 'Demo Agency LLC' })).meta as { position: string };
      fresh.set(EXAMPLES.listProjects!.PROJECTION_BEHIND!.request.headers!['X-Consistent-After']!, position);
    },
  },
  { replay: 'listProjects/PROJECTION_BEHIND' },
  {
    setUp: 'an hour passes: the recorded links expire',
    async run({ jumpClock }) {
      jumpClock(60 * 60 * 1_000);
    },
  },
  { replay: 'downloadDocument/LINK_EXPIRED' },
  {
    setUp: 'the read store closes',
    async run({ app }) {
      await app.readStore.close();
    },
  },
  { replay: 'getHealth/degraded' },
];
