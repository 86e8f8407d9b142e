import type { Readable } from 'node:stream';

/**
 * Blob store port: content-addressed bytes (the address is the SHA-256 of the bytes, lower-case hex), for
 * pictures and their derived widths, documents, videos and rendered PDFs. Adapters: embedded (files under
 * DATA_DIR/blobs/, the default) and MongoDB GridFS (MONGODB_URL), so that replicas share files without a
 * shared disk. Both pass test/blobStore/blobStoreContract.ts.
 *
 * Bytes stream in and out; no adapter holds a whole file in memory. A blob becomes visible only once all of
 * its bytes are durable, so a crash mid-write never leaves a half file behind an address.
 *
 * Deletion is for the garbage collector only (README: Blob store): nothing on a request path deletes, and a
 * blob is collected only when no event names it, so no read model can name a missing blob.
 */
export interface BlobStore {
  /**
   * Streams `source` in and stores it under its SHA-256. Storing bytes that are already stored keeps the
   * first copy and answers its info. Over `maxBytes` the write stops at once, nothing is kept and the
   * promise rejects with BlobTooLarge.
   */
  put(source: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo>;
  /** What is stored under `sha256`, or null. */
  stat(sha256: string): Promise<BlobInfo | null>;
  /**
   * The stored bytes, or null when there is no such blob. A whole read checks the bytes against the
   * address: on a mismatch the stream fails with BlobCorrupted instead of ending cleanly. A range
   * (inclusive offsets, as in HTTP) is streamed as stored.
   */
  open(sha256: string, range?: ByteRange): Promise<Readable | null>;
  /**
   * Records that `derived` (a stored blob) is `variant` of `source`: e.g. its 800-pixel WebP. Recording the
   * same variant again replaces the link (every replica derives the same bytes, so either is right).
   */
  linkVariant(source: string, variant: string, derived: string): Promise<void>;
  /** The blob recorded as `variant` of `source`, or null when none is recorded or it is gone. */
  findVariant(source: string, variant: string): Promise<BlobInfo | null>;
  /** Every stored blob, in no particular order (for the garbage collector). */
  list(): AsyncIterable<BlobInfo>;
  /** Deletes a blob and every variant link from it (garbage collector only). False when it was not there. */
  delete(sha256: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PutOptions {
  /** Stored with the bytes and served as Content-Type; the caller has sniffed the bytes. */
  contentType: string;
  maxBytes?: number;
}

export interface BlobInfo {
  sha256: string;
  size: number;
  contentType: string;
  /** When these bytes were first stored (Last-Modified of what is served from them). */
  storedAt: Date;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;

export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than ${maxBytes} bytes`);
  }
}

export class BlobCorrupted extends Error {
  constructor(readonly sha256: string) {
    super(`stored bytes of blob ${sha256} do not match their checksum`);
  }
}

/**
 * What both adapters can do besides the port: name the variant links recorded from one blob. The garbage
 * collector needs it to keep the variants of blobs still in use (no event names a derived width).
 */
export interface VariantListing {
  listVariants(source: string): Promise<VariantLink[]>;
}

export interface VariantLink {
  variant: string;
  /** The SHA-256 of the derived blob (which may since have been deleted). */
  derived: string;
}
