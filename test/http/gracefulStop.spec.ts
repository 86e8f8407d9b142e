import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { dhakaMonthKey } from '../../src/limits/limits.js';
import { UNLIMITED_FOR_TESTS } from '../support/apiFixture.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { logRecords, npmStart as startNpm, type NpmStart } from '../support/npmStart.js';

const ADMIN_TOKEN = 'graceful-stop-admin-token-0123456789abcdef';
const CONNECTIONS = 100;
/** Responses the load has had, at least, before the signal. */
const RESPONSES_BEFORE_SIGNAL = 1_000;
/** Far above what this drain takes, so that a cut connection means a wrong drain, not a slow machine. */
const SHUTDOWN_TIMEOUT_MS = 30_000;
/** How long anything the test waits for may take on a loaded 2-core machine (a start compiles the sources). */
const PATIENCE_MS = 120_000;

/** The service as the README starts it, with the demo seed kept small and a known admin token. */
function npmStart(dataDir: string, shutdownTimeoutMs = SHUTDOWN_TIMEOUT_MS): Promise<NpmStart> {
  return startNpm(dataDir, {
    ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    SEED_DEMO: 'true',
    SEED_PROJECTS: '3',
    SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
  });
}

async function admin(origin: string, method: string, path: string, body?: unknown) {
  return request(origin, `/admin/v1${path}`, { method, token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });
}

const planBody = (key: string) => ({
  key,
  name: `Plan ${key}`,
  scopes: [...SCOPES],
  entitlements: [...ENTITLEMENTS],
  limits: UNLIMITED_FOR_TESTS,
});

/**
 * A live key on a plan the load cannot exhaust, and a project it may read. The lookup that shows the key
 * works is one unit of the key's usage.
 */
async function unlimitedLiveKey(origin: string): Promise<{ key: string; clientId: number; projectId: number }> {
  expect((await admin(origin, 'POST', '/plans', planBody('graceful-stop'))).status).toBe(201);
  const client = await admin(origin, 'POST', '/clients', { name: 'Graceful stop', plan: 'graceful-stop' });
  expect(client.status).toBe(201);
  const issued = await admin(origin, 'POST', `/clients/${client.body.data.id}/keys`, { environment: 'live' });
  expect(issued.status).toBe(201);
  const key = issued.body.data.key as string;
  // The projector grants the key a moment after it is issued.
  const projectId = await eventually(
    'the new key to be accepted',
    async () => {
      const page = await request(origin, '/v1/projects?per_page=1', { token: key });
      return page.status === 200 ? (page.body.data[0].id as number) : undefined;
    },
    { timeoutMs: PATIENCE_MS },
  );
  return { key, clientId: client.body.data.id as number, projectId };
}

type Outcome =
  | { kind: 'answered'; sentAt: number; status: number; body: any; connectionClose: boolean }
  | { kind: 'failed'; sentAt: number | null; code: string; message: string };

/** Reads a whole response; a reset or a body cut short is a failure, never an answer. */
function settle(req: ClientRequest, sentAt: () => number | null): Promise<Outcome> {
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'failed', sentAt: sentAt(), code: error.code ?? 'NONE', message: error.message });
    req.on('error', failed);
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', failed);
      res.on('end', () => {
        if (!res.complete) return failed(Object.assign(new Error('truncated response body'), { code: 'TRUNCATED' }));
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return failed(Object.assign(new Error(`unparsable body: ${text.slice(0, 200)}`), { code: 'UNPARSABLE' }));
        }
        resolve({
          kind: 'answered',
          sentAt: sentAt()!,
          status: res.statusCode!,
          body,
          connectionClose: res.headers.connection === 'close',
        });
      });
    });
  });
}

/**
 * One GET on the agent; `sentAt` is when its last byte was handed to the operating system. `answeredOn` hears
 * of each connection that carried an answer.
 */
function get(origin: string, path: string, key: string, agent: Agent, answeredOn: (socket: Socket) => void): Promise<Outcome> {
  let sentAt: number | null = null;
  const req = http.request(`${origin}${path}`, { agent, headers: { authorization: `Bearer ${key}` } });
  req.on('finish', () => (sentAt = performance.now()));
  req.on('response', () => answeredOn(req.socket!));
  const outcome = settle(req, () => sentAt);
  req.end();
  return outcome;
}

/**
 * An admin command whose body arrives in two parts: after the first, the service has a request it cannot
 * answer yet, whatever the speed of the machine. It goes on a connection the service has already answered,
 * hence accepted: under load Node accepts one new connection per turn of its event loop, so a fresh one can
 * still wait in the listen queue when the signal comes, and such a connection is refused, not drained.
 */
async function postInTwoParts(origin: string, path: string, body: unknown) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const opening = http.request(`${origin}/v1/health`, { agent });
  const opened = settle(opening, () => null);
  opening.end();
  expect(await opened).toMatchObject({ kind: 'answered', status: 200 });

  const json = JSON.stringify(body);
  const half = Math.floor(json.length / 2);
  const req = http.request(`${origin}/admin/v1${path}`, {
    method: 'POST',
    agent,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(json)),
    },
  });
  let firstPartSentAt: number | null = null;
  const outcome = settle(req, () => firstPartSentAt);
  await once(req, 'socket');
  expect(req.reusedSocket).toBe(true);
  await new Promise<void>((resolve, reject) => req.write(json.slice(0, half), (error) => (error ? reject(error) : resolve())));
  firstPartSentAt = performance.now();
  return { outcome, sendTheRest: () => req.end(json.slice(half)) };
}

describe('stopping the service under load', () => {
  const dataDirs: string[] = [];
  const newDataDir = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-graceful-stop-'));
    dataDirs.push(dataDir);
    return dataDir;
  };
  const started: ChildProcess[] = [];

  // nock (test/support/setup.ts) routes every node:http request through its own socket, which buffers what
  // is written: a request's 'finish' would no longer mean that its bytes left. Only loopback is used here.
  beforeAll(() => nock.restore());

  afterAll(() => {
    nock.activate();
    // npm and the service it started form one process group (see npmStart): none of them outlives the test.
    for (const child of started) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'when npm start gets SIGTERM while 100 keep-alive connections are busy, then every request sent before it is answered in full, the drain is logged, the exit code is 0 and the usage after a restart equals the 2xx responses',
    async () => {
      const dataDir = newDataDir();
      const service = await npmStart(dataDir);
      started.push(service.child);
      const { key, clientId, projectId } = await unlimitedLiveKey(service.origin);
      const monthAtStart = dhakaMonthKey(new Date());

      const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
      const outcomes: Outcome[] = [];
      // The signal comes once every connection has been answered, i.e. accepted by the service (see
      // postInTwoParts): a connection still in the listen queue is refused by the stop, which is not the point.
      const answeredConnections = new Set<Socket>();
      let loadReached: () => void;
      const loaded = new Promise<void>((resolve) => (loadReached = resolve));
      // Each connection loops until one of its requests fails: once the service stops accepting and closes
      // each connection after its last answer, every loop ends with a refused (or reset) request.
      const loops = Array.from({ length: CONNECTIONS }, async () => {
        for (;;) {
          const outcome = await get(service.origin, `/v1/projects/${projectId}`, key, agent, (socket) => answeredConnections.add(socket));
          outcomes.push(outcome);
          if (outcomes.length >= RESPONSES_BEFORE_SIGNAL && answeredConnections.size >= CONNECTIONS) loadReached();
          if (outcome.kind === 'failed') return;
        }
      });
      await Promise.race([loaded, Promise.all(loops)]);
      const slowCommand = await postInTwoParts(service.origin, '/plans', planBody('sent-before-the-signal'));

      const signalledAt = performance.now();
      service.child.kill('SIGTERM');
      const exited = () => service.child.exitCode !== null || service.child.signalCode !== null;
      await eventually(
        'the service to log that it is shutting down',
        () => service.output().includes('"msg":"shutting down"') || exited(),
        {
          timeoutMs: PATIENCE_MS,
        },
      );
      slowCommand.sendTheRest();
      const exit = await service.exited;
      await Promise.all(loops);
      agent.destroy();
      const monthAtEnd = dhakaMonthKey(new Date());

      // A request whose bytes left before the signal was answered, before the signal or by the drain.
      const sentBeforeSignal = outcomes.filter((outcome) => outcome.sentAt !== null && outcome.sentAt < signalledAt);
      expect(sentBeforeSignal.filter((outcome) => outcome.kind === 'failed')).toEqual([]);
      // After the signal a request can only be refused at connect (refused, or reset by a listener that had
      // stopped accepting, before any byte of it left), or meet a connection closed while it was idle.
      const refusedAtConnect = (outcome: Outcome) =>
        outcome.kind === 'failed' && ['ECONNREFUSED', 'ECONNRESET'].includes(outcome.code) && outcome.sentAt === null;
      const resetAfterSignal = (outcome: Outcome) =>
        outcome.kind === 'failed' && outcome.code === 'ECONNRESET' && outcome.sentAt !== null && outcome.sentAt >= signalledAt;
      expect(outcomes.filter((outcome) => outcome.kind === 'failed' && !refusedAtConnect(outcome) && !resetAfterSignal(outcome))).toEqual(
        [],
      );

      // The request the drain had to wait for: answered in full, and told that the connection closes.
      expect(await slowCommand.outcome).toMatchObject({
        kind: 'answered',
        status: 201,
        body: { data: { key: 'sent-before-the-signal' } },
        connectionClose: true,
      });
      const answered = outcomes.filter((outcome) => outcome.kind === 'answered');
      expect(answered.filter((outcome) => outcome.status !== 200 || outcome.body.data.id !== projectId)).toEqual([]);

      const records = logRecords(service.output());
      expect(records.find((record) => record.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
      const summary = records.find((record) => record.msg === 'HTTP drain complete');
      expect(summary).toMatchObject({
        requestsInFlight: expect.any(Number),
        requestsAnswered: expect.any(Number),
        connectionsClosed: expect.any(Number),
        idleConnectionsClosed: expect.any(Number),
        connectionsCut: 0,
        durationMs: expect.any(Number),
      });
      expect(summary!.requestsAnswered).toBeGreaterThanOrEqual(1);
      // Every connection of the load was open (each had been answered), and so was the slow command's.
      expect(summary!.connectionsClosed).toBeGreaterThanOrEqual(CONNECTIONS + 1);
      expect(records.at(-1)).toMatchObject({ msg: 'stopped', clean: true });
      expect(exit).toEqual({ code: 0, signal: null });

      const restarted = await npmStart(dataDir);
      started.push(restarted.child);
      let unitsCounted = 0;
      for (const month of new Set([monthAtStart, monthAtEnd])) {
        const report = await admin(restarted.origin, 'GET', `/clients/${clientId}/usage/${month}`);
        expect(report.status).toBe(200);
        for (const environment of report.body.data.environments) unitsCounted += environment.units;
      }
      const keyLookup = 1;
      expect(unitsCounted).toBe(answered.length + keyLookup);
      restarted.child.kill('SIGTERM');
      expect(await restarted.exited).toEqual({ code: 0, signal: null });
    },
    5 * PATIENCE_MS,
  );

  it(
    'when a request is still arriving at SHUTDOWN_TIMEOUT_MS, then its connection is cut, the stop still finishes in order by that deadline, and the exit code is 1',
    async () => {
      const shutdownTimeoutMs = 3_000;
      const service = await npmStart(newDataDir(), shutdownTimeoutMs);
      started.push(service.child);
      const neverFinished = await postInTwoParts(service.origin, '/plans', planBody('never-finished'));

      const signalledAt = performance.now();
      service.child.kill('SIGTERM');
      const exit = await service.exited;
      const stoppedAfterMs = performance.now() - signalledAt;

      expect(await neverFinished.outcome).toMatchObject({ kind: 'failed', code: 'ECONNRESET' });
      const records = logRecords(service.output());
      const summary = records.find((record) => record.msg === 'HTTP drain complete');
      expect(summary).toMatchObject({ requestsAnswered: 0, connectionsCut: 1 });
      // The drain keeps a fifth of the time for the steps after it, which ran: the projector stopped.
      expect(summary!.durationMs).toBeGreaterThanOrEqual(0.8 * shutdownTimeoutMs - 1);
      expect(records.map((record) => record.msg)).toContain('projector stopped');
      expect(records.at(-1)).toMatchObject({ msg: 'stopped', clean: false });
      expect(exit).toEqual({ code: 1, signal: null });
      // npm's relay and exit add to the service's own deadline; a loaded machine adds more.
      expect(stoppedAfterMs).toBeLessThan(shutdownTimeoutMs + 10_000);
    },
    3 * PATIENCE_MS,
  );
});
