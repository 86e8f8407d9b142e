import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobCorrupted, BlobTooLarge, type BlobInfo, type BlobStore, type VariantListing } from '../../src/blobStore/blobStore.js';

export interface BlobStoreUnderTest {
  /** A store of its own: empty, and seen by no other test. */
  store: BlobStore & VariantListing;
  /** Changes one stored byte of the blob behind the adapter's back (its size stays the same). */
  corrupt?: (sha256: string) => Promise<void>;
}

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function listAll(store: BlobStore): Promise<BlobInfo[]> {
  const infos: BlobInfo[] = [];
  for await (const info of store.list()) infos.push(info);
  return infos;
}

/** `bytes` in chunks of `size`, as an upload arrives. */
export async function* inChunks(bytes: Uint8Array, size = 1000): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

/** Deterministic bytes that differ from test to test (so no two tests share a blob by accident). */
export function someBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

const MB = 1024 * 1024;

/**
 * What the process holds on to now: heap and buffers after a full collection, so that garbage not yet
 * collected (V8 collects buffers lazily) does not count as memory the store keeps.
 */
function retainedBytes(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

export function blobStoreContract(name: string, open: () => Promise<BlobStoreUnderTest>): void {
  describe(`blob store contract: ${name}`, () => {
    const opened: BlobStore[] = [];
    const fresh = async (): Promise<BlobStoreUnderTest> => {
      const underTest = await open();
      opened.push(underTest.store);
      return underTest;
    };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    describe('put, stat and open', () => {
      it('when bytes are put, then stat describes them and open streams exactly those bytes', async () => {
        const { store } = await fresh();
        const bytes = someBytes(300_000, 1);
        const before = Date.now();

        const info = await store.put(inChunks(bytes, 4096), { contentType: 'image/jpeg' });

        expect(info).toEqual({ sha256: sha256Of(bytes), size: bytes.byteLength, contentType: 'image/jpeg', storedAt: expect.any(Date) });
        expect(info.storedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(info.storedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
        expect(await store.stat(info.sha256)).toEqual(info);
        expect((await readAll((await store.open(info.sha256))!)).equals(bytes)).toBe(true);
      });

      it('when the source is a Readable, then its bytes are stored', async () => {
        const { store } = await fresh();
        const bytes = someBytes(70_000, 2);

        const info = await store.put(Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]), { contentType: 'application/pdf' });

        expect(info.sha256).toBe(sha256Of(bytes));
        expect((await readAll((await store.open(info.sha256))!)).equals(bytes)).toBe(true);
      });

      it('when no bytes are put, then an empty blob is stored under the SHA-256 of nothing', async () => {
        const { store } = await fresh();

        const info = await store.put(inChunks(Buffer.alloc(0)), { contentType: 'text/plain' });

        expect(info).toMatchObject({ sha256: sha256Of(Buffer.alloc(0)), size: 0 });
        expect((await readAll((await store.open(info.sha256))!)).byteLength).toBe(0);
      });

      it('when nothing is stored under an address, then stat and open answer null and delete answers false', async () => {
        const { store } = await fresh();
        const absent = sha256Of(Buffer.from('never stored'));

        expect(await store.stat(absent)).toBeNull();
        expect(await store.open(absent)).toBeNull();
        expect(await store.open(absent, { start: 0, end: 1 })).toBeNull();
        expect(await store.delete(absent)).toBe(false);
      });

      it('when an address is not a SHA-256, then nothing is found under it', async () => {
        const { store } = await fresh();
        await store.put(inChunks(someBytes(10, 3)), { contentType: 'text/plain' });

        for (const address of ['', '../../etc/passwd', 'tmp', 'A'.repeat(64), `${'a'.repeat(63)}/`]) {
          expect(await store.stat(address)).toBeNull();
          expect(await store.open(address)).toBeNull();
          expect(await store.findVariant(address, 'webp-w800-q92')).toBeNull();
        }
      });
    });

    describe('the same bytes twice', () => {
      it('when the same bytes are put again, then one blob is kept and the first copy answers', async () => {
        const { store } = await fresh();
        const bytes = someBytes(5000, 4);
        const first = await store.put(inChunks(bytes), { contentType: 'image/png' });

        const second = await store.put(inChunks(bytes, 333), { contentType: 'application/octet-stream' });

        expect(second).toEqual(first);
        expect(await listAll(store)).toEqual([first]);
      });

      it('when the same bytes are put twice at once, then both puts succeed and one blob is kept', async () => {
        const { store } = await fresh();
        const bytes = someBytes(200_000, 5);

        const [left, right] = await Promise.all([
          store.put(inChunks(bytes, 1024), { contentType: 'image/webp' }),
          store.put(inChunks(bytes, 4096), { contentType: 'image/webp' }),
        ]);

        expect(left).toEqual(right);
        expect(await listAll(store)).toEqual([left]);
        expect((await readAll((await store.open(left.sha256))!)).equals(bytes)).toBe(true);
      });
    });

    describe('the size limit', () => {
      it('when the bytes pass maxBytes, then the put stops reading at once, rejects with BlobTooLarge and keeps nothing', async () => {
        const { store } = await fresh();
        const bytes = someBytes(100_000, 6);
        let chunksRead = 0;
        async function* counted(): AsyncGenerator<Uint8Array> {
          for await (const chunk of inChunks(bytes, 1000)) {
            chunksRead++;
            yield chunk;
          }
        }

        const refusal = store.put(counted(), { contentType: 'image/jpeg', maxBytes: 10_500 });

        await expect(refusal).rejects.toBeInstanceOf(BlobTooLarge);
        await expect(refusal).rejects.toMatchObject({ maxBytes: 10_500 });
        expect(chunksRead).toBe(11);
        expect(await store.stat(sha256Of(bytes))).toBeNull();
        expect(await listAll(store)).toEqual([]);
      });

      it('when the bytes are exactly maxBytes, then they are stored', async () => {
        const { store } = await fresh();
        const bytes = someBytes(10_000, 7);

        const info = await store.put(inChunks(bytes), { contentType: 'image/jpeg', maxBytes: 10_000 });

        expect(info.size).toBe(10_000);
      });

      it('when a Readable passes maxBytes, then it is destroyed', async () => {
        const { store } = await fresh();
        const source = Readable.from(inChunks(someBytes(50_000, 8)));

        await expect(store.put(source, { contentType: 'video/mp4', maxBytes: 20_000 })).rejects.toBeInstanceOf(BlobTooLarge);

        expect(source.destroyed).toBe(true);
        expect(await listAll(store)).toEqual([]);
      });
    });

    describe('a source that fails', () => {
      it('when the source fails midway, then the put rejects with its error and keeps nothing', async () => {
        const { store } = await fresh();
        const bytes = someBytes(50_000, 9);
        async function* failing(): AsyncGenerator<Uint8Array> {
          yield bytes.subarray(0, 20_000);
          throw new Error('connection reset by the client');
        }

        await expect(store.put(failing(), { contentType: 'image/jpeg' })).rejects.toThrow('connection reset by the client');

        expect(await listAll(store)).toEqual([]);
        expect(await store.stat(sha256Of(bytes.subarray(0, 20_000)))).toBeNull();
      });
    });

    describe('ranges', () => {
      it('when a range is opened, then exactly those bytes (inclusive) stream', async () => {
        const { store } = await fresh();
        const bytes = someBytes(1_000_000, 10);
        const { sha256 } = await store.put(inChunks(bytes, 65_536), { contentType: 'video/mp4' });

        for (const [start, end] of [
          [0, 0],
          [0, 99],
          [500_000, 765_432],
          [999_999, 999_999],
          [0, 999_999],
        ] as const) {
          const part = await readAll((await store.open(sha256, { start, end }))!);
          expect(part.equals(bytes.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
        }
      });

      it('when a range ends past the last byte, then it streams up to the last byte', async () => {
        const { store } = await fresh();
        const bytes = someBytes(1000, 11);
        const { sha256 } = await store.put(inChunks(bytes), { contentType: 'video/mp4' });

        expect((await readAll((await store.open(sha256, { start: 900, end: 5000 }))!)).equals(bytes.subarray(900))).toBe(true);
      });

      it('when a range starts past the last byte or ends before it starts, then open refuses it with a RangeError', async () => {
        const { store } = await fresh();
        const { sha256 } = await store.put(inChunks(someBytes(1000, 12)), { contentType: 'video/mp4' });

        await expect(store.open(sha256, { start: 1000, end: 1200 })).rejects.toBeInstanceOf(RangeError);
        await expect(store.open(sha256, { start: 10, end: 9 })).rejects.toBeInstanceOf(RangeError);
        await expect(store.open(sha256, { start: -1, end: 9 })).rejects.toBeInstanceOf(RangeError);
      });
    });

    describe('corrupted bytes', () => {
      it('when stored bytes no longer match their address, then a whole read fails with BlobCorrupted', async (context) => {
        const { store, corrupt } = await fresh();
        if (!corrupt) return context.skip('the adapter under test cannot corrupt its bytes');
        const bytes = someBytes(600_000, 13);
        const { sha256 } = await store.put(inChunks(bytes, 65_536), { contentType: 'application/pdf' });

        await corrupt(sha256);

        const stream = (await store.open(sha256))!;
        await expect(readAll(stream)).rejects.toBeInstanceOf(BlobCorrupted);
        await expect(readAll((await store.open(sha256))!)).rejects.toMatchObject({ sha256 });
      });
    });

    describe('variants', () => {
      const WIDTH_800 = 'webp-w800-q92';
      const WIDTH_400 = 'webp-w400-q92';

      async function aSourceAndDerived(store: BlobStore, seed: number) {
        const source = await store.put(inChunks(someBytes(3000, seed)), { contentType: 'image/jpeg' });
        const derived = await store.put(inChunks(someBytes(1000, seed + 1000)), { contentType: 'image/webp' });
        return { source, derived };
      }

      it('when a variant is linked, then it is found as that variant of that source only', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 20);

        await store.linkVariant(source.sha256, WIDTH_800, derived.sha256);

        expect(await store.findVariant(source.sha256, WIDTH_800)).toEqual(derived);
        expect(await store.findVariant(source.sha256, WIDTH_400)).toBeNull();
        expect(await store.findVariant(derived.sha256, WIDTH_800)).toBeNull();
      });

      it('when a variant is linked again, then the new link replaces the old one', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 21);
        const other = await store.put(inChunks(someBytes(1200, 9021)), { contentType: 'image/webp' });
        await store.linkVariant(source.sha256, WIDTH_800, derived.sha256);

        await store.linkVariant(source.sha256, WIDTH_800, other.sha256);
        await store.linkVariant(source.sha256, WIDTH_800, other.sha256);

        expect(await store.findVariant(source.sha256, WIDTH_800)).toEqual(other);
      });

      it('when variants are linked, then listVariants names each of a source, and nothing of another blob', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 25);
        await store.linkVariant(source.sha256, WIDTH_800, derived.sha256);
        await store.linkVariant(source.sha256, WIDTH_400, source.sha256);
        const byName = (left: { variant: string }, right: { variant: string }) => left.variant.localeCompare(right.variant);

        expect((await store.listVariants(source.sha256)).sort(byName)).toEqual([
          { variant: WIDTH_400, derived: source.sha256 },
          { variant: WIDTH_800, derived: derived.sha256 },
        ]);
        expect(await store.listVariants(derived.sha256)).toEqual([]);
        expect(await store.listVariants('../etc')).toEqual([]);
      });

      it('when the derived blob is deleted, then the variant is no longer found', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 22);
        await store.linkVariant(source.sha256, WIDTH_800, derived.sha256);

        expect(await store.delete(derived.sha256)).toBe(true);

        expect(await store.findVariant(source.sha256, WIDTH_800)).toBeNull();
      });

      it('when the source is deleted, then its variant links go with it', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 23);
        await store.linkVariant(source.sha256, WIDTH_800, derived.sha256);
        await store.linkVariant(source.sha256, WIDTH_400, derived.sha256);

        expect(await store.delete(source.sha256)).toBe(true);
        await store.put(inChunks(someBytes(3000, 23)), { contentType: 'image/jpeg' });

        expect(await store.findVariant(source.sha256, WIDTH_800)).toBeNull();
        expect(await store.findVariant(source.sha256, WIDTH_400)).toBeNull();
        expect(await store.listVariants(source.sha256)).toEqual([]);
        expect(await store.stat(derived.sha256)).toEqual(derived);
      });

      it('when a link names a blob that is not stored, then it is refused', async () => {
        const { store } = await fresh();
        const { source, derived } = await aSourceAndDerived(store, 24);
        const absent = sha256Of(Buffer.from('absent'));

        await expect(store.linkVariant(source.sha256, WIDTH_800, absent)).rejects.toThrow();
        await expect(store.linkVariant(absent, WIDTH_800, derived.sha256)).rejects.toThrow();
        expect(await store.findVariant(source.sha256, WIDTH_800)).toBeNull();
      });
    });

    describe('list and delete', () => {
      it('when blobs are stored, then list names each once; when one is deleted, then it is gone', async () => {
        const { store } = await fresh();
        const infos = [];
        for (let seed = 30; seed < 40; seed++)
          infos.push(await store.put(inChunks(someBytes(100 + seed, seed)), { contentType: 'image/png' }));
        const bySha = (left: BlobInfo, right: BlobInfo) => left.sha256.localeCompare(right.sha256);

        expect((await listAll(store)).sort(bySha)).toEqual([...infos].sort(bySha));

        const [gone, ...kept] = infos;
        expect(await store.delete(gone!.sha256)).toBe(true);
        expect(await store.delete(gone!.sha256)).toBe(false);
        expect(await store.stat(gone!.sha256)).toBeNull();
        expect(await store.open(gone!.sha256)).toBeNull();
        expect((await listAll(store)).sort(bySha)).toEqual(kept.sort(bySha));
      });

      it('when a deleted blob is put again, then it is stored afresh', async () => {
        const { store } = await fresh();
        const bytes = someBytes(2000, 41);
        const first = await store.put(inChunks(bytes), { contentType: 'image/png' });
        await store.delete(first.sha256);

        const again = await store.put(inChunks(bytes), { contentType: 'image/webp' });

        expect(again).toMatchObject({ sha256: first.sha256, contentType: 'image/webp' });
        expect((await readAll((await store.open(again.sha256))!)).equals(bytes)).toBe(true);
      });
    });

    describe('large files', () => {
      it('when a 64 MB file streams in and out, then the heap never grows by anything close to its size', async () => {
        const { store } = await fresh();
        const size = 64 * MB;
        const chunkSize = 64 * 1024;
        const expected = createHash('sha256');
        const baseline = retainedBytes();
        let peak = baseline;
        // Every 4 MB: often enough to see a store that buffers, rarely enough to keep the test quick.
        const sampleEvery = 4 * MB;
        const sample = (offset: number) => {
          if (offset % sampleEvery === 0) peak = Math.max(peak, retainedBytes());
        };
        async function* generated(): AsyncGenerator<Uint8Array> {
          for (let offset = 0; offset < size; offset += chunkSize) {
            const chunk = Buffer.alloc(chunkSize, offset / chunkSize);
            chunk.writeUInt32BE(offset);
            expected.update(chunk);
            sample(offset);
            yield chunk;
          }
        }

        const info = await store.put(generated(), { contentType: 'video/mp4' });
        const readBack = createHash('sha256');
        let readSize = 0;
        for await (const chunk of (await store.open(info.sha256))!) {
          readBack.update(chunk as Buffer);
          sample(readSize);
          readSize += (chunk as Buffer).byteLength;
        }

        expect(info).toMatchObject({ sha256: expected.digest('hex'), size });
        expect({ readSize, sha256: readBack.digest('hex') }).toEqual({ readSize: size, sha256: info.sha256 });
        // Loosely: a store that buffered the file would hold its 64 MB; a few chunks in flight are fine.
        expect(peak - baseline).toBeLessThan(size / 4);
      }, 120_000);
    });
  });
}
