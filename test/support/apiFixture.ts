import { ENTITLEMENTS, SCOPES, type Entitlement, type Scope } from '../../src/access/accessContext.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { request, type Answer, type RequestOptions } from './http.js';
import {
  appendEvents,
  communityEvent,
  developerEvent,
  minute,
  referenceCatalogue,
  stateEvent,
  subCommunityEvent,
  type StreamEvent,
} from './catalogueEvents.js';
import { startTestApp, type TestApp, type TestAppOptions } from './testApp.js';

export interface Grants {
  scopes?: readonly Scope[];
  entitlements?: readonly Entitlement[];
  /** The plan's limits; default: limits no test reaches unless it means to (see UNLIMITED_FOR_TESTS). */
  limits?: PlanLimits;
}

/** Tests of everything but limits make hundreds of requests with one key; they must not meet a 429. */
export const UNLIMITED_FOR_TESTS: PlanLimits = {
  burst: { requests: 1_000_000, window_ms: 2_000 },
  per_minute: 1_000_000,
  daily: 1_000_000_000,
  monthly: 1_000_000_000,
  test_daily: 1_000_000_000,
  overage: null,
};

/**
 * The real service on a random port, plus what /v1 tests need: catalogue events appended through the event
 * store and projected by the running projector, and API keys issued through the admin API.
 */
export interface ApiFixture {
  app: TestApp;
  /** Appends the events and waits until every projection has applied them. */
  given(events: readonly StreamEvent[]): Promise<void>;
  /** A live key of a fresh client on a fresh plan with these grants (default: every scope and entitlement). */
  key(grants?: Grants): Promise<string>;
  /** The same, with the ids the admin API gave the client and the key. */
  issue(grants?: Grants): Promise<IssuedKey>;
  /** GET (or another method) against /v1 with the key as bearer token. */
  get<Body = any>(path: string, key: string, options?: Omit<RequestOptions, 'token'>): Promise<Answer<Body>>;
  admin<Body = any>(method: string, path: string, body?: unknown): Promise<Answer<Body>>;
  /** Waits until every projection has applied the whole log. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface IssuedKey {
  key: string;
  clientId: number;
  keyId: number;
}

let planSequence = 0;

export async function startApiFixture(options: TestAppOptions = {}): Promise<ApiFixture> {
  const app = await startTestApp(options);
  const admin = <Body = any>(method: string, path: string, body?: unknown) =>
    request<Body>(app.baseUrl, `/admin/v1${path}`, { method, token: app.adminToken, ...(body === undefined ? {} : { body }) });
  const expectCreated = (answer: Answer, what: string) => {
    if (answer.status !== 201) throw new Error(`creating ${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };

  /** Admin commands are read back from the read models, so wait until the projector has everything. */
  const settle = async () => {
    const head = await app.eventStore.headPosition();
    if (head !== null) await app.projector.waitForPosition(head, 10_000);
  };

  const issue = async (grants: Grants = {}): Promise<IssuedKey> => {
    planSequence += 1;
    const planKey = `test-plan-${planSequence}`;
    expectCreated(
      await admin('POST', '/plans', {
        key: planKey,
        name: `Test plan ${planSequence}`,
        scopes: grants.scopes ?? SCOPES,
        entitlements: grants.entitlements ?? ENTITLEMENTS,
        limits: grants.limits ?? UNLIMITED_FOR_TESTS,
      }),
      'a plan',
    );
    const client = expectCreated(await admin('POST', '/clients', { name: `Client ${planSequence}`, plan: planKey }), 'a client');
    const issued = expectCreated(await admin('POST', `/clients/${client.id}/keys`, { environment: 'live' }), 'a key');
    await settle();
    return { key: issued.key as string, clientId: client.id as number, keyId: issued.id as number };
  };

  return {
    app,
    async given(events) {
      const position = await appendEvents(app.eventStore, events);
      await app.projector.waitForPosition(position, 10_000);
    },
    key: async (grants) => (await issue(grants)).key,
    issue,
    settle,
    get: (path, key, requestOptions = {}) => request(app.baseUrl, `/v1${path}`, { ...requestOptions, token: key }),
    admin,
    close: () => app.close(),
  };
}

/** The reference catalogue of catalogueEvents.ts with every state, community, sub-community and developer published. */
export function publishedReferenceCatalogue(): StreamEvent[] {
  const at = minute(0);
  return [
    ...referenceCatalogue(),
    ...[1, 2].map((id) => stateEvent({ type: 'StatePublished', data: { state_id: id, at } })),
    ...[1, 2, 3].map((id) => communityEvent({ type: 'CommunityPublished', data: { community_id: id, at } })),
    ...[1, 2].map((id) => subCommunityEvent({ type: 'SubCommunityPublished', data: { sub_community_id: id, at } })),
    ...[1, 2].map((id) => developerEvent({ type: 'DeveloperPublished', data: { developer_id: id, at } })),
  ];
}
