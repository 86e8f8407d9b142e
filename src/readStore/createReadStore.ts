import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createEmbeddedReadStore } from './embeddedReadStore.js';
import { createMongoReadStore } from './mongoReadStore.js';
import type { ReadStore } from './readStore.js';

/**
 * MongoDB when a URL is configured (MONGODB_URL, database MONGODB_DB), otherwise the embedded store in
 * `<dataDir>/readmodels.sqlite`.
 */
export function createReadStore(options: { mongodbUrl?: string; mongodbDb?: string; dataDir: string }): ReadStore {
  if (options.mongodbUrl) {
    return createMongoReadStore({ url: options.mongodbUrl, ...(options.mongodbDb ? { dbName: options.mongodbDb } : {}) });
  }
  mkdirSync(options.dataDir, { recursive: true });
  return createEmbeddedReadStore({ file: join(options.dataDir, 'readmodels.sqlite') });
}
