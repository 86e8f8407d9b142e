import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { GridFSBucket, MongoClient, MongoServerError, type Collection, type GridFSBucketWriteStream, type GridFSFile } from 'mongodb';
import { IncomingBytes, assertSha256, assertVariantName, isSha256, rangeWithin, verified } from './blobStreams.js';
import type { BlobInfo, BlobStore, ByteRange, PutOptions, VariantLink, VariantListing } from './blobStore.js';

/*
 * MongoDB GridFS blob store: bucket `blobs` (collections `blobs.files` and `blobs.chunks`), so that replicas
 * share files without a shared disk. A file's `filename` is its SHA-256 and names one file at most (a unique
 * index), `metadata.contentType` its type and `uploadDate` when it was stored. Variant links live in
 * `blobs.variants`, one document per (source, variant).
 *
 * A put uploads under a temporary name (`tmp-<uuid>`, hashing and counting as it goes) and, once GridFS has
 * written the file document after the last chunk, renames it to its SHA-256. GridFS writes the file document
 * last, so an interrupted upload is never a file; a rename refused by the unique index means the same bytes
 * were stored meanwhile, and the upload is dropped. Temporarily named files older than an hour (a process
 * that died between upload and rename) are removed when a store is first used.
 */

const BUCKET = 'blobs';
const VARIANTS = 'blobs.variants';
const TMP_PREFIX = 'tmp-';
const STALE_TMP_MS = 60 * 60 * 1000;
const DUPLICATE_KEY = 11000;
const SHA256_FILENAME = /^[0-9a-f]{64}$/;

interface VariantDoc {
  /** `${source}/${variant}` */
  _id: string;
  source: string;
  variant: string;
  derived: string;
}

export interface GridFsBlobStoreOptions {
  url: string;
  /** Defaults to the database named in the URL (the driver's default otherwise). */
  dbName?: string;
}

export function createGridFsBlobStore(options: GridFsBlobStoreOptions): BlobStore & VariantListing {
  return new GridFsBlobStore(new MongoClient(options.url), options.dbName);
}

class GridFsBlobStore implements BlobStore, VariantListing {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<GridFSFile>;
  private readonly chunks: Collection;
  private readonly variants: Collection<VariantDoc>;
  private preparing: Promise<void> | undefined;

  constructor(
    private readonly client: MongoClient,
    dbName: string | undefined,
  ) {
    const db = client.db(dbName);
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET });
    this.files = db.collection<GridFSFile>(`${BUCKET}.files`);
    this.chunks = db.collection(`${BUCKET}.chunks`);
    this.variants = db.collection<VariantDoc>(VARIANTS);
  }

  async put(source: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo> {
    await this.prepared();
    const incoming = new IncomingBytes(options.maxBytes);
    const upload = this.bucket.openUploadStream(`${TMP_PREFIX}${randomUUID()}`, { metadata: { contentType: options.contentType } });
    // Every failure reaches a write's callback or `finished`; unheard, the 'error' event would crash the process.
    upload.on('error', () => undefined);
    try {
      // Leaving the loop early (too large, a failed write) ends the source: a Readable is destroyed.
      for await (const chunk of source) await writeTo(upload, incoming.take(chunk));
      upload.end();
      await finished(upload);
    } catch (error) {
      await this.dropUpload(upload);
      throw error;
    }

    const sha256 = incoming.sha256();
    try {
      await this.bucket.rename(upload.id, sha256);
    } catch (error) {
      await this.bucket.delete(upload.id);
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    const stored = await this.stat(sha256);
    if (!stored) throw new Error(`blob ${sha256} vanished while it was being stored`);
    return stored;
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    const file = await this.fileOf(sha256);
    return file && infoOf(file);
  }

  async open(sha256: string, range?: ByteRange): Promise<Readable | null> {
    const file = await this.fileOf(sha256);
    if (!file) return null;
    if (range) {
      const { start, end } = rangeWithin(range, file.length);
      return this.bucket.openDownloadStream(file._id, { start, end: end + 1 });
    }
    return verified(this.bucket.openDownloadStream(file._id), sha256, file.length);
  }

  async linkVariant(source: string, variant: string, derived: string): Promise<void> {
    assertSha256(source, 'source');
    assertSha256(derived, 'derived');
    assertVariantName(variant);
    await this.prepared();
    for (const sha256 of [source, derived]) {
      if (!(await this.stat(sha256))) throw new Error(`cannot link variant ${variant}: blob ${sha256} is not stored`);
    }
    const _id = `${source}/${variant}`;
    await this.variants.replaceOne({ _id }, { source, variant, derived }, { upsert: true });
  }

  async findVariant(source: string, variant: string): Promise<BlobInfo | null> {
    if (!isSha256(source)) return null;
    assertVariantName(variant);
    const link = await this.variants.findOne({ _id: `${source}/${variant}` });
    return link && this.stat(link.derived);
  }

  async listVariants(source: string): Promise<VariantLink[]> {
    if (!isSha256(source)) return [];
    const links = await this.variants.find({ source }, { projection: { _id: 0, variant: 1, derived: 1 } }).toArray();
    return links.map(({ variant, derived }) => ({ variant, derived }));
  }

  async *list(): AsyncIterable<BlobInfo> {
    for await (const file of this.files.find({ filename: { $regex: SHA256_FILENAME } })) yield infoOf(file);
  }

  async delete(sha256: string): Promise<boolean> {
    if (!isSha256(sha256)) return false;
    const file = await this.fileOf(sha256);
    if (!file) return false;
    await this.bucket.delete(file._id);
    await this.variants.deleteMany({ source: sha256 });
    return true;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async fileOf(sha256: string): Promise<GridFSFile | null> {
    if (!isSha256(sha256)) return null;
    return this.files.findOne({ filename: sha256 });
  }

  /** Removes what an upload wrote so far (its chunks, and its file document if GridFS got that far). */
  private async dropUpload(upload: GridFSBucketWriteStream): Promise<void> {
    // Refuses further writes (and the last chunk); throws when the upload had already ended.
    await upload.abort().catch(() => undefined);
    upload.destroy();
    await this.files.deleteOne({ _id: upload.id });
    await this.chunks.deleteMany({ files_id: upload.id });
  }

  /** Indexes, and the sweep of interrupted puts: once per store (again after a failure). */
  private prepared(): Promise<void> {
    this.preparing ??= this.prepare().catch((error: unknown) => {
      this.preparing = undefined;
      throw error;
    });
    return this.preparing;
  }

  private async prepare(): Promise<void> {
    await this.files.createIndex({ filename: 1 }, { unique: true, name: 'filename_unique' });
    await this.variants.createIndex({ source: 1 }, { name: 'source_1' });
    const stale = this.files.find(
      { filename: { $regex: `^${TMP_PREFIX}` }, uploadDate: { $lt: new Date(Date.now() - STALE_TMP_MS) } },
      { projection: { _id: 1 } },
    );
    for await (const { _id } of stale) {
      await this.bucket.delete(_id).catch(() => undefined);
    }
  }
}

function infoOf(file: GridFSFile): BlobInfo {
  const contentType: unknown = file.metadata?.contentType;
  return {
    sha256: file.filename,
    size: file.length,
    contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream',
    storedAt: file.uploadDate,
  };
}

function writeTo(upload: GridFSBucketWriteStream, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    upload.write(bytes, (error) => (error ? reject(error) : resolve()));
  });
}
