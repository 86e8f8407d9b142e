import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import {
  killNpmStart,
  logRecords,
  npmStart,
  NPM_START_PATIENCE_MS,
  serviceEnv,
  serviceProcessOf,
  type NpmStart,
} from '../support/npmStart.js';
import { readPdf } from '../pdf/builders.js';

/*
 * kill -9 of the worker role while it prints a brochure, with the API (and projector) and the worker as
 * separate `npm start` processes on one DATA_DIR, as an operator splits them: the request waiting for that
 * render is answered with the contract's error body (503 or 504, never a hang or a 500) within its timeout,
 * and once a worker runs again the same request is answered with a PDF.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The render deadline of both processes; the API waits for it plus its 5 s hand-off (PDF_HAND_OFF_MS). */
const RENDER_TIMEOUT_MS = 15_000;
const API_WAIT_MS = RENDER_TIMEOUT_MS + 5_000;
/** What the answer may take beyond the API's wait on a loaded machine. */
const ANSWER_SLACK_MS = 5_000;

const SHARED_ENV = {
  SEED_DEMO: 'true',
  SEED_PROJECTS: '3',
  PDF_RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS),
  // A killed worker's job goes back to the queue once its lease lapses: the shortest lease there is.
  JOB_LEASE_SECONDS: '5',
  // No outside network here: a closed loopback port fails the map tiles at once (the page shows the fallback).
  PDF_TILE_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png',
};

interface Worker {
  child: ChildProcess;
  output(): string;
  exited: Promise<unknown>;
}

/** `npm start -- --role worker`: it serves no HTTP, so it is ready when its log says so. */
function startWorker(dataDir: string): Worker {
  const child = spawn('npm', ['start', '--', '--role', 'worker'], {
    cwd: ROOT,
    env: serviceEnv(dataDir, { ...SHARED_ENV, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`[worker] ${chunk}`));
  return { child, output: () => stdout, exited: once(child, 'exit') };
}

const logged = (worker: Worker, message: string) => logRecords(worker.output()).filter((record) => record.msg === message);

/** Ends a process this spec started (npm's group, or a browser the killed worker left), by its id, if it still runs. */
function killIfRunning(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

describe('kill -9 of the PDF worker mid-render', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-pdf-kill-'));
  let api: NpmStart;
  const workers: Worker[] = [];
  const orphanedBrowsers: number[] = [];
  let key: string;
  let projectSlug: string;
  let projectName: string;

  const brochure = () =>
    request(api.origin, `/v1/projects/${projectSlug}/pdf`, {
      method: 'POST',
      token: key,
      body: { template: 'classic', language: 'en', sections: ['cover', 'overview', 'location'] },
    });

  beforeAll(async () => {
    api = await npmStart(dataDir, { ...SHARED_ENV, LOG_LEVEL: 'warn' }, ['--role', 'api,projector']);
    key = /^DEMO_API_KEY_LIVE=(.+)$/m.exec(readFileSync(join(dataDir, 'demo-api-keys'), 'utf8'))![1]!;
    const projects = await request(api.origin, '/v1/projects?per_page=1&sort=name', { token: key });
    expect(projects.status).toBe(200);
    projectSlug = projects.body.data[0].slug as string;
    projectName = projects.body.data[0].name as string;
  }, NPM_START_PATIENCE_MS + 60_000);

  afterAll(() => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) killIfRunning(-worker.child.pid!);
    if (api) killNpmStart(api);
    for (const pid of orphanedBrowsers) killIfRunning(pid);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'when the worker is killed while it renders, then the waiting POST gets 503 or 504 with an error body in time, and after a new worker starts the same request gets a PDF',
    async () => {
      const first = startWorker(dataDir);
      workers.push(first);
      await eventually('the worker to start', () => logged(first, 'starting').length > 0, { timeoutMs: NPM_START_PATIENCE_MS });

      const sentAt = performance.now();
      const waiting = brochure();
      // The browser is up and the page is being printed: that is mid-render.
      await eventually('the worker to start printing', () => logged(first, 'brochure browser started').length > 0, {
        timeoutMs: NPM_START_PATIENCE_MS,
      });
      const browserPid = logged(first, 'brochure browser started')[0]!.pid as number;
      orphanedBrowsers.push(browserPid);
      process.kill(serviceProcessOf(first.child.pid!), 'SIGKILL');
      await first.exited;
      expect(logged(first, 'brochure rendered'), 'the killed worker finished no render').toEqual([]);

      const refused = await waiting;
      const answeredAfterMs = performance.now() - sentAt;
      expect([503, 504], JSON.stringify(refused.body)).toContain(refused.status);
      expect(refused.body.error).toMatchObject({ code: expect.stringMatching(/^(RENDER_TIMEOUT|RENDERER_UNAVAILABLE)$/) });
      expect(refused.body.error.message).toEqual(expect.any(String));
      expect(refused.body.meta).toMatchObject({ request_id: expect.any(String) });
      expect(answeredAfterMs).toBeLessThan(API_WAIT_MS + ANSWER_SLACK_MS);

      const second = startWorker(dataDir);
      workers.push(second);
      await eventually('the new worker to start', () => logged(second, 'starting').length > 0, { timeoutMs: NPM_START_PATIENCE_MS });
      const answer = await brochure();
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const file = await fetch(answer.body.data.download_url as string);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/pdf');
      const pdf = await readPdf(Buffer.from(await file.arrayBuffer()));
      expect(pdf.pages).toBe(answer.body.data.pages);
      expect(pdf.text.join(' ')).toContain(projectName);
      await eventually('the new worker to log its render', () => logged(second, 'brochure rendered').length === 1);
    },
    2 * NPM_START_PATIENCE_MS + 3 * API_WAIT_MS,
  );
});
