import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { link, mkdir, open, readFile, readdir, rename, rm, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, makePrivateDirSync } from '../dataDir.js';
import { IncomingBytes, assertSha256, assertVariantName, isSha256, rangeWithin, verified } from './blobStreams.js';
import {
  BlobCorrupted,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  type PutOptions,
  type VariantLink,
  type VariantListing,
} from './blobStore.js';

/*
 * Embedded blob store: files under `<dataDir>/blobs/`.
 *
 *   blobs/ab/<sha256>           the bytes (fan-out directory: the first two hex digits)
 *   blobs/ab/<sha256>.json      { size, contentType, storedAt }
 *   blobs/variants/ab/<source>/<variant>   the SHA-256 of the derived blob
 *   blobs/tmp/<pid>-<uuid>[.json|.link]    writes in progress
 *
 * A put streams into a temporary file (hashing and counting as it goes), fsyncs it, then publishes it with
 * link(2), which never replaces an existing name: the metadata first, then the bytes, then an fsync of the
 * directory. A blob exists once its bytes file does, so a crash at any point leaves either no blob or a whole
 * one (at worst a metadata file with no bytes, which the next put of those bytes adopts). Two puts of the same
 * bytes race harmlessly: the first metadata linked wins, and either bytes file is the same bytes.
 *
 * Temporary files carry the writing process's id: at open, those of processes that no longer run are
 * removed (another process sharing DATA_DIR may be writing its own), and so is any not written to for an
 * hour (a process id reused after a container restart, say).
 */

const FAN_OUT = /^[0-9a-f]{2}$/;
const TMP_NAME = /^(\d+)-/;
const STALE_TMP_MS = 60 * 60 * 1000;
/**
 * Metadata files and variant links kept in memory (each, most recently used first). Both are immutable once
 * written (a link is only ever replaced by one naming the same bytes), so a cached one is never wrong; the
 * bytes file is still checked on every lookup, so a blob deleted by another process is not found.
 */
const CACHED_ENTRIES = 10_000;
/**
 * A whole read of a file up to this size is one read into one buffer (a picture: a render takes it whole, and
 * fewer, larger buffers mean fewer garbage collections); larger files and ranges stream in READ_CHUNK_BYTES.
 */
const ONE_READ_MAX_BYTES = 8 * 1024 * 1024;
const READ_CHUNK_BYTES = 256 * 1024;
/** Buffers a check of a whole file reads through, allocated once and reused (one per check running at once). */
const CHECK_BUFFER_BYTES = 1024 * 1024;

interface StoredMeta {
  size: number;
  contentType: string;
  storedAt: string;
}

export interface EmbeddedBlobStoreOptions {
  /** DATA_DIR: blobs live in its `blobs/` folder. */
  dataDir: string;
}

/**
 * What the embedded store can do besides the port, because its blobs are files on this machine: name the file
 * of a blob whose bytes it has just checked, for a reader that opens files itself (libvips, in
 * src/media/imageDerivatives.ts). A 2 MB master read into a Buffer is external memory, which makes V8 collect
 * the whole heap early and often; a path keeps the bytes outside the JavaScript heap altogether.
 */
export interface VerifiedBlobFiles {
  /**
   * The path of the file holding `sha256`'s bytes, after reading them all and checking them against the
   * address; null when no such blob is stored. Rejects with BlobCorrupted when the bytes do not match. The
   * file is never rewritten, but the garbage collector may delete it later (README: Blob store), so a reader
   * that fails to open it should ask `stat` again.
   */
  verifiedFilePath(sha256: string): Promise<string | null>;
}

export function createEmbeddedBlobStore(options: EmbeddedBlobStoreOptions): BlobStore & VariantListing & VerifiedBlobFiles {
  return new EmbeddedBlobStore(join(options.dataDir, 'blobs'));
}

class EmbeddedBlobStore implements BlobStore, VariantListing, VerifiedBlobFiles {
  private readonly tmpDir: string;
  private readonly variantsDir: string;
  private closed = false;
  /** By SHA-256: the metadata, and the bytes file's identity when it was read (a re-put makes a new file). */
  private readonly metas = new RecentlyUsed<string, { meta: StoredMeta; ino: number; ctimeMs: number }>(CACHED_ENTRIES);
  /** By `<source>/<variant>`: the derived blob's SHA-256. */
  private readonly links = new RecentlyUsed<string, string>(CACHED_ENTRIES);
  /** Buffers of CHECK_BUFFER_BYTES not in use by a running check. */
  private readonly checkBuffers: Buffer[] = [];

  constructor(private readonly root: string) {
    this.tmpDir = join(root, 'tmp');
    this.variantsDir = join(root, 'variants');
    makePrivateDirSync(this.tmpDir);
    makePrivateDirSync(this.variantsDir);
    removeStaleTemporaryFiles(this.tmpDir);
  }

  async put(source: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo> {
    this.assertOpen();
    const incoming = new IncomingBytes(options.maxBytes);
    const tmpData = this.tmpPath('');
    const tmpMeta = this.tmpPath('.json');
    try {
      const file = await open(tmpData, 'wx', PRIVATE_FILE_MODE);
      try {
        // Leaving the loop early (too large, a failed write) ends the source: a Readable is destroyed.
        for await (const chunk of source) await writeAll(file, incoming.take(chunk));
        await file.sync();
      } finally {
        await file.close();
      }
      const sha256 = incoming.sha256();
      const existing = await this.stat(sha256);
      if (existing) return existing;

      const dir = this.fanOutDir(sha256);
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const meta: StoredMeta = { size: incoming.size, contentType: options.contentType, storedAt: new Date().toISOString() };
      await writeDurably(tmpMeta, JSON.stringify(meta));
      await linkUnlessThere(tmpMeta, this.metaPath(sha256));
      await linkUnlessThere(tmpData, this.dataPath(sha256));
      await syncDir(dir);
      // The metadata linked first, by this put or another (or an interrupted one), describes these bytes.
      const stored = await this.stat(sha256);
      if (!stored) throw new Error(`blob ${sha256} vanished while it was being stored`);
      return stored;
    } finally {
      await Promise.all([removeIfThere(tmpData), removeIfThere(tmpMeta)]);
    }
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    this.assertOpen();
    if (!isSha256(sha256)) return null;
    // The bytes first: a blob exists once its bytes file does, and its metadata was published before it.
    const data = await statIfThere(this.dataPath(sha256));
    if (!data) {
      this.metas.delete(sha256);
      return null;
    }
    let cached = this.metas.get(sha256);
    if (!cached || cached.ino !== data.ino || cached.ctimeMs !== data.ctimeMs) {
      const meta = await readMeta(this.metaPath(sha256));
      if (!meta) return null;
      cached = { meta, ino: data.ino, ctimeMs: data.ctimeMs };
      this.metas.set(sha256, cached);
    }
    const { meta } = cached;
    return { sha256, size: meta.size, contentType: meta.contentType, storedAt: new Date(meta.storedAt) };
  }

  async open(sha256: string, range?: ByteRange): Promise<Readable | null> {
    this.assertOpen();
    if (!isSha256(sha256)) return null;
    let file: FileHandle;
    try {
      // Opened before it is read, so that a delete meanwhile cannot cut the stream short.
      file = await open(this.dataPath(sha256), 'r');
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    try {
      const { size } = await file.stat();
      if (range) return file.createReadStream({ ...rangeWithin(range, size), highWaterMark: READ_CHUNK_BYTES });
      // Up to the size just read: the last read is the last chunk, with no read of nothing to find the end.
      if (size === 0) return verified(file.createReadStream(), sha256, size);
      const highWaterMark = size <= ONE_READ_MAX_BYTES ? size : READ_CHUNK_BYTES;
      return verified(file.createReadStream({ start: 0, end: size - 1, highWaterMark }), sha256, size);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  async verifiedFilePath(sha256: string): Promise<string | null> {
    this.assertOpen();
    if (!isSha256(sha256)) return null;
    const path = this.dataPath(sha256);
    let file: FileHandle;
    try {
      file = await open(path, 'r');
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    // Outside V8's heap and pool, and reused: checking a file allocates nothing per check.
    const buffer = this.checkBuffers.pop() ?? Buffer.allocUnsafeSlow(CHECK_BUFFER_BYTES);
    try {
      const hash = createHash('sha256');
      let bytesRead: number;
      do {
        ({ bytesRead } = await file.read(buffer, 0, buffer.byteLength, null));
        hash.update(buffer.subarray(0, bytesRead));
      } while (bytesRead > 0);
      if (hash.digest('hex') !== sha256) throw new BlobCorrupted(sha256);
      return path;
    } finally {
      this.checkBuffers.push(buffer);
      await file.close();
    }
  }

  async linkVariant(source: string, variant: string, derived: string): Promise<void> {
    this.assertOpen();
    assertSha256(source, 'source');
    assertSha256(derived, 'derived');
    assertVariantName(variant);
    for (const sha256 of [source, derived]) {
      if (!(await this.stat(sha256))) throw new Error(`cannot link variant ${variant}: blob ${sha256} is not stored`);
    }
    const dir = this.variantDir(source);
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // Not fsynced: a link is a cache entry over two durable blobs. One lost or torn by a crash reads as no
    // variant (findVariant's stat of a non-address is null), and the next request derives it again.
    const tmpLink = this.tmpPath('.link');
    try {
      await writeFile(tmpLink, derived, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      await rename(tmpLink, join(dir, variant));
    } finally {
      await removeIfThere(tmpLink);
    }
    this.links.set(`${source}/${variant}`, derived);
  }

  async findVariant(source: string, variant: string): Promise<BlobInfo | null> {
    this.assertOpen();
    if (!isSha256(source)) return null;
    assertVariantName(variant);
    const key = `${source}/${variant}`;
    let derived = this.links.get(key);
    if (derived === undefined) {
      try {
        derived = await readFile(join(this.variantDir(source), variant), 'utf8');
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      this.links.set(key, derived);
    }
    return this.stat(derived);
  }

  async listVariants(source: string): Promise<VariantLink[]> {
    this.assertOpen();
    if (!isSha256(source)) return [];
    const dir = this.variantDir(source);
    const links: VariantLink[] = [];
    for (const variant of await readdirIfThere(dir)) {
      try {
        links.push({ variant, derived: await readFile(join(dir, variant), 'utf8') });
      } catch (error) {
        // Unlinked by a delete of the source meanwhile.
        if (!isNotFound(error)) throw error;
      }
    }
    return links;
  }

  async *list(): AsyncIterable<BlobInfo> {
    this.assertOpen();
    for (const dir of await readdir(this.root)) {
      if (!FAN_OUT.test(dir)) continue;
      for (const name of await readdirIfThere(join(this.root, dir))) {
        if (!isSha256(name)) continue;
        const info = await this.stat(name);
        if (info) yield info;
      }
    }
  }

  async delete(sha256: string): Promise<boolean> {
    this.assertOpen();
    if (!isSha256(sha256)) return false;
    // The bytes first: from then on the blob is gone, whatever else a crash leaves behind.
    const existed = await removeIfThere(this.dataPath(sha256));
    this.metas.delete(sha256);
    await removeIfThere(this.metaPath(sha256));
    await rm(this.variantDir(sha256), { recursive: true, force: true });
    this.links.deleteWhere((key) => key.startsWith(`${sha256}/`));
    if (existed) await syncDir(this.fanOutDir(sha256));
    return existed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the blob store is closed');
  }

  private fanOutDir(sha256: string): string {
    return join(this.root, sha256.slice(0, 2));
  }

  private dataPath(sha256: string): string {
    return join(this.fanOutDir(sha256), sha256);
  }

  private metaPath(sha256: string): string {
    return join(this.fanOutDir(sha256), `${sha256}.json`);
  }

  private variantDir(source: string): string {
    return join(this.variantsDir, source.slice(0, 2), source);
  }

  private tmpPath(suffix: string): string {
    return join(this.tmpDir, `${process.pid}-${randomUUID()}${suffix}`);
  }
}

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.byteLength - offset);
    offset += bytesWritten;
  }
}

async function writeDurably(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Publishes `tmp` under `target` unless something is there already (link(2) never replaces). */
async function linkUnlessThere(tmp: string, target: string): Promise<void> {
  try {
    await link(tmp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Makes the names created or removed in `dir` durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readMeta(path: string): Promise<StoredMeta | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as StoredMeta;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

async function statIfThere(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** A map of at most `capacity` entries that forgets the least recently used first. */
class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting makes it the most recent.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  deleteWhere(test: (key: K) => boolean): void {
    for (const key of this.entries.keys()) if (test(key)) this.entries.delete(key);
  }
}

async function removeIfThere(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function readdirIfThere(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

const isNotFound = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

function removeStaleTemporaryFiles(tmpDir: string): void {
  const now = Date.now();
  for (const name of readdirSync(tmpDir)) {
    const path = join(tmpDir, name);
    const pid = TMP_NAME.exec(name)?.[1];
    try {
      const stale = pid === undefined || !isRunning(Number(pid)) || now - statSync(path).mtimeMs > STALE_TMP_MS;
      if (stale) unlinkSync(path);
    } catch (error) {
      // Published or removed by its own process meanwhile.
      if (!isNotFound(error)) throw error;
    }
  }
}

function isRunning(pid: number): boolean {
  // 0 and below would signal a process group, not a process.
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
