/**
 * API benchmark (`npm run bench`): not a test. It starts, each in its own process,
 *   - a bare express app answering a small JSON body (the baseline), and
 *   - the service itself (`src/main.ts`, every role, embedded stores in a temporary DATA_DIR, demo catalogue),
 * and drives them with autocannon from this process, one scenario after another:
 *   (a) the bare route,
 *   (b) GET /v1/projects/{slug} through the full stack with the demo client's live key,
 *   (c) the same with a matching If-None-Match (304),
 *   (d) a filtered, sorted list page of 20 projects.
 * then (b) again at 10 connections, where latency is the service's own rather than queueing.
 * It prints req/s, p50 and p99 latency and each scenario's ratio to (a), and checks the targets:
 * (b) >= 0.5 x (a), (c) >= (b), (d) >= 0.3 x (a), p99 of (b) under 10 ms at 50 connections.
 *
 * Options: --duration S (seconds per scenario, default 10), --connections N (default 50),
 * --projects N (demo projects seeded, default 2000).
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 5 * 60_000;
const WARMUP_SECONDS = 3;
/** Connections of the extra latency measurement of (b). */
const FEW_CONNECTIONS = 10;

interface Options {
  duration: number;
  connections: number;
  projects: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { duration: 10, connections: 50, projects: 2000 };
  for (let index = 0; index < argv.length; index += 1) {
    const match = /^--(duration|connections|projects)(?:=(.*))?$/.exec(argv[index]!);
    const value = match?.[2] ?? argv[(index += 1)];
    if (!match || value === undefined || !/^\d+$/.test(value) || Number(value) < 1) {
      process.stderr.write('usage: npm run bench [-- --duration S] [--connections N] [--projects N]   (whole numbers >= 1)\n');
      process.exit(2);
    }
    options[match[1] as keyof Options] = Number(value);
  }
  return options;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function startProcess(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`[${name}] exited with ${code ?? signal}\n`);
  });
  return child;
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const result = await attempt().catch(() => undefined);
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * A live key of a client on a plan whose limits the load cannot reach: the limiter is still consulted on
 * every request (its cost is part of the figures), it just never refuses.
 */
async function benchKey(adminBase: string, adminToken: string): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${adminBase}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: { id: number; key?: string } }).data;
  };
  const huge = 1_000_000_000;
  await post('/plans', {
    key: 'bench',
    name: 'Benchmark',
    scopes: [...SCOPES],
    entitlements: [...ENTITLEMENTS],
    limits: { burst: { requests: huge, window_ms: 2_000 }, per_minute: huge, daily: huge, monthly: huge, test_daily: huge, overage: null },
  });
  const client = await post('/clients', { name: 'Benchmark', plan: 'bench' });
  return (await post(`/clients/${client.id}/keys`, { environment: 'live' })).key!;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string | null; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), body: text === '' ? null : JSON.parse(text) };
}

interface Scenario {
  label: string;
  url: string;
  headers: Record<string, string>;
  expectedStatus: number;
}

interface Measured {
  scenario: Scenario;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(scenario: Scenario, options: Options, connections = options.connections): Promise<Measured> {
  const run = (duration: number) => autocannon({ url: scenario.url, headers: scenario.headers, connections, duration });
  await run(WARMUP_SECONDS);
  const result = await run(options.duration);
  const unexpected = result.non2xx - (scenario.expectedStatus === 304 ? result['3xx'] : 0);
  if (result.errors > 0 || result.timeouts > 0 || unexpected > 0) {
    throw new Error(`${scenario.label}: ${result.errors} errors, ${result.timeouts} timeouts, ${unexpected} unexpected statuses`);
  }
  return { scenario, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-api-bench-'));
  const children: ChildProcess[] = [];
  try {
    const servicePort = await freePort();
    const service = startProcess('service', ['src/main.ts'], {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_PROJECTS: String(options.projects),
    });
    children.push(service);
    const bare = startProcess('bare', ['test/bench/bareServer.ts'], process.env);
    children.push(bare);
    const barePort = await new Promise<number>((resolve, reject) => {
      bare.stdout!.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(String(chunk));
        if (match) resolve(Number(match[1]));
      });
      bare.on('exit', () => reject(new Error('the bare server exited before listening')));
    });

    const base = `http://127.0.0.1:${servicePort}/v1`;
    process.stdout.write(`seeding ${options.projects} demo projects in ${dataDir} and waiting for the projector...\n`);
    const seedStarted = performance.now();
    await waitFor('the service to answer /v1/health', async () => ((await getJson(`${base}/health`)).status === 200 ? true : undefined));
    const key = await benchKey(`http://127.0.0.1:${servicePort}/admin/v1`, readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    const auth = { authorization: `Bearer ${key}` };
    // Some demo projects are unpublished or deleted, so the projector has caught up once the number of
    // published projects stops moving.
    let lastTotal = -1;
    let steadyPolls = 0;
    await waitFor('the projector to catch up', async () => {
      const { body } = await getJson(`${base}/projects?per_page=1`, auth);
      const total: number = body?.meta?.pagination?.total ?? 0;
      steadyPolls = total > 0 && total === lastTotal ? steadyPolls + 1 : 0;
      lastTotal = total;
      return steadyPolls >= 3 ? true : undefined;
    });
    process.stdout.write(`ready after ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`);

    const first = await getJson(`${base}/projects?per_page=1&sort=name`, auth);
    const slug: string = first.body.data[0].slug;
    const detail = await getJson(`${base}/projects/${slug}`, auth);
    if (detail.status !== 200 || !detail.etag) throw new Error(`GET /projects/${slug} answered ${detail.status} without an ETag`);
    const sample = await getJson(`${base}/projects?per_page=100`, auth);
    const stateSlugs = new Set<string>(sample.body.data.flatMap((project: { state: { slug: string } | null }) => (project.state ? [project.state.slug] : [])));
    const listPath = await pickListPage(base, auth, [...stateSlugs]);

    const scenarios: Scenario[] = [
      { label: '(a) bare express JSON', url: `http://127.0.0.1:${barePort}/bare`, headers: {}, expectedStatus: 200 },
      { label: `(b) GET /v1/projects/${slug}`, url: `${base}/projects/${slug}`, headers: auth, expectedStatus: 200 },
      {
        label: '(c) same, If-None-Match (304)',
        url: `${base}/projects/${slug}`,
        headers: { ...auth, 'if-none-match': detail.etag },
        expectedStatus: 304,
      },
      { label: `(d) GET /v1${listPath}`, url: `${base}${listPath}`, headers: auth, expectedStatus: 200 },
    ];
    const results: Measured[] = [];
    for (const scenario of scenarios) {
      process.stdout.write(`measuring ${scenario.label} for ${options.duration} s at ${options.connections} connections...\n`);
      results.push(await measure(scenario, options));
    }
    // With every connection busy, latency is mostly queueing (connections / throughput); fewer connections
    // show what the service itself adds.
    const fewer = { ...scenarios[1]!, label: `(b) at ${FEW_CONNECTIONS} connections` };
    process.stdout.write(`measuring ${fewer.label} for ${options.duration} s...\n`);
    const fewerResult = await measure(fewer, options, FEW_CONNECTIONS);
    report(results, fewerResult, options);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A list page of 20 filtered by state and nature, sorted by price, on a state that has that many projects. */
async function pickListPage(base: string, auth: Record<string, string>, states: string[]): Promise<string> {
  for (const state of states) {
    const path = `/projects?state=${state}&nature=off_plan&sort=-starting_from&per_page=20`;
    const { status, body } = await getJson(`${base}${path}`, auth);
    if (status === 200 && body.data.length === 20) return path;
  }
  throw new Error('no state has 20 off-plan projects');
}

function report(results: Measured[], fewer: Measured, options: Options): void {
  const [bare, detail, notModified, list] = results as [Measured, Measured, Measured, Measured];
  const ratio = (measured: Measured) => measured.requestsPerSecond / bare.requestsPerSecond;
  const width = Math.max(...results.map(({ scenario }) => scenario.label.length));
  process.stdout.write(`\n${'scenario'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to (a)\n`);
  for (const measured of results) {
    process.stdout.write(
      `${measured.scenario.label.padEnd(width)}  ${Math.round(measured.requestsPerSecond).toLocaleString('en-US').padStart(9)}  ` +
        `${measured.p50.toFixed(1).padStart(7)}  ${measured.p99.toFixed(1).padStart(7)}  ${ratio(measured).toFixed(2)}\n`,
    );
  }
  process.stdout.write(
    `${fewer.scenario.label.padEnd(width)}  ${Math.round(fewer.requestsPerSecond).toLocaleString('en-US').padStart(9)}  ` +
      `${fewer.p50.toFixed(1).padStart(7)}  ${fewer.p99.toFixed(1).padStart(7)}  ${ratio(fewer).toFixed(2)} (latency context, not a target)\n`,
  );
  const targets = [
    { name: '(b) >= 0.5 x (a)', met: ratio(detail) >= 0.5 },
    { name: '(c) >= (b)', met: notModified.requestsPerSecond >= detail.requestsPerSecond },
    { name: '(d) >= 0.3 x (a)', met: ratio(list) >= 0.3 },
    { name: `p99 of (b) < 10 ms at ${options.connections} connections`, met: detail.p99 < 10 },
  ];
  process.stdout.write(`\n${targets.map((target) => `${target.name}: ${target.met ? 'met' : 'NOT met'}`).join('\n')}\n`);
  process.stdout.write(
    `machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
      `node ${process.version}, ${process.platform}/${process.arch}; load generator and each server in separate processes\n`,
  );
  if (targets.some((target) => !target.met)) process.exitCode = 1;
}

await main();
