import type { BlobStore, VariantListing } from './blobStore.js';
import { createEmbeddedBlobStore } from './embeddedBlobStore.js';
import { createGridFsBlobStore } from './gridFsBlobStore.js';

/**
 * MongoDB GridFS when a URL is configured (MONGODB_URL, database MONGODB_DB), so that replicas share files;
 * otherwise the embedded store in `<dataDir>/blobs/`.
 */
export function createBlobStore(options: { mongodbUrl?: string; mongodbDb?: string; dataDir: string }): BlobStore & VariantListing {
  if (options.mongodbUrl) {
    return createGridFsBlobStore({ url: options.mongodbUrl, ...(options.mongodbDb ? { dbName: options.mongodbDb } : {}) });
  }
  return createEmbeddedBlobStore({ dataDir: options.dataDir });
}
