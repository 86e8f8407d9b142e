import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobInfo, BlobStore } from '../blobStore/blobStore.js';

/** The widths of the image addresses (spec, Image addresses); the plain `.webp` address is the widest. */
export const IMAGE_WIDTHS = [400, 800, 1600, 2560] as const;
export type ImageWidth = (typeof IMAGE_WIDTHS)[number];
export const DEFAULT_IMAGE_WIDTH: ImageWidth = 2560;
export const WEBP_QUALITY = 92;

export const isImageWidth = (width: number): width is ImageWidth => (IMAGE_WIDTHS as readonly number[]).includes(width);

/** The name a derived width is linked under in the blob store; the encoding settings are part of it. */
export const derivativeVariant = (width: ImageWidth): string => `webp-w${width}-q${WEBP_QUALITY}`;

/** The source blob could not be turned into a picture (not an image the decoder reads, or its bytes are corrupt). */
export class SourceUnreadable extends Error {
  constructor(
    readonly source: string,
    options: { cause: unknown },
  ) {
    super(`blob ${source} could not be rendered`, options);
    this.name = 'SourceUnreadable';
  }
}

export interface ImageDerivatives {
  /**
   * The WebP of `source` at `width` (never wider than the source), from the blob store when already made,
   * else rendered, stored and linked first; null when the source blob is not stored. Concurrent calls for the
   * same source and width share one render. Rejects with SourceUnreadable when the source cannot be decoded.
   */
  derivative(source: string, width: ImageWidth): Promise<BlobInfo | null>;
  /** Makes every width of `source` that is not made yet, one after another (MEDIA_PREGENERATE, on upload). */
  pregenerate(source: string): Promise<void>;
  /** How many renders this process has run (each is one sharp pipeline), for tests and benchmarks. */
  readonly renders: number;
}

/**
 * What a blob store may offer besides the port (the embedded one does, src/blobStore/embeddedBlobStore.ts):
 * the path of a stored blob's file, its bytes checked against the address. sharp then reads the master
 * itself, so its 2 MB never sit in a Buffer: external memory that makes V8 collect the service's whole heap
 * over and over (about 1.4 s of the main thread per 200 renders in an earlier CPU profile of bench (e)).
 */
export interface VerifiedBlobFiles {
  verifiedFilePath(sha256: string): Promise<string | null>;
}

const offersVerifiedFiles = (store: BlobStore): store is BlobStore & VerifiedBlobFiles =>
  typeof (store as Partial<VerifiedBlobFiles>).verifiedFilePath === 'function';

export interface ImageDerivativesOptions {
  /**
   * Renders running at once; more wait their turn. Default: one per core. Each render is one libvips
   * thread on one of libuv's pool threads (4 by default), so capping renders at the cores keeps them from
   * queueing ahead of the file reads that serve stored pictures on the same pool. A turn covers sharp's work
   * only: reading the master and storing the result happen outside it, so no core waits on the disk.
   */
  maxConcurrentRenders?: number;
}

export function createImageDerivatives(blobStore: BlobStore, options: ImageDerivativesOptions = {}): ImageDerivatives {
  // One libvips thread per image (sharp's default on glibc already; made explicit because parallelism
  // comes from running renders side by side, which `maxConcurrentRenders` bounds).
  sharp.concurrency(1);
  // Every render reads a different master (or the same one at another width, once): libvips's operation
  // cache, on by default, would only keep decoded masters and open files alive for nothing.
  sharp.cache(false);
  const renderSlots = Math.max(1, options.maxConcurrentRenders ?? availableParallelism());
  const slots = new Slots(renderSlots);
  // Masters in memory at once (read, rendering or waiting for a turn, results being stored): enough that a
  // turn never waits on a read or a write, few enough to bound the memory.
  const admitted = new Slots(renderSlots * 2);
  const inFlight = new Map<string, Promise<BlobInfo | null>>();
  let renders = 0;

  /**
   * The master as sharp's input: the path of its file when the store offers one (checked against its address
   * first), else its bytes (checked in the same read). Null when it is not stored.
   */
  const masterOf = async (source: string): Promise<string | Buffer | null> => {
    try {
      if (offersVerifiedFiles(blobStore)) return await blobStore.verifiedFilePath(source);
      const input = await blobStore.open(source);
      // sharp buffers a streamed input whole before decoding it anyway; reading it first keeps the disk out
      // of the render's turn.
      return input && (await readAll(input));
    } catch (error) {
      throw new SourceUnreadable(source, { cause: error });
    }
  };

  const render = async (source: string, width: ImageWidth, variant: string): Promise<BlobInfo | null> => {
    await admitted.acquire();
    try {
      // Another replica, or this process before a restart, may have made it while this one waited.
      const made = await blobStore.findVariant(source, variant);
      if (made) return made;
      const master = await masterOf(source);
      if (master === null) return null;
      renders++;
      let webp: Buffer;
      await slots.acquire();
      try {
        webp = await sharp(master)
          .rotate()
          .resize({ width, withoutEnlargement: true })
          .keepIccProfile()
          .webp({ quality: WEBP_QUALITY })
          .toBuffer();
      } catch (error) {
        // A file checked a moment ago may since have been collected (no event names it any more).
        if (typeof master === 'string' && !(await blobStore.stat(source))) return null;
        throw new SourceUnreadable(source, { cause: error });
      } finally {
        slots.release();
      }
      const derived = await blobStore.put(Readable.from([webp]), { contentType: 'image/webp' });
      await blobStore.linkVariant(source, variant, derived.sha256);
      return derived;
    } finally {
      admitted.release();
    }
  };

  const derivative = async (source: string, width: ImageWidth): Promise<BlobInfo | null> => {
    const variant = derivativeVariant(width);
    const stored = await blobStore.findVariant(source, variant);
    if (stored) return stored;
    const flightKey = `${source}/${variant}`;
    let flight = inFlight.get(flightKey);
    if (!flight) {
      flight = render(source, width, variant).finally(() => inFlight.delete(flightKey));
      inFlight.set(flightKey, flight);
    }
    return flight;
  };

  return {
    derivative,
    async pregenerate(source) {
      for (const width of IMAGE_WIDTHS) await derivative(source, width);
    },
    get renders() {
      return renders;
    },
  };
}

/** A counting semaphore: at most `size` holders, the rest served in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Every byte of `stream`; rejects with the stream's error (a corrupt blob fails its checksum at the end). */
async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  // One chunk (the store reads a picture in one go) is taken as it is: a copy would double the allocation.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
