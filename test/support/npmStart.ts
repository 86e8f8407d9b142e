import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { eventually, GiveUp } from './eventually.js';
import { freePort, request } from './http.js';
import { serviceListensOn } from './recordedResponses.js';

/*
 * The service exactly as the README starts it: `npm start` in the repository, configured by the environment,
 * for end-to-end specs (test/e2e/, test/http/gracefulStop.spec.ts). Each start is its own process group, so
 * that a failed test can kill npm and the service together with killNpmStart.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How long anything such a spec waits for may take on a loaded 2-core machine (a start compiles the sources). */
export const NPM_START_PATIENCE_MS = 120_000;

/** Variables of the caller's environment that would take the service off its embedded stores and limiter. */
const FOREIGN_VARIABLES = ['EVENTSTORE_URL', 'MONGODB_URL', 'REDIS_URL', 'PUBLIC_BASE_URL', 'LINK_SIGNING_SECRET', 'RATE_LIMITS'];

/** The caller's environment without FOREIGN_VARIABLES, with `dataDir` and `env` on top. */
export function serviceEnv(dataDir: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const variable of FOREIGN_VARIABLES) delete childEnv[variable];
  return Object.assign(childEnv, { DATA_DIR: dataDir, npm_config_update_notifier: 'false' }, env);
}

export interface NpmStart {
  /** npm itself: signals sent to it are relayed to the service (see README: Stopping). */
  child: ChildProcess;
  origin: string;
  /** Everything written to stdout so far: npm's banner, then the service's JSON log lines. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * The service's own process: npm runs the script through `sh -c "exec node ..."`, so the shell npm spawned
   * has become node. A signal to this pid reaches the service without npm relaying it (SIGKILL is not relayed).
   */
  servicePid(): number;
}

/**
 * Starts `npm start` on `dataDir` (HOST 127.0.0.1, a free PORT; `env` adds or overrides variables; `args` go
 * to the service, e.g. `--role api,projector`) and waits until /v1/health answers 200.
 */
export async function npmStart(dataDir: string, env: Record<string, string> = {}, args: readonly string[] = []): Promise<NpmStart> {
  const port = await freePort();
  const childEnv = serviceEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', ...env });
  const child = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`[npm start] ${chunk}`));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const origin = `http://127.0.0.1:${port}`;
  // Its answers are checked against the OpenAPI documents (recordedResponses.ts) while it runs.
  void exited.then(serviceListensOn(origin));
  await eventually(
    'the service to answer /v1/health',
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new GiveUp(`npm start exited before listening:\n${stdout}`);
      return (await request(origin, '/v1/health')).status === 200;
    },
    { timeoutMs: NPM_START_PATIENCE_MS },
  );
  return { child, origin, output: () => stdout, exited, servicePid: () => serviceProcessOf(child.pid!) };
}

/** Runs `npm run <script> -- <args>` on `dataDir` to its end: its exit code and what it wrote. */
export async function npmRun(
  dataDir: string,
  script: string,
  args: readonly string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: ROOT,
    env: serviceEnv(dataDir, {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Kills npm and the service it started (one process group, see npmStart) unless it has exited already. */
export function killNpmStart(started: NpmStart): void {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch (error) {
    // The group emptied meanwhile.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function logRecords(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The child of `npmPid` that runs src/main.ts, found through /proc (Linux). */
export function serviceProcessOf(npmPid: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let commandLine: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      // Exited while the list was read.
      continue;
    }
    // The command name (2nd field) is in parentheses and may hold spaces: the parent pid is the 2nd field after it.
    const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parentPid === npmPid && commandLine.split('\0').includes('src/main.ts')) return Number(entry);
  }
  throw new Error(`npm (pid ${npmPid}) has no child process running src/main.ts`);
}
