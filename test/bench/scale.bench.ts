/**
 * Scale benchmark (`npm run bench:scale`): not a test. It takes minutes. For the scales (projects: 2,000,
 * 20,000 and 200,000 by default) it
 *   1. writes, for each scale, the deterministic NDJSON catalogue of `npm run bench:import`
 *      (test/import/generatedCatalogue.ts) and imports it into a DATA_DIR of its own with
 *      `npm run import -- FILE --replay` (the import, then a rebuild of every read model from the whole log),
 *      timing both, and measures the DATA_DIR's size on disk;
 *   2. starts a service on each with `npm start` (every role, embedded stores, RATE_LIMITS=off so that the
 *      figures are the reads' own), times it until /v1/health answers 200, and requests each read shape twice,
 *      one after the other, before anything else reaches it: what the first request after a start pays that
 *      the second does not is warm-up a client waited for;
 *   3. drives each read shape with autocannon at 10 connections (a warm-up, then --duration seconds in 5 rounds,
 *      the scales alternating round by round) before the next shape: requests/s, p50, p99; the paths rotate
 *      over projects sampled across the catalogue;
 *   4. then at each scale, measures GET /v1/projects/{id} from one sequential client alone, then again while
 *      another client, on a thread of its own, pages the whole change feed (updated_since long ago, per_page
 *      100, page after page, from page 1 again at the end), and reads the service's event-loop delay of each
 *      phase from /metrics (prom-client's monitorEventLoopDelay histogram, reset by every scrape, so a scrape
 *      before and one after a phase give that phase's figures); then the same two phases against a bare
 *      node:http server answering with the bytes of one detail and one feed page of the service (BARE_SERVER),
 *      the baseline of what the machine itself adds;
 *   5. reads each service's RSS (after its start, and after the measurements) and stops them.
 * Then it prints markdown tables: the builds, each shape's figures per scale with its throughput relative to
 * the smallest scale (the issue's target: >= 0.8), the first and second requests, and the detail p99 unloaded
 * and loaded (target: loaded within 2 x unloaded).
 *
 * Options: --scales N[,N...] (default 2000,20000,200000), --duration S (measured seconds per shape and per
 * phase of 5, default 10), --keep DIR (build in DIR and leave it; a scale already built there is reused, with
 * the figures its build recorded), --only detail (step 4 alone, and its table: a minute or two per scale on a
 * catalogue kept with --keep, to iterate on the sync's effect on other clients).
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { writeImportCatalogue } from '../import/generatedCatalogue.js';
import { freePort } from '../support/http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
/** Rounds a shape's --duration is split into, the scales alternating round by round. */
const ROUNDS = 5;
/** A start on 200,000 projects loads a lot; anything slower than this is a failure, not a figure. */
const READY_TIMEOUT_MS = 15 * 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** Long before any event of the catalogue: the change feed reports every project. */
const OLD_UPDATED_SINCE = '2000-01-01T00:00:00Z';
const FEED_PER_PAGE = 100;
const LIST_PER_PAGE = 20;
/** Projects the rotating paths of detail, ids and related shapes draw from. */
const SAMPLED_PROJECTS = 1_000;
/** What a scale built in --keep DIR recorded of its build, so a later run can report it. */
const BUILD_RECORD = 'scale-bench-build.json';

/** Parts of the run --only may choose alone. */
const PARTS = ['detail'] as const;
type Part = (typeof PARTS)[number];

interface Options {
  scales: number[];
  duration: number;
  keep: string | null;
  /** null: every measurement. */
  only: Part | null;
}

function usage(): never {
  process.stderr.write(`usage: npm run bench:scale [-- --scales N[,N...]] [--duration S] [--keep DIR] [--only ${PARTS.join('|')}]\n`);
  process.exit(2);
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { scales: [2_000, 20_000, 200_000], duration: 10, keep: null, only: null };
  for (let index = 0; index < argv.length; index++) {
    const match = /^--(scales|duration|keep|only)(?:=(.*))?$/.exec(argv[index]!);
    const value = match?.[2] ?? argv[++index];
    if (!match || value === undefined) usage();
    if (match[1] === 'scales') {
      if (!/^[1-9]\d*(,[1-9]\d*)*$/.test(value)) usage();
      options.scales = [...new Set(value.split(',').map(Number))].sort((left, right) => left - right);
    } else if (match[1] === 'duration') {
      if (!/^[1-9]\d*$/.test(value)) usage();
      options.duration = Number(value);
    } else if (match[1] === 'only') {
      const part = PARTS.find((name) => name === value);
      if (part === undefined) usage();
      options.only = part;
    } else options.keep = value;
  }
  return options;
}

const progress = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const format = (value: number) => Math.round(value).toLocaleString('en-US');
const megabytes = (bytes: number) => `${format(bytes / 1024 / 1024)} MB`;

// --- building a catalogue -------------------------------------------------------------------------------

interface Build {
  projects: number;
  lines: number;
  events: number;
  importSeconds: number;
  replaySeconds: number;
  /** The import process from its start to its exit: reading, deciding, appending, rebuilding the read models. */
  totalSeconds: number;
  diskBytes: number;
}

/** The environment of the service and the import: the embedded stores, whatever the caller's environment says. */
function serviceEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, npm_config_update_notifier: 'false', ...extra };
  for (const variable of ['EVENTSTORE_URL', 'MONGODB_URL', 'REDIS_URL', 'PUBLIC_BASE_URL', 'LINK_SIGNING_SECRET']) delete env[variable];
  return env;
}

function sizeOnDisk(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(path).reduce((total, entry) => total + sizeOnDisk(join(path, entry)), 0);
}

/** The import's progress, logged every 5 s when its stderr is no terminal: shown, as a long import is otherwise silent. */
function showImportProgress(line: string): void {
  if (!line.startsWith('{')) return;
  const record = JSON.parse(line) as { msg?: string; lines?: number; bytes?: number; of_bytes?: number; events?: number };
  if (record.msg !== 'importing' || record.bytes === undefined || record.of_bytes === undefined) return;
  progress(`  importing: ${format(record.lines ?? 0)} lines, ${format((100 * record.bytes) / record.of_bytes)} % (load ${load()})`);
}

async function importWithReplay(dataDir: string, file: string): Promise<{ stdout: string; seconds: number }> {
  const started = performance.now();
  // Through npm, so that the import runs with the Node options its script gives it.
  const child = spawn('npm', ['run', '--silent', 'import', '--', file, '--replay'], {
    cwd: ROOT,
    env: serviceEnv(dataDir, { LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  createInterface({ input: child.stdout }).on('line', showImportProgress);
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`[import] ${chunk}`));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the import exited ${String(code)}:\n${stdout}`);
  return { stdout, seconds: (performance.now() - started) / 1000 };
}

/** The number `pattern` captures in the import's summary, e.g. the events of "replayed 618,170 events". */
function figureOf(stdout: string, pattern: RegExp): number {
  const match = pattern.exec(stdout);
  if (!match) throw new Error(`the import's output has no ${String(pattern)}:\n${stdout}`);
  return Number(match[1]!.replaceAll(',', ''));
}

async function buildCatalogue(root: string, projects: number): Promise<{ dataDir: string; build: Build }> {
  const dataDir = join(root, `catalogue-${projects}`);
  const record = join(dataDir, BUILD_RECORD);
  if (existsSync(record)) {
    progress(`${format(projects)} projects: reusing ${dataDir}`);
    return { dataDir, build: JSON.parse(readFileSync(record, 'utf8')) as Build };
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const file = join(root, `catalogue-${projects}.ndjson`);
  progress(`${format(projects)} projects: writing the catalogue`);
  const { lines } = await writeImportCatalogue(dataDir, file, projects);
  progress(`${format(projects)} projects: importing ${format(lines)} lines with --replay (load ${load()})`);
  const imported = await importWithReplay(dataDir, file);
  rmSync(file);
  const build: Build = {
    projects,
    lines,
    events: figureOf(imported.stdout, /replayed ([\d,]+) events/),
    importSeconds: figureOf(imported.stdout, /lines in ([\d.]+) s/),
    replaySeconds: figureOf(imported.stdout, /into every read model in ([\d.]+) s/),
    totalSeconds: imported.seconds,
    diskBytes: sizeOnDisk(dataDir),
  };
  writeFileSync(record, JSON.stringify(build));
  progress(
    `${format(projects)} projects: ${format(build.events)} events imported and projected in ${build.totalSeconds.toFixed(1)} s ` +
      `(load ${load()}), ${megabytes(build.diskBytes)} on disk`,
  );
  return { dataDir, build };
}

// --- the service ----------------------------------------------------------------------------------------

interface Service {
  /** npm, which relays signals to the service. */
  child: ChildProcess;
  /** The service's own process (npm start execs node in the shell npm spawned). */
  pid: number;
  origin: string;
  adminToken: string;
  readySeconds: number;
}

async function startService(dataDir: string): Promise<Service> {
  const port = await freePort();
  const started = performance.now();
  // `npm start` itself, so that the service runs with the Node options its script gives it.
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: serviceEnv(dataDir, {
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMITS: 'off',
      METRICS: 'on',
      MEDIA_PREGENERATE: 'off',
      SEED_DEMO: 'false',
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  runningServices.add(child);
  void once(child, 'exit').then(() => runningServices.delete(child));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`[service] ${chunk}`));
  const origin = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('the service exited before it was ready');
      const status = await fetch(`${origin}/v1/health`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline) throw new Error('the service was not ready in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const readySeconds = (performance.now() - started) / 1000;
    const pid = Number(execFileSync('pgrep', ['-P', String(child.pid), '-f', 'src/main.ts'], { encoding: 'utf8' }).trim());
    return { child, pid, origin, adminToken: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim(), readySeconds };
  } catch (error) {
    killGroup(child);
    throw error;
  }
}

/**
 * Services running now. Each runs in a process group of its own, which a Ctrl-C on the terminal does not reach:
 * the bench kills them itself when it ends, however it ends.
 */
const runningServices = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of runningServices) killGroup(child);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));

/** npm and the service (one process group: spawned detached). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch (error) {
    // Exited meanwhile.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** SIGTERM (npm relays it), then SIGKILL if it has not exited after STOP_TIMEOUT_MS. */
async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const deadline = setTimeout(() => killGroup(child), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(deadline);
}

/** Resident and peak resident memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kilobytes('VmRSS'), peak: kilobytes('VmHWM') };
}

/** A live key on a plan with every scope and entitlement (RATE_LIMITS=off: its limits are never consulted). */
async function benchKey(service: Service): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${service.origin}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: { id: number; key?: string } }).data;
  };
  const huge = 1_000_000_000;
  // A DATA_DIR reused with --keep has the plan already.
  const plan = `scale-bench-${Date.now()}`;
  await post('/plans', {
    key: plan,
    name: 'Scale benchmark',
    scopes: [...SCOPES],
    entitlements: [...ENTITLEMENTS],
    limits: { burst: { requests: huge, window_ms: 2_000 }, per_minute: huge, daily: huge, monthly: huge, test_daily: huge, overage: null },
  });
  const client = await post('/clients', { name: 'Scale benchmark', plan });
  return (await post(`/clients/${client.id}/keys`, { environment: 'live' })).key!;
}

/** The event-loop delay since the previous scrape, from prom-client's default metrics. */
async function eventLoopDelay(service: Service): Promise<{ p99Ms: number; maxMs: number }> {
  const response = await fetch(`${service.origin}/metrics`, { headers: { authorization: `Bearer ${service.adminToken}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const seconds = (name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { p99Ms: seconds('nodejs_eventloop_lag_p99_seconds') * 1000, maxMs: seconds('nodejs_eventloop_lag_max_seconds') * 1000 };
}

// --- read shapes ----------------------------------------------------------------------------------------

interface Shape {
  label: string;
  /** The path of the n-th request (n from 0): shapes that name projects rotate over the sampled ones. */
  path(n: number): string;
}

interface Sample {
  /** Published projects spread over the catalogue. */
  ids: number[];
  /** Projects in the list and in the change feed. */
  listTotal: number;
  feedTotal: number;
}

const rotate = <T>(values: readonly T[], n: number, count: number): T[] =>
  Array.from({ length: count }, (_, offset) => values[(n * count + offset) % values.length]!);

const deepPage = (total: number, perPage: number) => Math.max(1, Math.ceil((total * 0.9) / perPage));

function shapesOf(sample: Sample): Shape[] {
  const fixed = (label: string, path: string): Shape => ({ label, path: () => path });
  const feed = `/v1/projects/changes?updated_since=${OLD_UPDATED_SINCE}&per_page=${FEED_PER_PAGE}`;
  return [
    { label: 'detail `/projects/{id}`', path: (n) => `/v1/projects/${sample.ids[n % sample.ids.length]!}` },
    fixed('list, first page', `/v1/projects?per_page=${LIST_PER_PAGE}`),
    fixed('list, deep page (90 %)', `/v1/projects?per_page=${LIST_PER_PAGE}&page=${deepPage(sample.listTotal, LIST_PER_PAGE)}`),
    ...['name', '-name', 'updated_at', '-updated_at', 'starting_from', '-starting_from'].map((sort) =>
      fixed(`list, \`sort=${sort}\``, `/v1/projects?per_page=${LIST_PER_PAGE}&sort=${sort}`),
    ),
    fixed('list, `q=marina`', `/v1/projects?per_page=${LIST_PER_PAGE}&q=marina`),
    fixed('list, `min_price=5000000`', `/v1/projects?per_page=${LIST_PER_PAGE}&min_price=5000000`),
    fixed('list, `max_price=1000000`', `/v1/projects?per_page=${LIST_PER_PAGE}&max_price=1000000`),
    fixed(
      'list, `state`, `nature`, prices, `sort=-starting_from`',
      `/v1/projects?per_page=${LIST_PER_PAGE}&state=dubai&nature=off_plan&min_price=1000000&max_price=6000000&sort=-starting_from`,
    ),
    fixed('change feed, first page', feed),
    fixed('change feed, deep page (90 %)', `${feed}&page=${deepPage(sample.feedTotal, FEED_PER_PAGE)}`),
    { label: '`ids` batch of 100', path: (n) => `/v1/projects?per_page=100&ids=${rotate(sample.ids, n, 100).join(',')}` },
    {
      label: 'related batch, 25 ids x 5',
      path: (n) =>
        `/v1/projects/resources?ids=${rotate(sample.ids, n, 25).join(',')}&include=media,floor_plans,amenities,payment_plans,payment_methods`,
    },
  ];
}

async function getJson(service: Service, key: string, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/**
 * Published projects spread over the catalogue, from change-feed pages at even steps (each page of the feed
 * names a hundred projects, in the order they last changed), and the list's and the feed's totals.
 */
async function sampleProjects(service: Service, key: string): Promise<Sample> {
  const feedPath = (page: number) => `/v1/projects/changes?updated_since=${OLD_UPDATED_SINCE}&per_page=${FEED_PER_PAGE}&page=${page}`;
  const first = await getJson(service, key, feedPath(1));
  const feedTotal: number = first.body.meta.pagination.total;
  const pages = Math.max(1, Math.ceil(feedTotal / FEED_PER_PAGE));
  const steps = Math.min(pages, Math.ceil(SAMPLED_PROJECTS / FEED_PER_PAGE));
  const ids = new Set<number>();
  for (let step = 0; step < steps; step++) {
    const page = 1 + Math.floor((step * pages) / steps);
    const { body } = page === 1 ? first : await getJson(service, key, feedPath(page));
    for (const item of body.data as Array<{ project_id: number; project: unknown }>) if (item.project !== null) ids.add(item.project_id);
  }
  const list = await getJson(service, key, '/v1/projects?per_page=1');
  return { ids: [...ids], listTotal: list.body.meta.pagination.total, feedTotal };
}

/** One request on a keep-alive connection, timed from its start to its body's end. */
function timedGet(agent: Agent, origin: string, path: string, key: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    httpGet(`${origin}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

interface FirstRequests {
  label: string;
  firstMs: number;
  secondMs: number;
}

/**
 * Each shape's first and second request, before any other request reaches the read side. The detail, ids
 * and related shapes need projects, which come from the change feed's first page, itself timed first.
 */
async function firstRequests(service: Service, key: string): Promise<{ timings: FirstRequests[]; sample: Sample }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const feedFirst = `/v1/projects/changes?updated_since=${OLD_UPDATED_SINCE}&per_page=${FEED_PER_PAGE}`;
    const first = await timedGet(agent, service.origin, feedFirst, key);
    const second = await timedGet(agent, service.origin, feedFirst, key);
    const timings: FirstRequests[] = [{ label: 'change feed, first page', firstMs: first.ms, secondMs: second.ms }];
    const sample = await sampleProjects(service, key);
    for (const shape of shapesOf(sample)) {
      if (shape.label === timings[0]!.label) continue;
      const [one, two] = [
        await timedGet(agent, service.origin, shape.path(0), key),
        await timedGet(agent, service.origin, shape.path(0), key),
      ];
      if (one.status !== 200 || two.status !== 200)
        throw new Error(`${shape.label}: ${shape.path(0)} answered ${one.status}, ${two.status}`);
      timings.push({ label: shape.label, firstMs: one.ms, secondMs: two.ms });
    }
    return { timings, sample };
  } finally {
    agent.destroy();
  }
}

interface Throughput {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Answers other than 200, and errors: a figure with any is not comparable. */
  failures: number;
}

async function measureShape(service: Service, key: string, shape: Shape, seconds: number): Promise<autocannon.Result> {
  let n = 0;
  return autocannon({
    url: service.origin,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${key}` },
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: shape.path(n++) }) }],
  });
}

const median = (values: readonly number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;

/**
 * Each shape at every scale in turn, in ROUNDS alternating rounds, then the next shape: this machine's speed
 * drifts from minute to minute while other work shares it, and measuring a shape's scales side by side, round
 * after round, keeps most of the drift out of its ratios. A shape's figure at a scale: its requests over the
 * seconds of all its rounds, the median round's p50 and p99. Returns each scale's figures, shape by shape.
 */
async function throughputs(scales: readonly Started[], seconds: number): Promise<Throughput[][]> {
  const shapes = scales.map((scale) => shapesOf(scale.first.sample));
  const measured = scales.map((): Throughput[] => []);
  for (let index = 0; index < shapes[0]!.length; index++) {
    const rounds = scales.map((): autocannon.Result[] => []);
    for (const [scaleIndex, scale] of scales.entries())
      await measureShape(scale.service, scale.key, shapes[scaleIndex]![index]!, WARMUP_SECONDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [scaleIndex, scale] of scales.entries()) {
        rounds[scaleIndex]!.push(await measureShape(scale.service, scale.key, shapes[scaleIndex]![index]!, seconds / ROUNDS));
      }
    }
    for (const [scaleIndex, scale] of scales.entries()) {
      const results = rounds[scaleIndex]!;
      const sum = (of: (result: autocannon.Result) => number) => results.reduce((total, result) => total + of(result), 0);
      const figures = {
        label: shapes[scaleIndex]![index]!.label,
        requestsPerSecond: sum((result) => result.requests.total) / sum((result) => result.duration),
        p50: median(results.map((result) => result.latency.p50)),
        p99: median(results.map((result) => result.latency.p99)),
        failures: sum((result) => result.non2xx + result.errors + result.timeouts),
      };
      progress(
        `  ${format(scale.projects)}: ${figures.label}: ${format(figures.requestsPerSecond)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms` +
          `${figures.failures > 0 ? `, ${figures.failures} FAILED` : ''} (load ${load()})`,
      );
      measured[scaleIndex]!.push(figures);
    }
  }
  return measured;
}

interface DetailPhase {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  eventLoop: { p99Ms: number; maxMs: number } | null;
  /** Change-feed pages the syncing client read meanwhile (0 unloaded), and its whole passes through the feed. */
  feedPages: number;
  feedPasses: number;
}

const percentile = (sorted: readonly number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;

/**
 * The syncing client's loop, run on a thread of its own: two clients of a service are two processes, and on
 * one event loop the detail client's timings would also wait while this one reads its 165 KB pages. It pages
 * the feed from `page` 1 for `ms` once told to start, and posts its pages and whole passes.
 */
const SYNCING_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, get } = require('node:http');
const { origin, key, path, perPage, total } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const fetchPage = (page) =>
  new Promise((resolve, reject) => {
    get(origin + path + '&page=' + page, { agent, headers: { authorization: 'Bearer ' + key } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
      response.on('error', reject);
    }).on('error', reject);
  });
parentPort.once('message', async (ms) => {
  const until = performance.now() + ms;
  let pages = 0;
  let passes = 0;
  let page = 1;
  while (performance.now() < until) {
    const status = await fetchPage(page);
    if (status !== 200) throw new Error('the syncing client read page ' + page + ': ' + status);
    pages += 1;
    if (page * perPage >= total) {
      passes += 1;
      page = 1;
    } else page += 1;
  }
  agent.destroy();
  parentPort.postMessage({ pages, passes });
});
parentPort.postMessage('ready');
`;

/** Starts the syncing client's thread; `run(ms)` pages the feed for that long and resolves with what it read. */
async function syncingClient(
  origin: string,
  key: string,
  sample: Sample,
): Promise<(ms: number) => Promise<{ pages: number; passes: number }>> {
  const path = `/v1/projects/changes?updated_since=${OLD_UPDATED_SINCE}&per_page=${FEED_PER_PAGE}`;
  const worker = new Worker(SYNCING_CLIENT, {
    eval: true,
    workerData: { origin, key, path, perPage: FEED_PER_PAGE, total: sample.feedTotal },
  });
  const failed = once(worker, 'error').then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  await Promise.race([once(worker, 'message'), failed]);
  return async (ms) => {
    worker.postMessage(ms);
    try {
      const [read] = (await Promise.race([once(worker, 'message'), failed])) as [{ pages: number; passes: number }];
      return read;
    } finally {
      await worker.terminate();
    }
  };
}

/** What the detail phases read from: the service, or the bare server of the baseline (which has no /metrics). */
interface DetailTarget {
  origin: string;
  /** The event-loop delay since the last call; null when the target does not report one. */
  eventLoopDelay(): Promise<{ p99Ms: number; maxMs: number } | null>;
}

const serviceTarget = (service: Service): DetailTarget => ({ origin: service.origin, eventLoopDelay: () => eventLoopDelay(service) });

/** One sequential client reading details for `seconds`, with a syncing client paging the feed beside it when `loaded`. */
async function detailPhase(target: DetailTarget, key: string, sample: Sample, seconds: number, loaded: boolean): Promise<DetailPhase> {
  const detailAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const sync = loaded ? await syncingClient(target.origin, key, sample) : null;
  await target.eventLoopDelay();
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  const read = async () => {
    for (let n = 0; performance.now() < until; n++) {
      const { status, ms } = await timedGet(detailAgent, target.origin, `/v1/projects/${sample.ids[n % sample.ids.length]!}`, key);
      if (status !== 200) throw new Error(`GET /v1/projects/{id} answered ${status}`);
      latencies.push(ms);
    }
  };
  let synced = { pages: 0, passes: 0 };
  try {
    [, synced] = await Promise.all([read(), sync ? sync(seconds * 1000) : synced]);
  } finally {
    detailAgent.destroy();
  }
  const eventLoop = await target.eventLoopDelay();
  latencies.sort((left, right) => left - right);
  return {
    requests: latencies.length,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    eventLoop,
    feedPages: synced.pages,
    feedPasses: synced.passes,
  };
}

/**
 * The baseline of the detail phases: a bare node:http server, in a process of its own, answering every
 * project detail with the bytes of one the service gave and every change-feed page with the bytes of its
 * first page, as fast as Node can. The same two clients beside it show what this machine adds to a detail
 * request's p99 when a syncing client keeps a server busy, whatever the server does per request.
 */
const BARE_SERVER = `
const { createServer } = require('node:http');
const { readFileSync } = require('node:fs');
const detail = readFileSync(process.env.DETAIL_FILE);
const feed = readFileSync(process.env.FEED_FILE);
createServer((request, response) => {
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(request.url.startsWith('/v1/projects/changes') ? feed : detail);
}).listen(0, '127.0.0.1', function () {
  process.stdout.write(this.address().port + '\\n');
});
`;

async function rawBody(service: Service, key: string, path: string): Promise<Buffer> {
  const response = await fetch(`${service.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Starts the bare server on the bytes of a detail and of a feed page the service gave; stop it with kill(). */
async function startBareServer(scale: Started, folder: string): Promise<{ target: DetailTarget; child: ChildProcess }> {
  const detailFile = join(folder, 'bare-detail.json');
  const feedFile = join(folder, 'bare-feed.json');
  writeFileSync(detailFile, await rawBody(scale.service, scale.key, `/v1/projects/${scale.first.sample.ids[0]!}`));
  writeFileSync(
    feedFile,
    await rawBody(scale.service, scale.key, `/v1/projects/changes?updated_since=${OLD_UPDATED_SINCE}&per_page=${FEED_PER_PAGE}`),
  );
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    env: { ...process.env, DETAIL_FILE: detailFile, FEED_FILE: feedFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { target: { origin: `http://127.0.0.1:${Number(line)}`, eventLoopDelay: async () => null }, child };
}

// --- one scale, and the report --------------------------------------------------------------------------

interface ScaleResult {
  build: Build;
  readySeconds: number;
  rssAfterStart: number;
  rssAfterRun: number;
  peakRss: number;
  firstRequests: FirstRequests[];
  throughputs: Throughput[];
  unloaded: DetailPhase;
  loaded: DetailPhase;
  /** The same two phases against the bare server (see BARE_SERVER). */
  bare: { unloaded: DetailPhase; loaded: DetailPhase };
  load: string;
}

/** A scale's service, started on its catalogue, and what was measured of it before the read shapes. */
interface Started {
  projects: number;
  build: Build;
  service: Service;
  key: string;
  rssAfterStart: number;
  first: { timings: FirstRequests[]; sample: Sample };
  loadAtStart: string;
}

async function startScale(projects: number, dataDir: string, build: Build, only: Part | null): Promise<Started> {
  const loadAtStart = load();
  progress(`${format(projects)} projects: starting the service`);
  const service = await startService(dataDir);
  try {
    const rssAfterStart = memoryOf(service.pid).rss;
    progress(`${format(projects)} projects: ready after ${service.readySeconds.toFixed(1)} s, RSS ${megabytes(rssAfterStart)}`);
    const key = await benchKey(service);
    // The detail phases need the sample alone; the first requests would warm up what they are to time.
    const first = only === 'detail' ? { timings: [], sample: await sampleProjects(service, key) } : await firstRequests(service, key);
    for (const { label, firstMs, secondMs } of first.timings)
      progress(`  first request: ${label}: ${firstMs.toFixed(1)} ms, then ${secondMs.toFixed(1)} ms`);
    return { projects, build, service, key, rssAfterStart, first, loadAtStart };
  } catch (error) {
    await stopService(service.child);
    throw error;
  }
}

/** The detail alone and beside the sync, then the memory: the last measurements of a scale. */
async function finishScale(scale: Started, measured: Throughput[], seconds: number, folder: string): Promise<ScaleResult> {
  const { service, key, first, projects } = scale;
  progress(`${format(projects)} projects: detail alone, then beside a client paging the change feed`);
  const unloaded = await detailPhase(serviceTarget(service), key, first.sample, seconds, false);
  const loaded = await detailPhase(serviceTarget(service), key, first.sample, seconds, true);
  progress(
    `  detail p99 ${unloaded.p99Ms.toFixed(1)} ms alone, ${loaded.p99Ms.toFixed(1)} ms beside the sync ` +
      `(${loaded.feedPages} feed pages); event-loop delay p99 ${unloaded.eventLoop?.p99Ms.toFixed(1)} / ${loaded.eventLoop?.p99Ms.toFixed(1)} ms`,
  );
  const memory = memoryOf(service.pid);
  progress(`${format(projects)} projects: the same against a bare node:http server answering with the same bytes`);
  const bareServer = await startBareServer(scale, folder);
  let bare: ScaleResult['bare'];
  try {
    bare = {
      unloaded: await detailPhase(bareServer.target, key, first.sample, seconds, false),
      loaded: await detailPhase(bareServer.target, key, first.sample, seconds, true),
    };
  } finally {
    bareServer.child.kill();
  }
  progress(`  bare server: detail p99 ${bare.unloaded.p99Ms.toFixed(1)} ms alone, ${bare.loaded.p99Ms.toFixed(1)} ms beside the sync`);
  return {
    build: scale.build,
    readySeconds: service.readySeconds,
    rssAfterStart: scale.rssAfterStart,
    rssAfterRun: memory.rss,
    peakRss: memory.peak,
    firstRequests: first.timings,
    throughputs: measured,
    unloaded,
    loaded,
    bare,
    load: `${scale.loadAtStart} → ${load()}`,
  };
}

const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const divider = (count: number) => row(['---', ...Array.from({ length: count - 1 }, () => '---:')]);

function buildsTable(results: readonly ScaleResult[]): string[] {
  return [
    '**Builds and memory** (`npm run import -- FILE --replay`, then the service started on it)',
    '',
    row([
      'Projects',
      'Lines',
      'Events',
      'Imported and projected',
      'Of which rebuilding',
      'Events/s',
      'On disk',
      'Start to ready',
      'RSS after start',
      'RSS after the run (peak)',
      'Load average',
    ]),
    divider(11),
    ...results.map((result) =>
      row([
        format(result.build.projects),
        format(result.build.lines),
        format(result.build.events),
        `${result.build.totalSeconds.toFixed(1)} s`,
        `${result.build.replaySeconds.toFixed(1)} s`,
        format(result.build.events / result.build.totalSeconds),
        megabytes(result.build.diskBytes),
        `${result.readySeconds.toFixed(1)} s`,
        megabytes(result.rssAfterStart),
        `${megabytes(result.rssAfterRun)} (${megabytes(result.peakRss)})`,
        result.load,
      ]),
    ),
    '',
  ];
}

function shapesTable(results: readonly ScaleResult[]): string[] {
  const scales = results.map((result) => format(result.build.projects));
  const base = results[0]!;
  const ratioHeaders = results.slice(1).map((result) => `${format(result.build.projects)} / ${scales[0]}`);
  return [
    `**Read shapes** at ${CONNECTIONS} connections: requests/s (p50 / p99 ms of the median round) per scale, and the throughput relative to ${scales[0]} projects (target >= 0.8)`,
    '',
    row(['Shape', ...scales, ...ratioHeaders]),
    divider(1 + scales.length + ratioHeaders.length),
    ...base.throughputs.map((shape, index) =>
      row([
        shape.label,
        ...results.map((result) => {
          const figures = result.throughputs[index]!;
          const failed = figures.failures > 0 ? ` **${figures.failures} failed**` : '';
          return `${format(figures.requestsPerSecond)} (${figures.p50} / ${figures.p99})${failed}`;
        }),
        ...results.slice(1).map((result) => {
          const ratio = result.throughputs[index]!.requestsPerSecond / shape.requestsPerSecond;
          return ratio >= 0.8 ? ratio.toFixed(2) : `**${ratio.toFixed(2)}**`;
        }),
      ]),
    ),
    '',
  ];
}

function firstRequestsTable(results: readonly ScaleResult[]): string[] {
  const scales = results.map((result) => format(result.build.projects));
  return [
    '**First request after a start**: each shape requested twice right after /v1/health answered 200, before any other read (ms)',
    '',
    row(['Shape', ...scales.flatMap((scale) => [`${scale}: first`, `${scale}: second`])]),
    divider(1 + scales.length * 2),
    ...results[0]!.firstRequests.map((shape, index) =>
      row([
        shape.label,
        ...results.flatMap((result) => {
          const timing = result.firstRequests[index]!;
          return [timing.firstMs.toFixed(1), timing.secondMs.toFixed(1)];
        }),
      ]),
    ),
    '',
  ];
}

const eventLoopCell = (eventLoop: DetailPhase['eventLoop']) =>
  eventLoop === null ? '' : `${eventLoop.p99Ms.toFixed(1)} / ${eventLoop.maxMs.toFixed(1)} ms`;

function detailTable(results: readonly ScaleResult[]): string[] {
  return [
    "**Detail beside a full sync**: one client reads `GET /v1/projects/{id}` one request after another, alone, then while another pages the change feed (`per_page=100`, page after page, on a thread of its own); the event-loop delay is the service's over each phase (target: loaded p99 within 2 x unloaded). The baseline: the same two clients against a bare node:http server answering with the bytes of one detail and one feed page the service gave",
    '',
    row([
      'Projects',
      'Server',
      'Detail p50 / p99 alone',
      'Detail p50 / p99 beside the sync',
      'p99 loaded / alone',
      'Feed pages read (whole passes)',
      'Event-loop delay p99 / max alone',
      'Event-loop delay p99 / max beside the sync',
    ]),
    divider(8),
    ...results.flatMap((result) =>
      [
        { server: 'the service', unloaded: result.unloaded, loaded: result.loaded },
        { server: 'bare node:http', ...result.bare },
      ].map(({ server, unloaded, loaded }) =>
        row([
          format(result.build.projects),
          server,
          `${unloaded.p50Ms.toFixed(1)} / ${unloaded.p99Ms.toFixed(1)} ms`,
          `${loaded.p50Ms.toFixed(1)} / ${loaded.p99Ms.toFixed(1)} ms`,
          (loaded.p99Ms / unloaded.p99Ms).toFixed(2),
          `${format(loaded.feedPages)} (${loaded.feedPasses})`,
          eventLoopCell(unloaded.eventLoop),
          eventLoopCell(loaded.eventLoop),
        ]),
      ),
    ),
  ];
}

function report(results: readonly ScaleResult[], only: Part | null): string {
  const tables = only === 'detail' ? [detailTable] : [buildsTable, shapesTable, firstRequestsTable, detailTable];
  return tables.flatMap((table) => table(results)).join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const root = options.keep ?? mkdtempSync(join(tmpdir(), 'scale-bench-'));
  mkdirSync(root, { recursive: true });
  progress(`scales ${options.scales.map(format).join(', ')} in ${root}; load ${load()}`);
  const started: Started[] = [];
  try {
    // Every catalogue first: an import beside a running service would load the machine the service is measured on.
    const built: Array<{ dataDir: string; build: Build }> = [];
    for (const projects of options.scales) built.push(await buildCatalogue(root, projects));
    for (const [index, projects] of options.scales.entries())
      started.push(await startScale(projects, built[index]!.dataDir, built[index]!.build, options.only));
    let measured: Throughput[][] = started.map(() => []);
    if (options.only === null) {
      progress(`read shapes at ${CONNECTIONS} connections, ${options.duration} s each in ${ROUNDS} rounds, the scales alternating`);
      measured = await throughputs(started, options.duration);
    }
    const results: ScaleResult[] = [];
    for (const [index, scale] of started.entries()) results.push(await finishScale(scale, measured[index]!, options.duration, root));
    process.stdout.write(`\n${report(results, options.only)}\n`);
  } finally {
    for (const scale of started) await stopService(scale.service.child);
    if (options.keep) progress(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

await main();
