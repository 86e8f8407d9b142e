// The entry of every TypeScript worker thread (see typeScriptWorker.ts): on Node 20 a worker does not apply
// the loader its process registered with `--import tsx`, so it registers tsx's itself, then loads the module.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
