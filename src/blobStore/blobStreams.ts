import { createHash } from 'node:crypto';
import { Transform, pipeline, type Readable } from 'node:stream';
import { BlobCorrupted, BlobTooLarge, SHA256_PATTERN, type ByteRange } from './blobStore.js';

/** What both adapters share: counting and hashing bytes on their way in, checking them on their way out. */

/** Hashes and counts the bytes of one put, refusing them as soon as they pass `maxBytes`. */
export class IncomingBytes {
  private readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly maxBytes: number | undefined) {}

  /** The chunk as bytes, counted and hashed; throws BlobTooLarge before taking a byte over the limit. */
  take(chunk: unknown): Uint8Array {
    const bytes = asBytes(chunk);
    if (this.maxBytes !== undefined && this.size + bytes.byteLength > this.maxBytes) throw new BlobTooLarge(this.maxBytes);
    this.size += bytes.byteLength;
    this.hash.update(bytes);
    return bytes;
  }

  sha256(): string {
    return this.hash.digest('hex');
  }
}

function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  // A Readable in string mode (setEncoding) yields text: store the text's UTF-8 bytes.
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  throw new TypeError(`a blob's source must yield bytes, not ${typeof chunk}`);
}

export const isSha256 = (value: string): boolean => SHA256_PATTERN.test(value);

export function assertSha256(value: string, what: string): void {
  if (!isSha256(value)) throw new TypeError(`${what} must be a SHA-256 in lower-case hex`);
}

/** Variant names become file names in the embedded store: letters, digits, `.`, `_` and `-`, e.g. `webp-w800-q92`. */
const VARIANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function assertVariantName(variant: string): void {
  if (!VARIANT_PATTERN.test(variant)) throw new TypeError(`variant name ${JSON.stringify(variant)} must match ${VARIANT_PATTERN.source}`);
}

/**
 * The inclusive range to stream of a blob of `size` bytes: the end is cut to the last byte (as HTTP does);
 * a range that starts past the last byte, or ends before it starts, is a RangeError (the caller answers 416
 * before opening).
 */
export function rangeWithin(range: ByteRange, size: number): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || start >= size) {
    throw new RangeError(`bytes ${start}-${end} are not within a blob of ${size} bytes`);
  }
  return { start, end: Math.min(end, size - 1) };
}

/**
 * `stored` passed through unchanged, except that when it ends its bytes must hash to `sha256` and number
 * `size`: otherwise the stream fails with BlobCorrupted instead of ending (the caller may already have sent
 * most of the bytes; failing is what tells it to cut the response short rather than finish it).
 */
export function verified(stored: Readable, sha256: string, size: number): Readable {
  const hash = createHash('sha256');
  let seen = 0;
  const checking = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      seen += chunk.byteLength;
      callback(null, chunk);
    },
    flush(callback) {
      callback(seen === size && hash.digest('hex') === sha256 ? null : new BlobCorrupted(sha256));
    },
  });
  // Errors reach the consumer through `checking`; a consumer that stops early destroys `stored` too.
  pipeline(stored, checking, () => undefined);
  return checking;
}
