import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/http.js';

/*
 * Stoplight Prism (the dev dependency @stoplight/prism-cli) as a child process on a free loopback port:
 * `prism proxy` validating every request and answer against a document while it forwards to the service, or
 * `prism mock` answering from the document alone.
 */

const PRISM = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));
/** Prism parses and dereferences the whole document before it listens: seconds, more on a loaded machine. */
const START_PATIENCE_MS = 120_000;

export interface PrismProcess {
  origin: string;
  /** Everything Prism wrote: its request log, and the stack of a crash. */
  output(): string;
  stop(): Promise<void>;
}

export type PrismMode = { mode: 'proxy'; upstream: string } | { mode: 'mock' };

/**
 * Starts Prism on `document` (a file) and resolves once it listens. In proxy mode `--errors` turns every
 * violation into an error answer (422 for a request, 500 for an answer) instead of a warning in the
 * `sl-violations` header alone.
 */
export async function startPrism(document: string, how: PrismMode): Promise<PrismProcess> {
  const port = await freePort();
  const args =
    how.mode === 'proxy'
      ? ['proxy', document, how.upstream, '--errors', '--port', String(port), '--host', '127.0.0.1']
      : ['mock', document, '--port', String(port), '--host', '127.0.0.1'];
  const child = spawn(PRISM, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: string) => (output += chunk);
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  // A failure to spawn at all is reported like an early exit, below.
  child.on('error', (error) => collect(`${error.message}\n`));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const listening = () => {
        if (!output.includes('Prism is listening on')) return;
        settle();
        resolve();
      };
      const exitedEarly = () => {
        settle();
        reject(new Error(`prism ${how.mode} exited before it listened:\n${output}`));
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`prism ${how.mode} did not listen within ${START_PATIENCE_MS} ms:\n${output}`));
      }, START_PATIENCE_MS);
      const settle = () => {
        clearTimeout(timer);
        child.stdout.off('data', listening);
        child.off('exit', exitedEarly);
        child.off('error', exitedEarly);
      };
      child.stdout.on('data', listening);
      child.on('exit', exitedEarly);
      child.on('error', exitedEarly);
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin: `http://127.0.0.1:${port}`, output: () => output, stop };
}
