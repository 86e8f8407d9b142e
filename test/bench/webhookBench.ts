/**
 * The webhook section of `npm run bench` (api.bench.ts calls it; `--only webhooks` runs it alone), on the
 * service as `npm start` runs it (src/main.ts, embedded stores and the SQLite job queue in DATA_DIR) and a
 * loopback receiver in this process that answers 204 at once:
 *   (g) delivery throughput. WEBHOOKS webhooks subscribe to project.updated (so with the default caps, 8 x 4
 *       in flight = WEBHOOK_DELIVERY_CONCURRENCY = 32); EDITS renames are made through /admin/v1 while no worker
 *       runs (`--role api,projector`), then a worker alone (`--role worker`) dispatches and delivers the
 *       backlog: EDITS x WEBHOOKS signed deliveries, each target checked, logged and acknowledged. The rate is
 *       taken between the first and the last arrival. Against it, a raw fetch POST loop in its own process
 *       (test/bench/barePostLoop.ts) sends the same bodies to the same receiver with as many in flight.
 *       Target: the service >= 0.5 x the loop.
 *   (h) edit-to-receiver latency: with every role in one process, EDITS_PER_SECOND renames a second for
 *       LATENCY_SECONDS, each timed from the moment its PATCH is sent to the arrival of each of its deliveries.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { freePort } from '../support/http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 5 * 60_000;
const STOP_TIMEOUT_MS = 30_000;
const WEBHOOKS = 8;
/** The service's defaults: WEBHOOK_DELIVERY_CONCURRENCY, and WEBHOOKS x WEBHOOK_ENDPOINT_CONCURRENCY. */
const CONCURRENCY = 32;
const EDITS_PER_SECOND = 10;
const LATENCY_SECONDS = 20;

export interface WebhookBenchOptions {
  /** Renames per throughput round (each becomes WEBHOOKS deliveries). */
  edits: number;
  rounds: number;
  /** Demo projects of a fresh DATA_DIR's seed. */
  projects: number;
}

export interface WebhookFigures {
  serviceDeliveriesPerSecond: number[];
  barePostsPerSecond: number[];
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyDeliveries: number;
}

interface Arrival {
  at: number;
  path: string;
  body: string;
}

/** The receiver: 204 at once, every arrival kept with its time. */
async function startReceiver(): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ at: performance.now(), path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface Running {
  child: ChildProcess;
  origin: string;
}

async function startService(dataDir: string, options: WebhookBenchOptions, roles: string[], children: Set<ChildProcess>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...roles], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_PROJECTS: String(options.projects),
      RATE_LIMITS: 'off',
      REDIS_URL: '',
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[service ${roles.join(' ')}] ${chunk}`));
  children.add(child);
  const origin = `http://127.0.0.1:${port}`;
  // A worker alone serves no API to ask.
  if (roles.join(' ') !== '--role worker') {
    await waitFor(
      'the service to answer /v1/health',
      async () => ((await fetch(`${origin}/v1/health`)).status === 200 ? true : undefined),
      child,
    );
  }
  return { child, origin };
}

async function stop(running: Running, children: Set<ChildProcess>): Promise<void> {
  const { child } = running;
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const deadline = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(deadline);
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, child?: ChildProcess): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const result = await attempt().catch(() => undefined);
    if (result !== undefined) return result;
    if (child && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`the service exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function call(origin: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text === '' ? null : (JSON.parse(text) as { data: any }).data;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function webhookSection(dataDir: string, options: WebhookBenchOptions, children: Set<ChildProcess>): Promise<WebhookFigures> {
  const receiver = await startReceiver();
  try {
    let service = await startService(dataDir, options, [], children);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const admin = (method: string, path: string, body?: unknown) => call(service.origin, method, `/admin/v1${path}`, adminToken, body);
    await admin('POST', '/plans', { key: 'webhook-bench', name: 'Webhook bench', scopes: [...SCOPES], entitlements: [...ENTITLEMENTS] });
    const client = await admin('POST', '/clients', { name: 'Webhook bench', plan: 'webhook-bench' });
    const key = (await admin('POST', `/clients/${client.id}/keys`, { environment: 'live' })).key as string;
    const v1 = (method: string, path: string, body?: unknown) => call(service.origin, method, `/v1${path}`, key, body);
    await waitFor('the key to be projected', async () =>
      (await fetch(`${service.origin}/v1/projects?per_page=1`, { headers: { authorization: `Bearer ${key}` } })).ok ? true : undefined,
    );
    const projectIds = ((await v1('GET', '/projects?per_page=50')) as Array<{ id: number }>).map((project) => project.id);
    for (let n = 1; n <= WEBHOOKS; n += 1) {
      await v1('POST', '/webhooks', { name: `Bench ${n}`, url: `${receiver.url}/w${n}`, events: ['project.updated'] });
    }
    let sequence = 0;
    const rename = (projectId: number) => admin('PATCH', `/projects/${projectId}`, { name: `Bench rename ${++sequence}` });
    // Warm-up: the worker delivers one edit to every webhook.
    await rename(projectIds[0]!);
    await waitFor('the warm-up deliveries', async () => (receiver.arrivals.length >= WEBHOOKS ? true : undefined));

    const serviceRates: number[] = [];
    const bareRates: number[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      // A backlog made while no worker runs, then a worker alone dispatches and delivers it.
      await stop(service, children);
      service = await startService(dataDir, options, ['--role', 'api,projector'], children);
      for (let index = 0; index < options.edits; index += 1) await rename(projectIds[index % projectIds.length]!);
      const lastName = `Bench rename ${sequence}`;
      const lastProject = projectIds[(options.edits - 1) % projectIds.length]!;
      await waitFor('the backlog to be projected', async () =>
        (await v1('GET', `/projects/${lastProject}`)).name === lastName ? true : undefined,
      );
      await stop(service, children);
      receiver.arrivals.length = 0;
      const expected = options.edits * WEBHOOKS;
      const worker = await startService(dataDir, options, ['--role', 'worker'], children);
      await waitFor(`${expected} deliveries`, async () => (receiver.arrivals.length >= expected ? true : undefined), worker.child);
      const arrivals = receiver.arrivals.slice(0, expected);
      serviceRates.push(((expected - 1) / (arrivals.at(-1)!.at - arrivals[0]!.at)) * 1000);
      await stop(worker, children);

      const file = join(dataDir, 'bench-webhook-bodies.jsonl');
      writeFileSync(
        file,
        arrivals.map((arrival) => JSON.stringify({ url: `${receiver.url}${arrival.path}`, body: arrival.body })).join('\n'),
      );
      receiver.arrivals.length = 0;
      const loop = spawn(process.execPath, ['--import', 'tsx', 'test/bench/barePostLoop.ts', file, String(CONCURRENCY)], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      loop.stdout!.on('data', (chunk: Buffer) => (output += String(chunk)));
      await once(loop, 'exit');
      const match = /done ([\d.]+) (\d+) (\d+)/.exec(output);
      if (!match || match[3] !== '0') throw new Error(`the POST loop failed: ${output}`);
      bareRates.push((Number(match[2]) / Number(match[1])) * 1000);
      service = await startService(dataDir, options, [], children);
    }

    // (h): steady renames, every role in one process.
    receiver.arrivals.length = 0;
    const sentAt = new Map<string, number>();
    const total = EDITS_PER_SECOND * LATENCY_SECONDS;
    const started = performance.now();
    for (let index = 0; index < total; index += 1) {
      const due = started + (index * 1000) / EDITS_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.set(`Bench rename ${sequence + 1}`, performance.now());
      await rename(projectIds[index % projectIds.length]!);
    }
    await waitFor('the latency deliveries', async () => (receiver.arrivals.length >= total * WEBHOOKS ? true : undefined));
    const latencies = receiver.arrivals
      .map((arrival) => {
        const name = (JSON.parse(arrival.body) as { data: { name: string } }).data.name;
        return arrival.at - sentAt.get(name)!;
      })
      .sort((a, b) => a - b);
    await stop(service, children);
    return {
      serviceDeliveriesPerSecond: serviceRates,
      barePostsPerSecond: bareRates,
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      latencyDeliveries: latencies.length,
    };
  } finally {
    await receiver.close();
  }
}

/** The section's lines of the bench report. */
export function reportWebhooks(figures: WebhookFigures, options: WebhookBenchOptions): string {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const service = sum(figures.serviceDeliveriesPerSecond) / figures.serviceDeliveriesPerSecond.length;
  const bare = sum(figures.barePostsPerSecond) / figures.barePostsPerSecond.length;
  const ratio = service / bare;
  const rounds = figures.serviceDeliveriesPerSecond
    .map((rate, index) => `${rate.toFixed(0)} vs ${figures.barePostsPerSecond[index]!.toFixed(0)}`)
    .join(', ');
  return [
    '',
    `Webhooks (${WEBHOOKS} webhooks, ${CONCURRENCY} in flight, ${options.edits * WEBHOOKS} deliveries per round, ${options.rounds} rounds):`,
    `  (g) delivery throughput  service ${service.toFixed(0)}/s  raw POST loop ${bare.toFixed(0)}/s  ratio ${ratio.toFixed(2)} (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})  rounds: ${rounds}`,
    `  (h) edit-to-receiver latency at ${EDITS_PER_SECOND} edits/s for ${LATENCY_SECONDS} s (${figures.latencyDeliveries} deliveries): p50 ${figures.latencyP50Ms.toFixed(1)} ms  p99 ${figures.latencyP99Ms.toFixed(1)} ms`,
  ].join('\n');
}
