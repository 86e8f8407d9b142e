import type { Project } from './project.js';

/**
 * A stored file a command names (an ImageRef, a stored PdfDocument, a VideoFile): its `key` is the SHA-256 of
 * the bytes in the blob store, and the other facts are the stored file's. Only images carry a size in pixels.
 */
export interface StoredFileRef {
  key: string;
  content_type: string;
  size_bytes: number;
  width?: number;
  height?: number;
}

/** What the blob store holds under a key; `width` and `height` (read from the file) are null but for pictures. */
export interface StoredFileFacts {
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
}

/**
 * The port through which a catalogue command learns what the blob store holds. Only the handler uses it
 * (through CatalogueReferences); deciders get its answers as CatalogueFacts.storedFiles.
 */
export interface StoredFiles {
  describe(key: string): Promise<StoredFileFacts | null>;
}

/** For ports that never look a file up (access commands name no files). */
export const noStoredFiles: StoredFiles = { describe: () => Promise.resolve(null) };

/** A file ref a command names, at its field path (`body.image`); null, absent or a legacy external document is no claim. */
export type FileClaims = ReadonlyArray<readonly [field: string, ref: StoredFileRef]>;

type MaybeStoredFile = StoredFileRef | { external_url: string } | null | undefined;

/**
 * The refs of a command that must name a stored file with the same facts: every one but those the aggregate
 * already records with the same facts (recorded before the blob check existed, or checked when recorded), so
 * that an edit resending a list never fails on a ref it does not change.
 */
export function fileClaims(named: Record<string, MaybeStoredFile>, recorded: readonly MaybeStoredFile[] = []): FileClaims {
  const claims: Array<readonly [string, StoredFileRef]> = [];
  for (const [field, ref] of Object.entries(named)) {
    if (isStoredFile(ref) && !recorded.some((other) => isStoredFile(other) && sameFacts(other, ref))) claims.push([field, ref]);
  }
  return claims;
}

/** The keys a slice's `references` asks the blob store about. */
export const claimedKeys = (claims: FileClaims): string[] => [...new Set(claims.map(([, ref]) => ref.key))];

/** One problem per claim whose key names no stored file, or whose facts differ from the stored file's. */
export function storedFileProblems(claims: FileClaims, stored: ReadonlyMap<string, StoredFileFacts>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [field, ref] of claims) {
    const facts = stored.get(ref.key);
    if (!facts) {
      problems[`${field}.key`] = 'names no stored file: upload the file (send its bytes) instead of naming a key';
      continue;
    }
    const differs = (name: keyof StoredFileFacts, given: string | number) => {
      if (facts[name] !== given) problems[`${field}.${name}`] = `is ${JSON.stringify(facts[name])} for the stored file ${ref.key}`;
    };
    differs('content_type', ref.content_type);
    differs('size_bytes', ref.size_bytes);
    if (ref.width !== undefined) differs('width', ref.width);
    if (ref.height !== undefined) differs('height', ref.height);
  }
  return problems;
}

/** Every stored file a project records: pictures, floor plates, video file and thumbnail, documents. */
export function projectFiles(project: Project | null): MaybeStoredFile[] {
  if (!project) return [];
  return [
    ...Object.values(project.gallery).map((picture) => picture.image),
    ...Object.values(project.floor_plans).map((floorPlan) => floorPlan.image),
    ...project.floor_plates.map((plate) => plate.image),
    project.video?.file,
    project.video?.thumbnail,
    project.master_plan_document,
    project.brochure,
  ];
}

function isStoredFile(ref: MaybeStoredFile): ref is StoredFileRef {
  return ref !== null && ref !== undefined && 'key' in ref;
}

/**
 * Compared field by field: a bulk import checks every line's refs against all of its project's files, and
 * serialising each file per comparison was a tenth of its time. A size in pixels left out equals a null one.
 */
const sameFacts = (a: StoredFileRef, b: StoredFileRef): boolean =>
  a.key === b.key &&
  a.content_type === b.content_type &&
  a.size_bytes === b.size_bytes &&
  (a.width ?? null) === (b.width ?? null) &&
  (a.height ?? null) === (b.height ?? null);
