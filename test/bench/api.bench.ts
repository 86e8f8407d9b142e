/**
 * API benchmark (`npm run bench`): not a test. It starts, each in its own process,
 *   - a bare express app answering a small JSON body (the baseline), and
 *   - the service itself (`src/main.ts`, every role, embedded stores in a temporary DATA_DIR, demo catalogue,
 *     the in-process limiter; started once to seed the catalogue, then restarted on it for the measurements),
 * and drives them with autocannon from this process:
 *   (a) the bare route,
 *   (b) GET /v1/projects/{slug} through the full stack with the demo client's live key,
 *   (c) the same with a matching If-None-Match (304),
 *   (d) a filtered, sorted list page of 20 projects.
 * in interleaved rounds (a, b, c, d, a, b, c, d, ...; each scenario warmed up first): this machine's speed
 * drifts from minute to minute, and measuring the scenarios side by side keeps the drift out of the ratios.
 * Then (b) again at 10 connections, where latency is the service's own rather than queueing.
 * It prints req/s, p50 and p99 latency and each scenario's ratio to (a), and checks the targets:
 * (b) >= 0.5 x (a), (c) >= (b), (d) >= 0.3 x (a), p99 of (b) under 10 ms at 50 connections.
 *
 * Then the limiter's overhead: the service is stopped, three API processes are started on the same DATA_DIR
 * (no second seed), one per limiter mode, and (b) is measured against them in interleaved rounds:
 *   - Redis (REDIS_URL = --redis-url; skipped with the reason when that Redis does not answer),
 *   - embedded (in-process, REDIS_URL unset),
 *   - off (RATE_LIMITS=off).
 * Each mode gets a fresh process, so the three are measured alike; only one is loaded at a time. Targets: Redis >= 0.85 x off, and at most
 * 1.05 limiter round trips (EVALSHA + EVAL) per request, from Redis's INFO commandstats, reset after the
 * warm-up and read after the measured run. The limiter sends the consumes of one event-loop turn as one
 * EVALSHA, so under load a round trip carries many requests; the average is printed. Commands run inside Lua
 * scripts are counted there too, so the script's own commands are reported apart from whatever else the
 * service sent.
 *
 * Then the metrics' overhead: those processes are stopped and two more API processes are started on the same DATA_DIR
 * (the embedded limiter), one with METRICS=on (the default: every request timed by route, the stores and the limiter
 * instrumented) and one with METRICS=off, and (b) is measured against both in interleaved rounds. Target: on >= 0.95 x off.
 *
 * Then the media section: the service is started again on the same DATA_DIR (every role, MEDIA_PREGENERATE=off),
 * distinct 3000 x 2000 camera-like JPEG masters (test/bench/benchMasters.ts) are uploaded through the admin API
 * (raw image/jpeg bodies to POST /admin/v1/projects/{p}/gallery), and two baselines run in their own processes:
 *   (e) the first render of a master's 800 px WebP: GET /v1/media/{media_id}/{key}-800.webp, each address
 *       requested once (nothing has rendered it before: the derivative is made, stored and served), against a
 *       plain sharp loop rendering the same masters with the same pipeline (test/bench/bareSharpLoop.ts), both
 *       with as many renders in flight as there are connections. A warm-up of one render per connection, then
 *       MEDIA_ROUNDS interleaved rounds; renders/s over all rounds, p50 and p99 of every render of the rounds.
 *       Target: the service >= 0.8 x the bare loop's throughput.
 *   (f) a derivative already made, served by the service, against the same bytes from a bare express.static
 *       (test/bench/bareStatic.ts), with autocannon in interleaved rounds like (a) to (d). Target: >= 0.8.
 *
 * Options: --duration S (measured seconds per scenario, default 20), --rounds N (rounds the duration is split
 * into, default 10: more short rounds average out more of the drift), --connections N (default 50), --projects N (demo projects seeded, default 2000,
 * or 20 with --only media|webhooks|pdf), --redis-url URL (default redis://127.0.0.1:6379), --renders N (first renders of (e)
 * measured on each side, default 300), --only api|media|webhooks|pdf (run one part: api is (a) to (d) and the limiter).
 *
 * Then the webhook section (test/bench/webhookBench.ts): (g) delivery throughput to a loopback receiver against a
 * raw fetch POST loop of the same bodies, (h) edit-to-receiver latency at a steady edit rate.
 *
 * Then the PDF section (test/bench/pdfBench.ts): (i) cold brochure render in a fresh process, (j) warm render,
 * (k) cached reuse against GET /v1/projects/{slug}, (l) renders per minute at concurrency 2.
 */
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { limitsKeys } from '../../src/limits/redisLimits.js';
import { freePort } from '../support/http.js';
import { MASTER_HEIGHT, MASTER_WIDTH, masterMaker } from './benchMasters.js';
import { pdfSection, reportPdf } from './pdfBench.js';
import { reportWebhooks, webhookSection } from './webhookBench.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 5 * 60_000;
/** How long a stopped service may take to drain and exit before it is killed. */
const STOP_TIMEOUT_MS = 30_000;
const WARMUP_SECONDS = 3;
/** Connections of the extra latency measurement of (b). */
const FEW_CONNECTIONS = 10;
/** Rounds (e) is measured in after its warm-up; every round keeps all connections busy with renders. */
const MEDIA_ROUNDS = 3;
/** The derivative width of (e) and (f). */
const MEDIA_WIDTH = 800;
/** Masters uploaded at a time while the media section prepares, each lane to its own project. */
const UPLOAD_LANES = 3;
/**
 * Waited after the warm-up (before the reset) and after the measured run (before the read), so the requests
 * still in flight when autocannon stopped have reached Redis; autocannon does not count their responses.
 */
const SETTLE_MS = 500;

/** The limiter's round trips: ioredis sends EVALSHA, and EVAL when Redis answers NOSCRIPT. */
const LIMITER_ROUND_TRIPS = ['evalsha', 'eval'];
/**
 * The commands CONSUME_SCRIPT (src/limits/redisLimits.ts) may run inside Redis, which commandstats counts
 * like any other. The same command sent by the service itself would be counted among these; the
 * per-command figures printed show what ran.
 */
const SCRIPT_COMMANDS = ['zremrangebyscore', 'zcount', 'hmget', 'hget', 'zrangebyscore', 'zadd', 'pexpire', 'hset', 'expire'];
/** What this bench itself runs between the reset and the read (INFO is counted only after its own reply). */
const OWN_COMMANDS = ['config|resetstat'];

interface Options {
  duration: number;
  rounds: number;
  connections: number;
  projects: number;
  redisUrl: string;
  renders: number;
  /** Run only this part; null runs every part. */
  only: 'api' | 'media' | 'webhooks' | 'pdf' | null;
}

function usage(): never {
  process.stderr.write(
    'usage: npm run bench [-- --duration S] [--rounds N] [--connections N] [--projects N] [--redis-url redis://host:port] [--renders N] [--only api|media|webhooks|pdf]' +
      `   (whole numbers >= 1, rounds <= duration, renders >= ${MEDIA_ROUNDS} x connections)\n`,
  );
  process.exit(2);
}

/** Renames per throughput round of the webhook section, and its rounds (see test/bench/webhookBench.ts). */
const WEBHOOK_EDITS = 500;
const WEBHOOK_ROUNDS = 3;

/** Demo projects seeded when only the media, webhook or PDF section runs and --projects is not given: it needs a few to edit or print. */
const MEDIA_ONLY_PROJECTS = 20;

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    duration: 20,
    rounds: 10,
    connections: 50,
    projects: 2000,
    redisUrl: 'redis://127.0.0.1:6379',
    renders: 300,
    only: null,
  };
  let projectsGiven = false;
  for (let index = 0; index < argv.length; index += 1) {
    const match = /^--(duration|rounds|connections|projects|redis-url|renders|only)(?:=(.*))?$/.exec(argv[index]!);
    const value = match?.[2] ?? argv[(index += 1)];
    if (!match || value === undefined) usage();
    if (match[1] === 'redis-url') {
      if (!/^rediss?:\/\//.test(value) || !URL.canParse(value)) usage();
      options.redisUrl = value;
    } else if (match[1] === 'only') {
      if (value !== 'api' && value !== 'media' && value !== 'webhooks' && value !== 'pdf') usage();
      options.only = value;
    } else {
      if (!/^\d+$/.test(value) || Number(value) < 1) usage();
      options[match[1] as 'duration' | 'rounds' | 'connections' | 'projects' | 'renders'] = Number(value);
      projectsGiven ||= match[1] === 'projects';
    }
  }
  if (options.rounds > options.duration) usage();
  // Every round of (e) keeps all connections busy.
  if ((options.only === null || options.only === 'media') && options.renders < MEDIA_ROUNDS * options.connections) usage();
  if ((options.only === 'media' || options.only === 'webhooks' || options.only === 'pdf') && !projectsGiven)
    options.projects = MEDIA_ONLY_PROJECTS;
  return options;
}

function startProcess(name: string, args: string[], env: NodeJS.ProcessEnv, stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env, stdio: [stdin, 'pipe', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`[${name}] exited with ${code ?? signal}\n`);
  });
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited after STOP_TIMEOUT_MS. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
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
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface Service {
  child: ChildProcess;
  /** `http://127.0.0.1:port` */
  origin: string;
}

/** The port a baseline server prints (`listening <port>`) once it accepts requests. */
function listeningPort(child: ChildProcess, name: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(String(chunk));
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`the ${name} server exited before listening`)));
  });
}

/**
 * The service on DATA_DIR: the first start seeds it, later ones reuse it. The limiter variables, METRICS (on
 * unless `limiterEnv` says otherwise) and MEDIA_PREGENERATE are always given, so the caller's environment does
 * not change what is measured.
 */
async function startService(
  dataDir: string,
  options: Options,
  limiterEnv: { REDIS_URL: string; RATE_LIMITS: 'on' | 'off'; METRICS?: 'on' | 'off' },
  roles: string[] = [],
): Promise<Service> {
  const port = await freePort();
  const child = startProcess('service', ['src/main.ts', ...roles], {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SEED_PROJECTS: String(options.projects),
    MEDIA_PREGENERATE: 'off',
    METRICS: 'on',
    ...limiterEnv,
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

/**
 * A live key of a client on a plan whose limits the load cannot reach: the limiter is still consulted on
 * every request (its cost is part of the figures), it just never refuses.
 */
async function benchKey(adminBase: string, adminToken: string): Promise<{ key: string; clientId: number }> {
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
  return { key: (await post(`/clients/${client.id}/keys`, { environment: 'live' })).key!, clientId: client.id };
}

async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag: string | null; rateLimited: boolean; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    rateLimited: response.headers.has('ratelimit-limit'),
    body: text === '' ? null : JSON.parse(text),
  };
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
  /** Responses of the measured run (2xx + 3xx + 4xx), warm-up excluded. */
  responses: number;
}

async function run(scenario: Scenario, seconds: number, connections: number): Promise<autocannon.Result> {
  const result = await autocannon({ url: scenario.url, headers: scenario.headers, connections, duration: seconds });
  const unexpected = result.non2xx - (scenario.expectedStatus === 304 ? result['3xx'] : 0);
  if (result.errors > 0 || result.timeouts > 0 || unexpected > 0) {
    throw new Error(`${scenario.label}: ${result.errors} errors, ${result.timeouts} timeouts, ${unexpected} unexpected statuses`);
  }
  return result;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Rounds of one scenario as one figure: requests over seconds of all rounds, the median round's latencies. */
function aggregate(scenario: Scenario, rounds: autocannon.Result[]): Measured {
  const sum = (of: (result: autocannon.Result) => number) => rounds.reduce((total, result) => total + of(result), 0);
  return {
    scenario,
    requestsPerSecond: sum((result) => result.requests.total) / sum((result) => result.duration),
    p50: median(rounds.map((result) => result.latency.p50)),
    p99: median(rounds.map((result) => result.latency.p99)),
    responses: sum((result) => result['2xx'] + result['3xx'] + result['4xx']),
  };
}

/**
 * Warms every scenario up, then runs them in turn, round after round, each for its share of the duration;
 * `afterWarmUp` runs between the warm-ups and the first round.
 */
async function measureInterleaved(
  scenarios: readonly Scenario[],
  options: Options,
  connections = options.connections,
  afterWarmUp: () => Promise<void> = async () => {},
): Promise<Measured[]> {
  for (const scenario of scenarios) await run(scenario, WARMUP_SECONDS, connections);
  await afterWarmUp();
  const rounds = scenarios.map((): autocannon.Result[] => []);
  for (let round = 1; round <= options.rounds; round += 1) {
    process.stdout.write(`  round ${round} of ${options.rounds}\n`);
    for (const [index, scenario] of scenarios.entries())
      rounds[index]!.push(await run(scenario, options.duration / options.rounds, connections));
  }
  return scenarios.map((scenario, index) => aggregate(scenario, rounds[index]!));
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-api-bench-'));
  const children = new Set<ChildProcess>();
  const stopChildren = async () => {
    await Promise.all([...children].map(stopProcess));
    children.clear();
  };
  try {
    if (options.only === null || options.only === 'api') {
      await apiSections(dataDir, options, children);
      // Idle or not, the API sections' processes are not to share the machine with the media section's.
      await stopChildren();
    }
    if (options.only === null || options.only === 'media') await mediaSection(dataDir, options, children);
    if (options.only === null || options.only === 'webhooks') {
      // The webhook section (test/bench/webhookBench.ts) starts and stops its own processes.
      await stopChildren();
      const webhookOptions = { edits: WEBHOOK_EDITS, rounds: WEBHOOK_ROUNDS, projects: options.projects };
      process.stdout.write(`${reportWebhooks(await webhookSection(dataDir, webhookOptions, children), webhookOptions)}\n`);
    }
    if (options.only === null || options.only === 'pdf') {
      // The PDF section (test/bench/pdfBench.ts) starts and stops its own processes.
      await stopChildren();
      const pdf = reportPdf(await pdfSection(dataDir, { projects: options.projects }, children));
      process.stdout.write(`${pdf.text}\n`);
      if (pdf.missed) process.exitCode = 1;
    }
  } finally {
    await stopChildren();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** (a) to (d), then the limiter's overhead, on a freshly seeded DATA_DIR; prints their report. */
async function apiSections(dataDir: string, options: Options, children: Set<ChildProcess>): Promise<void> {
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastRedisError: Error | null = null;
  redis.on('error', (error: Error) => {
    lastRedisError = error;
  });
  try {
    const bare = startProcess('bare', ['test/bench/bareServer.ts'], process.env);
    children.add(bare);
    const barePort = await listeningPort(bare, 'bare');
    let service = await startService(dataDir, options, { REDIS_URL: '', RATE_LIMITS: 'on' });
    children.add(service.child);

    let base = `${service.origin}/v1`;
    process.stdout.write(`seeding ${options.projects} demo projects in ${dataDir} and waiting for the projector...\n`);
    const seedStarted = performance.now();
    await waitFor(
      'the service to answer /v1/health',
      async () => ((await getJson(`${base}/health`)).status === 200 ? true : undefined),
      service.child,
    );
    const { key, clientId } = await benchKey(`${service.origin}/admin/v1`, readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    const auth = { authorization: `Bearer ${key}` };
    // Some demo projects are unpublished or deleted, so the projector has caught up once the number of
    // published projects stops moving.
    let lastTotal = -1;
    let steadyPolls = 0;
    await waitFor(
      'the projector to catch up',
      async () => {
        const { body } = await getJson(`${base}/projects?per_page=1`, auth);
        const total: number = body?.meta?.pagination?.total ?? 0;
        steadyPolls = total > 0 && total === lastTotal ? steadyPolls + 1 : 0;
        lastTotal = total;
        return steadyPolls >= 3 ? true : undefined;
      },
      service.child,
    );
    process.stdout.write(`ready after ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`);

    // The first start loaded the demo catalogue through the commands, a one-time bulk load whose heap the
    // process would carry into every figure; the service is measured as any later start runs it.
    process.stdout.write('restarting the service on the seeded DATA_DIR...\n');
    await stopProcess(service.child);
    children.delete(service.child);
    service = await startService(dataDir, options, { REDIS_URL: '', RATE_LIMITS: 'on' });
    children.add(service.child);
    base = `${service.origin}/v1`;
    const restartedAt = performance.now();
    await waitFor(
      'the restarted service to answer',
      async () => ((await getJson(`${base}/projects?per_page=1`, auth)).status === 200 ? true : undefined),
      service.child,
    );
    process.stdout.write(`answering after ${((performance.now() - restartedAt) / 1000).toFixed(1)} s\n`);

    const first = await getJson(`${base}/projects?per_page=1&sort=name`, auth);
    const slug: string = first.body.data[0].slug;
    const detail = await getJson(`${base}/projects/${slug}`, auth);
    if (detail.status !== 200 || !detail.etag) throw new Error(`GET /projects/${slug} answered ${detail.status} without an ETag`);
    const sample = await getJson(`${base}/projects?per_page=100`, auth);
    const stateSlugs = new Set<string>(
      sample.body.data.flatMap((project: { state: { slug: string } | null }) => (project.state ? [project.state.slug] : [])),
    );
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
    process.stdout.write(
      `measuring (a) to (d), ${options.duration} s each at ${options.connections} connections, in ${options.rounds} interleaved rounds...\n`,
    );
    const results = await measureInterleaved(scenarios, options);
    // With every connection busy, latency is mostly queueing (connections / throughput); fewer connections
    // show what the service itself adds.
    const fewer = { ...scenarios[1]!, label: `(b) at ${FEW_CONNECTIONS} connections` };
    process.stdout.write(`measuring ${fewer.label} for ${options.duration} s...\n`);
    const [fewerResult] = await measureInterleaved([fewer], options, FEW_CONNECTIONS);

    // The limiter modes, each in a fresh API process on the same DATA_DIR, measured in interleaved rounds.
    await stopProcess(service.child);
    children.delete(service.child);
    const limiterResults: LimiterResult[] = [];
    const modeScenarios: Array<{ mode: LimiterMode; scenario: Scenario; pid: number | undefined; child: ChildProcess }> = [];
    for (const mode of LIMITER_MODES) {
      if (mode.id === 'redis') {
        const unreachable = await redisUnreachable(redis, () => lastRedisError);
        if (unreachable !== null) {
          const reason = `Redis at ${options.redisUrl} does not answer (${unreachable}); start one or pass --redis-url`;
          process.stdout.write(`skipping (b) with the ${mode.label}: ${reason}\n`);
          limiterResults.push({ mode, skipped: reason });
          continue;
        }
      }
      process.stdout.write(`starting an API process with the ${mode.label} (${describeEnv(mode.env(options))})...\n`);
      const modeService = await startService(dataDir, options, mode.env(options), ['--role', 'api']);
      children.add(modeService.child);
      const url = `${modeService.origin}/v1/projects/${slug}`;
      const ready = await waitFor(
        'the API process to answer',
        async () => {
          const answer = await getJson(url, auth);
          return answer.status === 200 ? answer : undefined;
        },
        modeService.child,
      );
      if (ready.rateLimited !== (mode.id !== 'off')) {
        throw new Error(`the ${mode.label} is not in effect: RateLimit-Limit is ${ready.rateLimited ? 'present' : 'missing'}`);
      }
      modeScenarios.push({
        mode,
        scenario: { label: `(b) ${mode.label}`, url, headers: auth, expectedStatus: 200 },
        pid: modeService.child.pid,
        child: modeService.child,
      });
    }
    const redisMode = modeScenarios.find(({ mode }) => mode.id === 'redis');
    const counter = redisMode ? redisCounter(redis, clientId, redisMode.pid) : null;
    process.stdout.write(
      `measuring (b) in each limiter mode, ${options.duration} s each at ${options.connections} connections, in ${options.rounds} interleaved rounds...\n`,
    );
    const measuredModes = await measureInterleaved(
      modeScenarios.map(({ scenario }) => scenario),
      options,
      options.connections,
      async () => counter?.reset(),
    );
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    for (const [index, { mode }] of modeScenarios.entries()) {
      const measured = measuredModes[index]!;
      limiterResults.push(
        mode.id === 'redis' && counter
          ? { mode, measured, commands: await counter.read(measured.responses, options.duration) }
          : { mode, measured },
      );
    }
    limiterResults.sort((a, b) => LIMITER_MODES.indexOf(a.mode) - LIMITER_MODES.indexOf(b.mode));
    for (const { child } of modeScenarios) {
      await stopProcess(child);
      children.delete(child);
    }
    const metricsResults = await measureMetricsOverhead(dataDir, options, children, slug, auth);
    report(results, fewerResult!, limiterResults, metricsResults, options);
  } finally {
    redis.disconnect();
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

/**
 * (b) against two fresh API processes on the same DATA_DIR, METRICS=on and METRICS=off, in interleaved rounds;
 * each is checked to be in the mode asked for (/metrics answers with the admin token, or is not served). Besides
 * throughput, each process's CPU time per request over the measured rounds: on a machine whose other load
 * comes and goes, the CPU a request costs moves less than the requests a second a process gets through.
 */
async function measureMetricsOverhead(
  dataDir: string,
  options: Options,
  children: Set<ChildProcess>,
  slug: string,
  auth: Record<string, string>,
): Promise<MetricsResult> {
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const scenarios: Scenario[] = [];
  const started: ChildProcess[] = [];
  for (const metrics of ['on', 'off'] as const) {
    process.stdout.write(`starting an API process with METRICS=${metrics} (embedded limiter)...\n`);
    const service = await startService(dataDir, options, { REDIS_URL: '', RATE_LIMITS: 'on', METRICS: metrics }, ['--role', 'api']);
    children.add(service.child);
    started.push(service.child);
    const url = `${service.origin}/v1/projects/${slug}`;
    await waitFor('the API process to answer', async () => ((await getJson(url, auth)).status === 200 ? true : undefined), service.child);
    const scrape = await fetch(`${service.origin}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
    await scrape.arrayBuffer();
    if ((scrape.status === 200) !== (metrics === 'on'))
      throw new Error(`METRICS=${metrics} is not in effect: /metrics answered ${scrape.status}`);
    scenarios.push({ label: `(b) METRICS=${metrics}`, url, headers: auth, expectedStatus: 200 });
  }
  process.stdout.write(
    `measuring (b) with metrics on and off, ${options.duration} s each at ${options.connections} connections, in ${options.rounds} interleaved rounds...\n`,
  );
  const cpuNow = () => started.map((child) => cpuSecondsOf(child.pid));
  let cpuAfterWarmUp: Array<number | null> = [];
  const [on, off] = (await measureInterleaved(scenarios, options, options.connections, async () => {
    cpuAfterWarmUp = cpuNow();
  })) as [Measured, Measured];
  const cpuUsed = cpuNow().map((seconds, index) =>
    seconds === null || cpuAfterWarmUp[index] == null ? null : seconds - cpuAfterWarmUp[index]!,
  );
  for (const child of started) {
    await stopProcess(child);
    children.delete(child);
  }
  const perRequest = (seconds: number | null, measured: Measured) => (seconds === null ? null : (seconds / measured.responses) * 1e6);
  return { on, off, cpuMicrosecondsPerRequest: { on: perRequest(cpuUsed[0]!, on), off: perRequest(cpuUsed[1]!, off) } };
}

interface MetricsResult {
  on: Measured;
  off: Measured;
  /** CPU time of each process over the measured rounds per response; null without /proc. */
  cpuMicrosecondsPerRequest: { on: number | null; off: number | null };
}

interface LimiterMode {
  id: 'redis' | 'embedded' | 'off';
  label: string;
  env(options: Options): { REDIS_URL: string; RATE_LIMITS: 'on' | 'off' };
}

const LIMITER_MODES: LimiterMode[] = [
  { id: 'redis', label: 'Redis limiter', env: (options) => ({ REDIS_URL: options.redisUrl, RATE_LIMITS: 'on' }) },
  { id: 'embedded', label: 'embedded limiter', env: () => ({ REDIS_URL: '', RATE_LIMITS: 'on' }) },
  { id: 'off', label: 'limits off', env: () => ({ REDIS_URL: '', RATE_LIMITS: 'off' }) },
];

const describeEnv = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([name, value]) => `${name}=${value === '' ? '(unset)' : value}`)
    .join(' ');

interface RedisCommands {
  /** Responses autocannon counted in the measured run (2xx + 3xx + 4xx). */
  requests: number;
  /** The limiter's own count of the requests it charged (its monthly counter's growth); null when not found. */
  limiterCounted: number | null;
  /** Calls per command as INFO commandstats reports them, `config|resetstat` style names. */
  calls: Map<string, number>;
  /** Other connections that ran commands during the run, and connections opened during it. */
  interference: string | null;
  /** Why there are no figures (CONFIG RESETSTAT refused, say). */
  unavailable: string | null;
}

interface LimiterResult {
  mode: LimiterMode;
  measured?: Measured;
  skipped?: string;
  commands?: RedisCommands;
}

/** null when Redis answers PING, else why not (the connection's own error, say ECONNREFUSED, when there is one). */
async function redisUnreachable(redis: Redis, connectionError: () => Error | null): Promise<string | null> {
  try {
    if (redis.status === 'wait' || redis.status === 'end') await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return connectionError()?.message || (error as Error).message || String(error);
  }
}

/** Local TCP ports of a process's sockets, from Linux's /proc; null where that cannot be read. */
function localPortsOf(pid: number | undefined): Set<number> | null {
  if (pid === undefined) return null;
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (socket) inodes.add(socket[1]!);
      } catch {
        // closed meanwhile
      }
    }
    const ports = new Set<number>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      let text: string;
      try {
        text = readFileSync(table, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(parseInt(fields[1]!.split(':').at(-1)!, 16));
      }
    }
    return ports;
  } catch {
    return null;
  }
}

/**
 * Counting the commands of one measured run: `reset` after the warm-up (CONFIG RESETSTAT), `read` after the
 * run (INFO commandstats). commandstats is server-wide, so `read` also reports any other connection that ran
 * commands meanwhile (CLIENT LIST idle times) and any connection opened meanwhile (total_connections_received).
 */
function redisCounter(redis: Redis, clientId: number, servicePid: number | undefined) {
  let quotaKey = '';
  let monthBefore: number | null = null;
  let resetAt = 0;
  let unavailable: string | null = null;
  const monthCount = async () => {
    const value = await redis.hget(quotaKey, 'month');
    return value === null ? null : Number(value);
  };
  const readCounts = async (requests: number, durationSeconds: number): Promise<RedisCommands> => {
    const info = await redis.info('commandstats');
    const elapsedSeconds = (performance.now() - resetAt) / 1000;
    const stats = await redis.info('stats');
    const ownId = Number(await redis.client('ID'));
    const clients = String(await redis.client('LIST'));
    const servicePorts = localPortsOf(servicePid);
    const monthAfter = await monthCount();
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!.toLowerCase(), Number(match[2]));
    const connectionsOpened = Number(/^total_connections_received:(\d+)/m.exec(stats)?.[1] ?? 0);
    // Busy during the run = idle for less time than the run lasted. The service's connections are told
    // apart by their local ports; without /proc, any busy connection but the limiter's is suspect.
    const busy = clients
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ({
        id: Number(/\bid=(\d+)/.exec(line)?.[1]),
        port: Number(/\baddr=\S*:(\d+)\b/.exec(line)?.[1]),
        idle: Number(/\bidle=(\d+)/.exec(line)?.[1]),
      }))
      .filter((client) => client.id !== ownId && client.idle < Math.min(durationSeconds, Math.floor(elapsedSeconds)));
    const foreign = servicePorts ? busy.filter((client) => !servicePorts.has(client.port)).length : Math.max(0, busy.length - 1);
    const problems: string[] = [];
    if (foreign > 0) problems.push(`${foreign} connection(s) of other processes ran commands during the run`);
    if (connectionsOpened > 0) problems.push(`${connectionsOpened} connection(s) opened during the run`);
    return {
      requests,
      limiterCounted: monthBefore !== null && monthAfter !== null ? monthAfter - monthBefore : null,
      calls,
      interference: problems.length > 0 ? problems.join('; ') : null,
      unavailable: null,
    };
  };
  return {
    async reset() {
      // Requests still in flight when the warm-up stopped must not land in the measured run's counts.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      // The bench client's live quota hash, whose field `month` counts the month's units.
      quotaKey = limitsKeys(clientId, 'live', new Date()).quota;
      monthBefore = await monthCount().catch(() => null);
      try {
        await redis.config('RESETSTAT');
      } catch (error) {
        unavailable = `CONFIG RESETSTAT failed (${(error as Error).message})`;
      }
      resetAt = performance.now();
    },
    async read(requests: number, durationSeconds: number): Promise<RedisCommands> {
      const failed = (why: string) => ({ requests, limiterCounted: null, calls: new Map(), interference: null, unavailable: why });
      if (unavailable !== null) return failed(unavailable);
      try {
        return await readCounts(requests, durationSeconds);
      } catch (error) {
        return failed(`reading INFO failed (${(error as Error).message})`);
      }
    },
  };
}

const sumOf = (calls: Map<string, number>, names: readonly string[]) => names.reduce((sum, name) => sum + (calls.get(name) ?? 0), 0);

/** The figures of the Redis run: per request, the limiter's round trips, the script's commands, everything else. */
function commandFigures(commands: RedisCommands) {
  const { calls, requests } = commands;
  const total = [...calls.values()].reduce((sum, value) => sum + value, 0);
  const roundTrips = sumOf(calls, LIMITER_ROUND_TRIPS);
  const inScript = sumOf(calls, SCRIPT_COMMANDS);
  const own = sumOf(calls, OWN_COMMANDS);
  const known = new Set([...LIMITER_ROUND_TRIPS, ...SCRIPT_COMMANDS, ...OWN_COMMANDS]);
  const others = [...calls].filter(([name]) => !known.has(name));
  return { total, roundTrips, inScript, own, other: total - roundTrips - inScript - own, others };
}

const perRequest = (count: number, requests: number) => (count / requests).toFixed(4);

function report(results: Measured[], fewer: Measured, limiter: LimiterResult[], metrics: MetricsResult, options: Options): void {
  const [bare, detail, notModified, list] = results as [Measured, Measured, Measured, Measured];
  const ratio = (measured: Measured) => measured.requestsPerSecond / bare.requestsPerSecond;
  const limiterMeasured = limiter.flatMap((result) => (result.measured ? [result.measured] : []));
  const width = Math.max(...[...results, ...limiterMeasured, metrics.on, metrics.off].map(({ scenario }) => scenario.label.length));
  const row = (measured: Measured, ratioText: string) =>
    `${measured.scenario.label.padEnd(width)}  ${Math.round(measured.requestsPerSecond).toLocaleString('en-US').padStart(9)}  ` +
    `${measured.p50.toFixed(1).padStart(7)}  ${measured.p99.toFixed(1).padStart(7)}  ${ratioText}\n`;
  process.stdout.write(
    `\n${'scenario'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to (a)\n`,
  );
  for (const measured of results) process.stdout.write(row(measured, ratio(measured).toFixed(2)));
  process.stdout.write(row(fewer, `${ratio(fewer).toFixed(2)} (latency context, not a target)`));

  const byMode = (id: LimiterMode['id']) => limiter.find((result) => result.mode.id === id);
  const off = byMode('off')?.measured;
  const redisResult = byMode('redis');
  process.stdout.write(
    `\nlimiter overhead on (b), each mode in its own fresh API process on the same data, ${options.connections} connections, interleaved rounds\n` +
      `${'mode'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to limits off\n`,
  );
  for (const result of limiter) {
    if (result.measured)
      process.stdout.write(row(result.measured, off ? (result.measured.requestsPerSecond / off.requestsPerSecond).toFixed(3) : 'n/a'));
    else process.stdout.write(`${`(b) ${result.mode.label}`.padEnd(width)}  skipped: ${result.skipped}\n`);
  }

  let commandsTarget: { name: string; met: boolean | null; reason?: string } = {
    name: 'Redis limiter round trips (EVALSHA + EVAL) <= 1.05 per request',
    met: null,
    reason: redisResult?.skipped ?? 'no Redis figures',
  };
  const commands = redisResult?.commands;
  if (commands) {
    if (commands.unavailable) {
      commandsTarget = { ...commandsTarget, reason: commands.unavailable };
      process.stdout.write(`\nRedis commands per request: not measured, ${commands.unavailable}\n`);
    } else {
      const figures = commandFigures(commands);
      const requests = commands.requests;
      const detailOf = (names: readonly string[]) =>
        names
          .filter((name) => commands.calls.has(name))
          .map((name) => `${name} ${perRequest(commands.calls.get(name)!, requests)}`)
          .join(', ') || 'none';
      process.stdout.write(
        `\nRedis commands during the measured run of the Redis limiter (INFO commandstats, reset after the warm-up, read ${SETTLE_MS} ms after the run)\n` +
          `  requests (autocannon's 2xx + 3xx + 4xx of the measured run):  ${requests}\n` +
          `  requests the limiter charged (its monthly counter's growth):  ${commands.limiterCounted ?? 'n/a (counter not found)'}` +
          ` (also those in flight when autocannon stopped, at most ${options.connections} per round)\n` +
          `  (i)  limiter round trips (EVALSHA + EVAL) per request:         ${perRequest(figures.roundTrips, requests)}  (${detailOf(LIMITER_ROUND_TRIPS)})` +
          `${figures.roundTrips > 0 ? `; requests per round trip: ${(requests / figures.roundTrips).toFixed(1)}` : ''}\n` +
          `  (ii) other commands the service sent per request:             ${perRequest(figures.other, requests)}` +
          `  (${figures.others.map(([name, count]) => `${name} ${count}`).join(', ') || 'none'})\n` +
          `  run inside the Lua script per request:                        ${perRequest(figures.inScript, requests)}  (${detailOf(SCRIPT_COMMANDS)})\n` +
          `  raw total per request (every command counted, incl. this bench's ${figures.own} CONFIG RESETSTAT): ${perRequest(figures.total, requests)}\n`,
      );
      if (commands.interference)
        process.stdout.write(`  WARNING: commandstats is server-wide and other traffic was seen: ${commands.interference}\n`);
      if (commands.limiterCounted !== null && commands.limiterCounted < 0.95 * requests) {
        process.stdout.write(
          '  WARNING: Redis counted fewer requests than were answered: the in-process limiter stood in for part of the run (Redis outage?)\n',
        );
      }
      commandsTarget = { name: commandsTarget.name, met: figures.roundTrips / requests <= 1.05 };
    }
  }

  const embedded = byMode('embedded')?.measured;
  const redisMeasured = redisResult?.measured;
  process.stdout.write(
    `\nRedis / off: ${redisMeasured && off ? (redisMeasured.requestsPerSecond / off.requestsPerSecond).toFixed(3) : 'n/a'}` +
      `   embedded / off: ${embedded && off ? (embedded.requestsPerSecond / off.requestsPerSecond).toFixed(3) : 'n/a'}\n`,
  );

  const metricsRatio = metrics.on.requestsPerSecond / metrics.off.requestsPerSecond;
  process.stdout.write(
    `\nmetrics overhead on (b), each setting in its own fresh API process on the same data (embedded limiter), ${options.connections} connections, interleaved rounds\n` +
      `${'setting'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to METRICS=off\n`,
  );
  process.stdout.write(row(metrics.on, metricsRatio.toFixed(3)));
  process.stdout.write(row(metrics.off, '1.000'));
  const cpu = metrics.cpuMicrosecondsPerRequest;
  if (cpu.on !== null && cpu.off !== null) {
    process.stdout.write(
      `CPU per request: METRICS=on ${cpu.on.toFixed(1)} us, off ${cpu.off.toFixed(1)} us (off / on ${(cpu.off / cpu.on).toFixed(3)}: the throughput ratio at equal CPU)\n`,
    );
  }

  const targets: Array<{ name: string; met: boolean | null; reason?: string }> = [
    { name: '(b) >= 0.5 x (a)', met: ratio(detail) >= 0.5 },
    { name: '(c) >= (b)', met: notModified.requestsPerSecond >= detail.requestsPerSecond },
    { name: '(d) >= 0.3 x (a)', met: ratio(list) >= 0.3 },
    { name: `p99 of (b) < 10 ms at ${options.connections} connections`, met: detail.p99 < 10 },
    redisMeasured && off
      ? { name: '(b) with the Redis limiter >= 0.85 x limits off', met: redisMeasured.requestsPerSecond >= 0.85 * off.requestsPerSecond }
      : { name: '(b) with the Redis limiter >= 0.85 x limits off', met: null, reason: redisResult?.skipped ?? 'not measured' },
    commandsTarget,
    { name: '(b) with METRICS=on >= 0.95 x METRICS=off', met: metricsRatio >= 0.95 },
  ];
  process.stdout.write(
    `\n${targets.map((target) => `${target.name}: ${target.met === null ? `not checked (${target.reason})` : target.met ? 'met' : 'NOT met'}`).join('\n')}\n`,
  );
  process.stdout.write(machineLine());
  if (targets.some((target) => target.met === false)) process.exitCode = 1;
}

const machineLine = () =>
  `machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
  `node ${process.version}, ${process.platform}/${process.arch}; load generator and each server in separate processes\n`;

// The media section.

interface Admin {
  /** `http://127.0.0.1:port/admin/v1` */
  base: string;
  token: string;
}

async function adminCall(
  admin: Admin,
  path: string,
  body?: { contentType: string; bytes: Buffer },
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${admin.base}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${admin.token}`, ...(body ? { 'content-type': body.contentType } : {}) },
    ...(body ? { body: body.bytes } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/** The first `count` projects that exist and are not deleted (the demo catalogue numbers them from 1). */
async function uploadTargets(admin: Admin, count: number): Promise<number[]> {
  const found: number[] = [];
  for (let id = 1; found.length < count && id <= 1000; id += 1) {
    const { status, body } = await adminCall(admin, `/projects/${id}`);
    if (status === 200 && body.data.deleted === false) found.push(id);
  }
  if (found.length < count) throw new Error(`found ${found.length} live projects to upload pictures to, not ${count}`);
  return found;
}

interface Master {
  /** The master's bytes on disk, for the bare sharp loop. */
  file: string;
  mediaId: number;
  key: string;
  bytes: number;
}

/**
 * Masters 0 to count - 1, each written to `folder` and uploaded as a new gallery picture (raw image/jpeg body),
 * one lane per project: uploads to one project would contend for its stream.
 */
async function prepareMasters(admin: Admin, projectIds: readonly number[], count: number, folder: string): Promise<Master[]> {
  mkdirSync(folder, { recursive: true });
  const make = await masterMaker();
  const masters: Master[] = [];
  let next = 0;
  const lane = async (projectId: number) => {
    while (next < count) {
      const index = next++;
      const bytes = await make(index);
      const key = createHash('sha256').update(bytes).digest('hex');
      const file = join(folder, `${key}.jpg`);
      writeFileSync(file, bytes);
      const { status, body } = await adminCall(admin, `/projects/${projectId}/gallery`, { contentType: 'image/jpeg', bytes });
      if (status !== 201) throw new Error(`uploading master ${index} answered ${status}: ${JSON.stringify(body)}`);
      const picture = (body.data.gallery as Array<{ media_id: number; image: { key: string } }>).find((entry) => entry.image.key === key);
      if (!picture) throw new Error(`master ${index} (${key}) is not in project ${projectId}'s gallery after its upload`);
      masters[index] = { file, mediaId: picture.media_id, key, bytes: bytes.length };
    }
  };
  await Promise.all(projectIds.map(lane));
  return masters;
}

/** One batch of renders: its wall time and each render's time in ms. */
interface RenderBatch {
  seconds: number;
  latencies: number[];
}

/** CPU seconds (user + system, every thread) a process has used, from Linux's /proc; null where that cannot be read. */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after `(comm)` start at field 3; utime and stime are fields 14 and 15, in USER_HZ ticks (100).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** A batch with the CPU time the process doing it used meanwhile (null without /proc). */
async function withCpu(pid: number | undefined, batch: () => Promise<RenderBatch>): Promise<RenderBatch & { cpuSeconds: number | null }> {
  const before = cpuSecondsOf(pid);
  const done = await batch();
  const after = cpuSecondsOf(pid);
  return { ...done, cpuSeconds: before === null || after === null ? null : after - before };
}

/** The bare sharp loop process (test/bench/bareSharpLoop.ts): renders one batch at a time, over stdin and stdout. */
async function startSharpLoop(
  children: Set<ChildProcess>,
): Promise<{ pid: number | undefined; render(files: string[], concurrency: number): Promise<RenderBatch> }> {
  const child = startProcess('sharp loop', ['test/bench/bareSharpLoop.ts'], process.env, 'pipe');
  children.add(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error('the sharp loop exited');
    return line.value;
  };
  if ((await nextLine()) !== 'ready') throw new Error('the sharp loop did not start');
  return {
    pid: child.pid,
    async render(files, concurrency) {
      child.stdin!.write(`${JSON.stringify({ files, concurrency })}\n`);
      return JSON.parse(await nextLine()) as RenderBatch;
    },
  };
}

/** One GET, its body read and dropped; rejects unless it is a 200 with a WebP. */
function getWebp(url: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent }, (response) => {
      response.resume();
      response.on('error', reject);
      response.on('end', () => {
        const type = response.headers['content-type'];
        if (response.statusCode === 200 && type === 'image/webp') resolve();
        else reject(new Error(`GET ${url} answered ${response.statusCode} (${type})`));
      });
    }).on('error', reject);
  });
}

/**
 * Each URL requested once, `concurrency` requests in flight over keep-alive connections, like the sharp loop's
 * renders. The connections are the batch's own: the service closes a connection idle for a few seconds (while
 * the sharp loop runs, say), and a request sent on it as it closes would fail.
 */
async function renderThroughService(urls: readonly string[], concurrency: number): Promise<RenderBatch> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    return await requestEach(urls, concurrency, agent);
  } finally {
    agent.destroy();
  }
}

async function requestEach(urls: readonly string[], concurrency: number, agent: Agent): Promise<RenderBatch> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const started = performance.now();
      await getWebp(url, agent);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: (performance.now() - started) / 1000, latencies };
}

interface RenderMeasured {
  label: string;
  rendersPerSecond: number;
  p50: number;
  p99: number;
  renders: number;
  /** CPU time of the rendering process per render, null without /proc. */
  cpuMsPerRender: number | null;
}

/** Renders over seconds of all rounds; p50 and p99 of every render of the rounds (a round has too few for its own). */
function aggregateRenders(label: string, batches: ReadonlyArray<RenderBatch & { cpuSeconds: number | null }>): RenderMeasured {
  const latencies = batches.flatMap((batch) => batch.latencies).sort((a, b) => a - b);
  const at = (quantile: number) => latencies[Math.max(0, Math.ceil(quantile * latencies.length) - 1)]!;
  const seconds = batches.reduce((total, batch) => total + batch.seconds, 0);
  const cpu = batches.every((batch) => batch.cpuSeconds !== null) ? batches.reduce((total, batch) => total + batch.cpuSeconds!, 0) : null;
  return {
    label,
    rendersPerSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    renders: latencies.length,
    cpuMsPerRender: cpu === null ? null : (cpu * 1000) / latencies.length,
  };
}

const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function fetchBytes(url: string): Promise<{ status: number; etag: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, etag: response.headers.get('etag'), bytes: Buffer.from(await response.arrayBuffer()) };
}

/** (e) and (f) on DATA_DIR (seeded here when the API sections did not run); prints their report. */
async function mediaSection(dataDir: string, options: Options, children: Set<ChildProcess>): Promise<void> {
  const sectionStarted = performance.now();
  const workDir = mkdtempSync(join(tmpdir(), 'catalogue-api-bench-media-'));
  const seconds = (since: number) => (performance.now() - since) / 1000;
  try {
    process.stdout.write(
      `\nmedia: starting the service on ${dataDir}${options.only === 'media' ? ` (seeding ${options.projects} demo projects)` : ''}...\n`,
    );
    const service = await startService(dataDir, options, { REDIS_URL: '', RATE_LIMITS: 'on' });
    children.add(service.child);
    await waitFor(
      'the service to answer /v1/health',
      async () => ((await getJson(`${service.origin}/v1/health`)).status === 200 ? true : undefined),
      service.child,
    );
    const admin: Admin = { base: `${service.origin}/admin/v1`, token: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() };

    const warmUp = options.connections;
    const perRound = Math.ceil(options.renders / MEDIA_ROUNDS);
    const count = warmUp + perRound * MEDIA_ROUNDS;
    process.stdout.write(
      `generating and uploading ${count} distinct ${MASTER_WIDTH} x ${MASTER_HEIGHT} JPEG masters ` +
        `(${warmUp} for the warm-up, ${perRound * MEDIA_ROUNDS} measured), ${UPLOAD_LANES} at a time...\n`,
    );
    const preparing = performance.now();
    const masters = await prepareMasters(admin, await uploadTargets(admin, UPLOAD_LANES), count, join(workDir, 'masters'));
    const mediaBase = `${service.origin}/v1/media`;
    // Waiting on the original (never on a derivative, which would render it): once every master is served,
    // the projector has caught up with the uploads and whatever came before them.
    let servedUpTo = 0;
    await waitFor(
      'the uploaded pictures to be served',
      async () => {
        for (; servedUpTo < masters.length; servedUpTo += 1) {
          const { mediaId, key } = masters[servedUpTo]!;
          if ((await fetch(`${mediaBase}/${mediaId}/${key}-original.jpg`, { method: 'HEAD' })).status !== 200) return undefined;
        }
        return true;
      },
      service.child,
    );
    const preparedSeconds = seconds(preparing);
    const megabytes = masters.reduce((total, master) => total + master.bytes, 0) / 1e6;
    process.stdout.write(
      `masters uploaded and served after ${preparedSeconds.toFixed(1)} s (${megabytes.toFixed(0)} MB, ${(megabytes / count).toFixed(2)} MB each)\n`,
    );

    const sharpLoop = await startSharpLoop(children);
    const staticDir = join(workDir, 'static');
    mkdirSync(staticDir);
    const bareStatic = startProcess('static', ['test/bench/bareStatic.ts', staticDir], process.env);
    children.add(bareStatic);
    const staticPort = await listeningPort(bareStatic, 'static');

    const address = ({ mediaId, key }: Master) => `${mediaBase}/${mediaId}/${key}-${MEDIA_WIDTH}.webp`;
    process.stdout.write(
      `measuring (e): ${perRound * MEDIA_ROUNDS} first renders on each side with ${options.connections} in flight, ` +
        `in ${MEDIA_ROUNDS} interleaved rounds after a warm-up of ${warmUp}...\n`,
    );
    const rendering = performance.now();
    const bareBatches: Array<RenderBatch & { cpuSeconds: number | null }> = [];
    const serviceBatches: typeof bareBatches = [];
    for (let round = 0; round <= MEDIA_ROUNDS; round += 1) {
      const batch = round === 0 ? masters.slice(0, warmUp) : masters.slice(warmUp + (round - 1) * perRound, warmUp + round * perRound);
      if (round > 0) process.stdout.write(`  round ${round} of ${MEDIA_ROUNDS}\n`);
      const files = batch.map((master) => master.file);
      const bare = await withCpu(sharpLoop.pid, () => sharpLoop.render(files, options.connections));
      const served = await withCpu(service.child.pid, () => renderThroughService(batch.map(address), options.connections));
      if (round > 0) {
        bareBatches.push(bare);
        serviceBatches.push(served);
      }
    }
    const renderSeconds = seconds(rendering);
    const label = `GET /v1/media/{id}/{key}-${MEDIA_WIDTH}.webp`;
    const renders = {
      bare: aggregateRenders('(e0) bare sharp loop, same masters', bareBatches),
      service: aggregateRenders(`(e) ${label}, first request`, serviceBatches),
    };

    // (f): a derivative the warm-up made, and the same bytes under the same name from express.static.
    const cached = masters[0]!;
    const derivative = await fetchBytes(address(cached));
    const { width } = await sharp(derivative.bytes).metadata();
    if (derivative.status !== 200 || derivative.etag !== `"${sha256Hex(derivative.bytes)}"` || width !== MEDIA_WIDTH) {
      throw new Error(`${address(cached)} answered ${derivative.status}, ETag ${derivative.etag}, a picture ${width} px wide`);
    }
    const fileName = `${cached.key}-${MEDIA_WIDTH}.webp`;
    writeFileSync(join(staticDir, fileName), derivative.bytes);
    const staticUrl = `http://127.0.0.1:${staticPort}/${fileName}`;
    if (!(await fetchBytes(staticUrl)).bytes.equals(derivative.bytes)) throw new Error('express.static does not serve the same bytes');
    const cachedScenarios: Scenario[] = [
      { label: '(f0) bare express.static, same bytes', url: staticUrl, headers: {}, expectedStatus: 200 },
      { label: `(f) ${label}, made before`, url: address(cached), headers: {}, expectedStatus: 200 },
    ];
    process.stdout.write(
      `measuring (f) (${derivative.bytes.length} bytes), ${options.duration} s each at ${options.connections} connections, in ${options.rounds} interleaved rounds...\n`,
    );
    const serving = performance.now();
    const [staticMeasured, cachedMeasured] = await measureInterleaved(cachedScenarios, options);
    mediaReport({
      renders,
      cached: { bare: staticMeasured!, service: cachedMeasured! },
      options,
      timings: { total: seconds(sectionStarted), prepared: preparedSeconds, renders: renderSeconds, cached: seconds(serving) },
    });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function mediaReport(figures: {
  renders: { bare: RenderMeasured; service: RenderMeasured };
  cached: { bare: Measured; service: Measured };
  options: Options;
  timings: { total: number; prepared: number; renders: number; cached: number };
}): void {
  const { renders, cached, options, timings } = figures;
  const renderRatio = renders.service.rendersPerSecond / renders.bare.rendersPerSecond;
  const cachedRatio = cached.service.requestsPerSecond / cached.bare.requestsPerSecond;
  const width = Math.max(
    renders.bare.label.length,
    renders.service.label.length,
    cached.bare.scenario.label.length,
    cached.service.scenario.label.length,
  );
  const row = (label: string, perSecond: string, p50: number, p99: number, ratio: string) =>
    `${label.padEnd(width)}  ${perSecond.padStart(9)}  ${p50.toFixed(1).padStart(7)}  ${p99.toFixed(1).padStart(7)}  ${ratio}\n`;
  // CPU time per render does not depend on what else the machine runs, as throughput does (a busy machine
  // shares its cores among runnable threads, and the bare loop has libuv's four to the service's two renders).
  const cpu = (measured: RenderMeasured) => (measured.cpuMsPerRender === null ? 'n/a' : measured.cpuMsPerRender.toFixed(0));
  const renderRow = (measured: RenderMeasured) =>
    row(
      measured.label,
      measured.rendersPerSecond.toFixed(1),
      measured.p50,
      measured.p99,
      `${(measured.rendersPerSecond / renders.bare.rendersPerSecond).toFixed(2).padEnd('ratio to (e0)'.length)}  ${cpu(measured)}`,
    );
  process.stdout.write(
    `\n(e) first render of the ${MEDIA_WIDTH} px WebP, ${options.connections} renders in flight on each side (latency at that depth is mostly the wait for a turn)\n` +
      `${'scenario'.padEnd(width)}  ${'renders/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to (e0)  CPU ms per render (its process, every thread)\n` +
      renderRow(renders.bare) +
      renderRow(renders.service) +
      `\n(f) the same derivative made before, ${options.connections} connections\n` +
      `${'scenario'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ratio to (f0)\n`,
  );
  for (const measured of [cached.bare, cached.service]) {
    const perSecond = Math.round(measured.requestsPerSecond).toLocaleString('en-US');
    process.stdout.write(
      row(
        measured.scenario.label,
        perSecond,
        measured.p50,
        measured.p99,
        (measured.requestsPerSecond / cached.bare.requestsPerSecond).toFixed(2),
      ),
    );
  }
  const targets = [
    { name: '(e) first renders >= 0.8 x the bare sharp loop', met: renderRatio >= 0.8 },
    { name: '(f) a derivative made before >= 0.8 x bare express.static', met: cachedRatio >= 0.8 },
  ];
  process.stdout.write(`\n${targets.map((target) => `${target.name}: ${target.met ? 'met' : 'NOT met'}`).join('\n')}\n`);
  process.stdout.write(
    `media section: ${timings.total.toFixed(0)} s (masters prepared in ${timings.prepared.toFixed(0)} s, ` +
      `(e) ${timings.renders.toFixed(0)} s, (f) ${timings.cached.toFixed(0)} s); sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}\n`,
  );
  process.stdout.write(machineLine());
  if (targets.some((target) => !target.met)) process.exitCode = 1;
}

await main();
