import sharp from 'sharp';
import { SHA256_PATTERN, type BlobStore } from '../blobStore/blobStore.js';
import type { StoredFileFacts, StoredFiles } from '../catalogue/storedFiles.js';

/** Facts kept in memory; a blob's bytes never change under its key, so an entry never goes stale. */
const CACHED_FACTS = 10_000;

export interface BlobStoredFiles extends StoredFiles {
  /** Facts an upload has just read from the file it stored, so that the command's check need not read it again. */
  remember(key: string, facts: StoredFileFacts): void;
}

/**
 * StoredFiles over the blob store: size and content type as stored, and for a picture its size in pixels as
 * displayed (after the EXIF orientation), read from the stored bytes with sharp. A blob sharp cannot read
 * has no pixel size, so a ref giving one does not match it.
 */
export function blobStoredFiles(blobStore: BlobStore): BlobStoredFiles {
  const cache = new Map<string, StoredFileFacts>();
  const remember = (key: string, facts: StoredFileFacts) => {
    cache.delete(key);
    cache.set(key, facts);
    if (cache.size > CACHED_FACTS) cache.delete(cache.keys().next().value!);
  };

  const pixelSize = async (key: string): Promise<{ width: number; height: number } | null> => {
    const bytes = await blobStore.open(key);
    if (!bytes) return null;
    const reader = sharp();
    bytes.on('error', (error) => reader.destroy(error));
    try {
      const { autoOrient } = await bytes.pipe(reader).metadata();
      return autoOrient;
    } catch {
      return null;
    } finally {
      bytes.destroy();
    }
  };

  return {
    remember,
    async describe(key) {
      const cached = cache.get(key);
      if (cached) return cached;
      if (!SHA256_PATTERN.test(key)) return null;
      const info = await blobStore.stat(key);
      if (!info) return null;
      const pixels = info.contentType.startsWith('image/') ? await pixelSize(key) : null;
      const facts = { content_type: info.contentType, size_bytes: info.size, width: pixels?.width ?? null, height: pixels?.height ?? null };
      remember(key, facts);
      return facts;
    },
  };
}
