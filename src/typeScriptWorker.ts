import { Worker, type WorkerOptions } from 'node:worker_threads';

const ENTRY = new URL('./typeScriptWorkerEntry.mjs', import.meta.url);

/**
 * A worker thread on a TypeScript module of this code base, with its own tsx loader: on Node 20 a worker
 * cannot load a .ts module, not even under `node --import tsx` (the process's loader does not apply to the
 * thread), nor under vitest, which compiles only the modules of its own thread.
 */
export function startTypeScriptWorker(module: URL, options: Omit<WorkerOptions, 'eval' | 'argv'> = {}): Worker {
  return new Worker(ENTRY, { ...options, argv: [module.href] });
}
