import { join } from 'node:path';
import { makePrivateDirSync } from '../dataDir.js';
import { createEmbeddedReadStore } from './embedded/index.js';
import { createMongoReadStore } from './mongoReadStore.js';
import type { ReadStore } from './readStore.js';

/**
 * MongoDB when a URL is configured (MONGODB_URL, database MONGODB_DB), otherwise the embedded store in
 * `<dataDir>/readmodels.sqlite`, with lean mirrors of `leanCollections` (see EmbeddedReadStoreOptions).
 */
export function createReadStore(options: {
  mongodbUrl?: string;
  mongodbDb?: string;
  dataDir: string;
  leanCollections?: readonly string[];
}): ReadStore {
  if (options.mongodbUrl) {
    return createMongoReadStore({ url: options.mongodbUrl, ...(options.mongodbDb ? { dbName: options.mongodbDb } : {}) });
  }
  makePrivateDirSync(options.dataDir);
  return createEmbeddedReadStore({
    file: join(options.dataDir, 'readmodels.sqlite'),
    ...(options.leanCollections ? { leanCollections: options.leanCollections } : {}),
  });
}
