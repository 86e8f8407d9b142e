import { Worker, type WorkerOptions } from 'node:worker_threads';

const ENTRY = new URL('./typeScriptWorkerEntry.cjs', import.meta.url);

/**
 * A worker thread on a TypeScript module of this code base, which it compiles with a tsx loader of its own:
 * on Node 20 a worker cannot load a .ts module otherwise, not even under `node --import tsx` (the process's
 * loader does not apply to the thread), nor under vitest, which compiles only the modules of its own thread.
 * The thread gets none of the process's Node options: it needs none of its preloads (the tsx command's,
 * vitest's), and running them again cost it more than its own loader does.
 */
export function startTypeScriptWorker(module: URL, options: Omit<WorkerOptions, 'eval' | 'argv' | 'execArgv'> = {}): Worker {
  return new Worker(ENTRY, { ...options, argv: [module.href], execArgv: [] });
}
