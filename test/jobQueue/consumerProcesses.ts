import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually, GiveUp } from '../support/eventually.js';
import type { ConsumerSettings } from './consumerProcess.js';

const consumerScript = fileURLToPath(new URL('./consumerProcess.ts', import.meta.url));

export interface ConsumerProcess {
  child: ChildProcess;
  /** Every line it printed so far. */
  lines: string[];
  exited: Promise<NodeJS.Signals | number | null>;
  hasExited: () => boolean;
  /** Waits until it printed `line`; gives up if it exits first. */
  printed(line: string, timeoutMs?: number): Promise<void>;
  kill(): void;
}

/** Starts test/jobQueue/consumerProcess.ts under `node --import tsx` with these settings. */
export function startConsumerProcess(settings: ConsumerSettings): ConsumerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', consumerScript], {
    env: { ...process.env, CONSUMER_SETTINGS: JSON.stringify(settings) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  let exitedYet = false;
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      exitedYet = true;
      resolve(signal ?? code);
    }),
  );
  return {
    child,
    lines,
    exited,
    hasExited: () => exitedYet,
    printed: (line, timeoutMs = 20_000) =>
      eventually(
        `the consumer process to print "${line}"`,
        () => {
          if (lines.includes(line)) return true;
          if (exitedYet) throw new GiveUp(`it exited after printing ${JSON.stringify(lines)}`);
          return false;
        },
        { timeoutMs },
      ).then(() => undefined),
    kill: () => {
      if (!exitedYet) child.kill('SIGKILL');
    },
  };
}
