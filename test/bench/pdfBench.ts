/**
 * The PDF section of `npm run bench` (api.bench.ts calls it; `--only pdf` runs it alone): brochures rendered
 * by the real renderer (Chromium through puppeteer-core) on the service as `npm start` runs it (src/main.ts,
 * every role in one process, embedded stores and the SQLite job queue in DATA_DIR), with RATE_LIMITS=off so
 * the PDF limits do not refuse the load, and the map tiles pointed at a closed loopback port (there is no
 * outside network here, and a bench must not load the OpenStreetMap servers): every location page takes the
 * coordinates fallback, at once. Each brochure is POST /v1/projects/{slug}/pdf with the demo client's live key,
 * timed from the request to its answer (queue hand-off, render, storing the PDF and its record included).
 *   (i)   cold render: COLD_SAMPLES fresh service processes, each asked for one brochure right after it
 *         answers /v1/health, so the browser's launch is part of the render (Chromium is already unpacked).
 *   (j)   warm render: in the last of those processes, WARM_SAMPLES brochures one after the other, each a
 *         fingerprint not rendered before (another design, language or set of sections). Target: p50 <= 0.25 x (i).
 *   (k)   cached reuse: brochures rendered before, asked again (no render: a fresh signed link to the stored
 *         PDF), against GET /v1/projects/{slug} with the same key, one request at a time, interleaved in
 *         CACHED_ROUNDS rounds. Target: p50 of (k) <= 3 x p50 of the GET.
 *   (l)   renders per minute at concurrency 2: THROUGHPUT_BROCHURES new fingerprints, two requests in flight
 *         (PDF_RENDER_CONCURRENCY is 2 by default), from the first request to the last answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDF_SECTIONS, PDF_TEMPLATES } from '../../src/pdf/pdfOptions.js';
import { freePort } from '../support/http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 5 * 60_000;
const STOP_TIMEOUT_MS = 30_000;
const COLD_SAMPLES = 5;
const WARM_SAMPLES = 10;
const CACHED_ROUNDS = 5;
const CACHED_PER_ROUND = 40;
const THROUGHPUT_BROCHURES = 12;
const THROUGHPUT_CONCURRENCY = 2;
/** Where the map tiles are asked for: a port fetch refuses to connect to, so every map fails at once. */
const UNREACHABLE_TILES = 'http://127.0.0.1:9/{z}/{x}/{y}.png';
const MAP_FALLBACK_LOG = 'location map not drawn: tiles unavailable';

export interface PdfBenchOptions {
  /** Demo projects of a fresh DATA_DIR's seed. */
  projects: number;
}

export interface PdfFigures {
  coldMs: number[];
  warmMs: number[];
  cachedMs: number[];
  detailMs: number[];
  throughputBrochures: number;
  throughputSeconds: number;
  /** Pages and bytes of the brochures rendered, for the report. */
  pages: number[];
  bytes: number[];
}

interface Running {
  child: ChildProcess;
  origin: string;
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, child: ChildProcess): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const result = await attempt().catch(() => undefined);
    if (result !== undefined) return result;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startService(dataDir: string, options: PdfBenchOptions, children: Set<ChildProcess>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
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
      PDF_TILE_URL: UNREACHABLE_TILES,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // LOG_LEVEL=warn: a warning is worth seeing beside the figures, but the map fallback of every render is meant.
  const forward = (chunk: Buffer) => {
    for (const line of String(chunk).split('\n')) {
      if (line !== '' && !line.includes(MAP_FALLBACK_LOG)) process.stderr.write(`[service pdf] ${line}\n`);
    }
  };
  child.stdout!.on('data', forward);
  child.stderr!.on('data', forward);
  children.add(child);
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(
    'the service to answer /v1/health',
    async () => ((await fetch(`${origin}/v1/health`)).status === 200 ? true : undefined),
    child,
  );
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

interface BrochureBody {
  template: string;
  language: string;
  sections: string[];
}

/**
 * The whole brochure: every section but the agent page, which needs an agent profile (none is asked for, so
 * it would print nothing, and asking for it or not would only make two fingerprints of one PDF).
 */
const WHOLE_BROCHURE = PDF_SECTIONS.filter((section) => section !== 'agent');

/** Brochure requests no earlier one shares a fingerprint with: every design and language, whole or less one section, over the projects. */
function* freshBrochures(slugs: readonly string[]): Generator<{ slug: string; body: BrochureBody }> {
  for (const slug of slugs) {
    for (const omitted of [null, ...WHOLE_BROCHURE]) {
      for (const template of PDF_TEMPLATES) {
        for (const language of ['en', 'ar']) {
          const sections = WHOLE_BROCHURE.filter((section) => section !== omitted);
          yield { slug, body: { template, language, sections } };
        }
      }
    }
  }
}

interface Answered {
  ms: number;
  status: number;
  body: any;
}

async function timed(url: string, key: string, init: { method?: string; body?: unknown } = {}): Promise<Answered> {
  const started = performance.now();
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  return { ms, status: response.status, body: text === '' ? null : JSON.parse(text) };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function pdfSection(dataDir: string, options: PdfBenchOptions, children: Set<ChildProcess>): Promise<PdfFigures> {
  let service = await startService(dataDir, options, children);
  const key = /^DEMO_API_KEY_LIVE=(.+)$/m.exec(readFileSync(join(dataDir, 'demo-api-keys'), 'utf8'))![1]!;
  const listed = await timed(`${service.origin}/v1/projects?per_page=50&sort=name`, key);
  if (listed.status !== 200) throw new Error(`GET /v1/projects answered ${listed.status}: ${JSON.stringify(listed.body)}`);
  const slugs = (listed.body.data as Array<{ slug: string }>).map((project) => project.slug);
  if (slugs.length < COLD_SAMPLES) throw new Error(`the PDF section needs ${COLD_SAMPLES} published projects; ${slugs.length} found`);
  const fresh = freshBrochures(slugs.slice(COLD_SAMPLES));
  const rendered: Array<{ slug: string; body: BrochureBody }> = [];
  const figures: PdfFigures = {
    coldMs: [],
    warmMs: [],
    cachedMs: [],
    detailMs: [],
    throughputBrochures: THROUGHPUT_BROCHURES,
    throughputSeconds: 0,
    pages: [],
    bytes: [],
  };

  const render = async (brochure: { slug: string; body: BrochureBody }): Promise<number> => {
    const answer = await timed(`${service.origin}/v1/projects/${brochure.slug}/pdf`, key, { method: 'POST', body: brochure.body });
    if (answer.status !== 200 || answer.body.data.cached !== false) {
      throw new Error(`POST /v1/projects/${brochure.slug}/pdf answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    rendered.push(brochure);
    figures.pages.push(answer.body.data.pages as number);
    figures.bytes.push(answer.body.data.bytes as number);
    return answer.ms;
  };

  // (i): the first process only seeded (or found) the catalogue; every sample gets a process of its own.
  for (let sample = 0; sample < COLD_SAMPLES; sample += 1) {
    await stop(service, children);
    service = await startService(dataDir, options, children);
    const ms = await render({ slug: slugs[sample]!, body: { template: 'classic', language: 'en', sections: [...WHOLE_BROCHURE] } });
    figures.coldMs.push(ms);
    process.stdout.write(`  cold render ${sample + 1} of ${COLD_SAMPLES}: ${ms.toFixed(0)} ms\n`);
  }

  // (j): the browser of the last process is up.
  for (let sample = 0; sample < WARM_SAMPLES; sample += 1) figures.warmMs.push(await render(fresh.next().value!));

  // (k): the rendered brochures again, against the project detail, alternating in rounds.
  const detailUrl = `${service.origin}/v1/projects/${slugs[0]}`;
  for (let index = 0; index < CACHED_PER_ROUND; index += 1) await timed(detailUrl, key);
  for (let round = 0; round < CACHED_ROUNDS; round += 1) {
    for (let index = 0; index < CACHED_PER_ROUND; index += 1) {
      const detail = await timed(detailUrl, key);
      if (detail.status !== 200) throw new Error(`GET ${detailUrl} answered ${detail.status}`);
      figures.detailMs.push(detail.ms);
    }
    for (let index = 0; index < CACHED_PER_ROUND; index += 1) {
      const again = rendered[index % rendered.length]!;
      const answer = await timed(`${service.origin}/v1/projects/${again.slug}/pdf`, key, { method: 'POST', body: again.body });
      if (answer.status !== 200 || answer.body.data.cached !== true) {
        throw new Error(`a rendered brochure was not reused: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      figures.cachedMs.push(answer.ms);
    }
  }

  // (l)
  const queue = Array.from({ length: THROUGHPUT_BROCHURES }, () => fresh.next().value!);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: THROUGHPUT_CONCURRENCY }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await render(next);
    }),
  );
  figures.throughputSeconds = (performance.now() - started) / 1000;

  await stop(service, children);
  return figures;
}

/** The section's lines of the bench report, and whether a target was missed. */
export function reportPdf(figures: PdfFigures): { text: string; missed: boolean } {
  const cold = median(figures.coldMs);
  const warm = median(figures.warmMs);
  const cached = median(figures.cachedMs);
  const detail = median(figures.detailMs);
  const warmRatio = warm / cold;
  const cachedRatio = cached / detail;
  const perMinute = (figures.throughputBrochures / figures.throughputSeconds) * 60;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const list = (values: readonly number[]) => values.map((value) => value.toFixed(0)).join(', ');
  return {
    text: [
      '',
      `PDF brochures (every role in one process, real Chromium renderer, map tiles unreachable: location pages take the fallback; ${median(figures.pages)} pages and ${(median(figures.bytes) / 1024).toFixed(0)} KiB at the median):`,
      `  (i) cold render, a fresh process each (browser launch included): p50 ${cold.toFixed(0)} ms  samples: ${list(figures.coldMs)} ms`,
      `  (j) warm render: p50 ${warm.toFixed(0)} ms over ${figures.warmMs.length}  ratio to (i) ${warmRatio.toFixed(2)} (target <= 0.25: ${verdict(warmRatio <= 0.25)})`,
      `  (k) cached reuse: p50 ${cached.toFixed(1)} ms  GET /v1/projects/{slug}: p50 ${detail.toFixed(1)} ms  ratio ${cachedRatio.toFixed(2)} (target <= 3: ${verdict(cachedRatio <= 3)})  (${figures.cachedMs.length} each, one at a time)`,
      `  (l) renders per minute at concurrency ${THROUGHPUT_CONCURRENCY}: ${perMinute.toFixed(1)} (${figures.throughputBrochures} brochures in ${figures.throughputSeconds.toFixed(1)} s)`,
    ].join('\n'),
    missed: warmRatio > 0.25 || cachedRatio > 3,
  };
}
