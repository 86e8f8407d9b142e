import type { EventStore } from '../eventStore/eventStore.js';
import { SHA256_PATTERN, type BlobInfo, type BlobStore, type VariantListing } from './blobStore.js';

/*
 * The only way blobs are deleted (README: Blob store). A blob is kept while an event names it (a `key` field
 * holding its SHA-256, as ImageRef, PdfDocument and VideoFile do), while it is younger than the grace period
 * (an upload is stored before the event that names it is appended), or while it is a recorded variant of a
 * kept blob (no event names a derived width), or while a record outside the log still names it (`retainedKeys`:
 * the brochure cache, whose PDFs no event names). Everything else is deleted, with its variant links, and so are
 * the blobs those links name unless something keeps them. Read models are built from events or are among the
 * retained records, so no read model names a deleted blob.
 */

export const DEFAULT_GRACE_MS = 24 * 60 * 60 * 1000;
const PAGE_SIZE = 1000;

export interface BlobGarbageOptions {
  blobStore: BlobStore & VariantListing;
  eventStore: EventStore;
  graceMs?: number;
  now?: Date;
  /** Decide and report, delete nothing. */
  dryRun?: boolean;
  /** Keys that records outside the event log still name (the brochure cache); read once, before deciding. */
  retainedKeys?: () => Promise<ReadonlySet<string>>;
}

export interface BlobGarbageReport {
  events: number;
  blobs: number;
  kept: number;
  /** What was deleted (or, in a dry run, would have been). */
  deleted: BlobInfo[];
}

export async function collectBlobGarbage(options: BlobGarbageOptions): Promise<BlobGarbageReport> {
  const { blobStore } = options;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const youngSince = (options.now ?? new Date()).getTime() - graceMs;
  const named = new KeysNamedByEvents(options.eventStore);
  await named.catchUp();
  const retained = (await options.retainedKeys?.()) ?? new Set<string>();

  const blobs = new Map<string, BlobInfo>();
  for await (const info of blobStore.list()) blobs.set(info.sha256, info);

  const roots = [...blobs.values()].filter(
    (info) => named.has(info.sha256) || retained.has(info.sha256) || info.storedAt.getTime() >= youngSince,
  );
  const kept = new Set(roots.map((info) => info.sha256));
  const keptVariants = new Set<string>();
  for (const root of roots) for (const { derived } of await blobStore.listVariants(root.sha256)) keptVariants.add(derived);

  const doomed = new Set([...blobs.keys()].filter((sha256) => !kept.has(sha256) && !keptVariants.has(sha256)));
  for (const sha256 of [...doomed]) {
    for (const { derived } of await blobStore.listVariants(sha256)) {
      if (blobs.has(derived) && !named.has(derived) && !keptVariants.has(derived)) doomed.add(derived);
    }
  }

  // An editor may have named one of them since the log was read (a JSON reference to a stored key): read on.
  await named.catchUp();
  for (const sha256 of doomed) {
    if (!named.has(sha256)) continue;
    doomed.delete(sha256);
    for (const { derived } of await blobStore.listVariants(sha256)) doomed.delete(derived);
  }

  const deleted: BlobInfo[] = [];
  for (const sha256 of doomed) {
    if (options.dryRun || (await blobStore.delete(sha256))) deleted.push(blobs.get(sha256)!);
  }
  return { events: named.events, blobs: blobs.size, kept: blobs.size - deleted.length, deleted };
}

/** The blob keys the event log names, read page by page; `catchUp` again reads what was appended since. */
class KeysNamedByEvents {
  private readonly keys = new Set<string>();
  private after: bigint | undefined;
  events = 0;

  constructor(private readonly eventStore: EventStore) {}

  has(sha256: string): boolean {
    return this.keys.has(sha256);
  }

  async catchUp(): Promise<void> {
    for (;;) {
      const page = await this.eventStore.readAll({ ...(this.after === undefined ? {} : { after: this.after }), maxCount: PAGE_SIZE });
      for (const event of page) collectKeys(event.data, this.keys);
      this.events += page.length;
      const last = page.at(-1);
      if (!last) return;
      this.after = last.position;
    }
  }
}

/** Every `key` field holding a SHA-256, at any depth (a gallery's pictures, a project's brochure, ...). */
export function collectKeys(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectKeys(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [field, item] of Object.entries(value)) {
      if (field === 'key' && typeof item === 'string' && SHA256_PATTERN.test(item)) into.add(item);
      else collectKeys(item, into);
    }
  }
}
