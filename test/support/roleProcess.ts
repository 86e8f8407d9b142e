import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { eventually, GiveUp } from './eventually.js';
import { logRecords, NPM_START_PATIENCE_MS, serviceEnv, serviceProcessOf } from './npmStart.js';

/*
 * `npm start -- --role <roles>` for the roles that serve no HTTP (projector, worker), as an operator runs them
 * beside `--role api` processes on one DATA_DIR. Such a process has no health check to wait on: it is
 * started when its log says so. Each start is its own process group, ended with killRoleProcess.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RoleProcess {
  /** npm itself; the service runs as its child (see servicePid). */
  child: ChildProcess;
  /** Everything written to stdout so far: npm's banner, then the service's JSON log lines. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The service's own process, which a kill -9 must reach (npm does not relay SIGKILL). */
  servicePid(): number;
}

export interface RoleProcessOptions {
  /** Variables on top of the caller's environment (see serviceEnv); LOG_LEVEL must let `startedMessage` through. */
  env: Record<string, string>;
  /** The log message (`msg`) that says the role runs, e.g. `projector started`. */
  startedMessage: string;
  /** Prefix of the lines its stderr is echoed with. */
  label: string;
}

/** Starts `npm start -- --role <roles>` on `dataDir` and waits until its log has `startedMessage`. */
export async function startRoleProcess(dataDir: string, roles: string, options: RoleProcessOptions): Promise<RoleProcess> {
  const child = spawn('npm', ['start', '--', '--role', roles], {
    cwd: ROOT,
    env: serviceEnv(dataDir, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`[${options.label}] ${chunk}`));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const started: RoleProcess = { child, output: () => stdout, exited, servicePid: () => serviceProcessOf(child.pid!) };
  try {
    await eventually(
      `the ${options.label} process to log "${options.startedMessage}"`,
      () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new GiveUp(`npm start exited before it started:\n${stdout}`);
        return logged(started, options.startedMessage).length > 0;
      },
      { timeoutMs: NPM_START_PATIENCE_MS },
    );
  } catch (error) {
    killRoleProcess(started);
    throw error;
  }
  return started;
}

/** The JSON log records with this message, in order. */
export function logged(started: RoleProcess, message: string): Array<Record<string, unknown>> {
  return logRecords(started.output()).filter((record) => record.msg === message);
}

/** Kills npm and the service it started (one process group) unless it has exited already. */
export function killRoleProcess(started: RoleProcess): void {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch (error) {
    // The group emptied meanwhile.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
