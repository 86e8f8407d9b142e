// The entry of every TypeScript worker thread (see typeScriptWorker.ts): registers tsx's CommonJS loader in
// this thread and runs the module given as its argument. The CommonJS loader works within the thread (the
// ESM one starts a hooks thread of its own first) and keeps compiled modules in tsx's cache across runs
// (tsx.require compiles anew on every call): either took the thread twice as long to start.
const { fileURLToPath } = require('node:url');
const { register } = require('tsx/cjs/api');

register();
require(fileURLToPath(process.argv[2]));
