import type { ImageRef } from '../../src/catalogue/imageRef.js';
import type { StoredFiles } from '../../src/catalogue/storedFiles.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { importCatalogue, type ImportProgress, type ImportRefusal, type ImportReport } from '../../src/import/catalogueImport.js';
import { ndjsonLines } from '../../src/import/ndjsonLines.js';
import { storedFilesHolding } from '../support/storedFiles.js';

/** Lines for the import's tests: a small catalogue whose records name each other by key. */

export const at = '2025-03-01T09:00:00.000Z';

export const picture = (name: string): ImageRef => ({
  key: `${name}-key`,
  file_name: `${name}.jpg`,
  content_type: 'image/jpeg',
  width: 800,
  height: 600,
  size_bytes: 12_345,
});

/** What the blob store holds for these tests: the pictures `picture()` names for these names. */
export const storedPictures: StoredFiles = storedFilesHolding(...['facade', 'plan-a', 'plan-b', 'lobby'].map(picture));

export const referenceLines = [
  { type: 'state', key: 'st-dubai', data: { name: 'Dubai', slug: 'dubai', country_code: 'AE', published: true } },
  { type: 'state', key: 'st-abu-dhabi', data: { name: 'Abu Dhabi', slug: 'abu-dhabi', country_code: 'AE', published: true } },
  { type: 'community', key: 'c-marina', data: { state: 'st-dubai', name: 'Dubai Marina', slug: 'dubai-marina', published: true } },
  { type: 'community', key: 'c-saadiyat', data: { state: 'st-abu-dhabi', name: 'Saadiyat', slug: 'saadiyat' } },
  {
    type: 'sub_community',
    key: 'sc-promenade',
    data: { community: 'c-marina', name: 'Promenade', slug: 'marina-promenade', published: true },
  },
  { type: 'developer', key: 'dev-emaar', data: { name: 'Emaar', slug: 'emaar', website: 'https://www.emaar.example', published: true } },
  { type: 'unit_type', key: 'ut-studio', data: { name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 10 } },
  { type: 'unit_type', key: 'ut-1br', data: { name: '1 Bedroom', kind: 'bedrooms', bedrooms: 1, sort_order: 20 } },
];

export const projectLine = (key: string, data: Record<string, unknown> = {}) => ({
  type: 'project',
  key,
  data: {
    name: `Tower ${key}`,
    slug: `tower-${key}`,
    developer: 'dev-emaar',
    state: 'st-dubai',
    community: 'c-marina',
    sub_community: 'sc-promenade',
    nature: 'off_plan',
    unit_types: ['ut-studio', 'ut-1br'],
    amenities: [{ name: 'Pool', icon: 'pool' }],
    published: true,
    ...data,
  },
});

/** A floor plan, a payment plan and a gallery picture of the project; the pictures are `picture()`'s unless given. */
export const partLines = (
  project: string,
  images: { floorPlan: ImageRef; gallery: ImageRef } = { floorPlan: picture('plan-a'), gallery: picture('facade') },
) => [
  {
    type: 'floor_plan',
    key: `${project}-fp-a`,
    data: { project, title: 'Type A', unit_type: 'ut-studio', price: 900_000, image: images.floorPlan },
  },
  {
    type: 'payment_plan',
    key: `${project}-pp`,
    data: {
      project,
      name: '60/40',
      milestones: [
        { label: 'Down payment', percent: 60, due: 'On booking' },
        { label: 'On handover', percent: 40, due: 'On handover' },
      ],
    },
  },
  { type: 'gallery_picture', key: `${project}-g1`, data: { project, caption: 'Facade', image: images.gallery } },
];

/** The lines as an NDJSON file's bytes; a string is written as it is (a line that is not JSON). */
export const ndjson = (...lines: Array<object | string>): string =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';

export interface ImportRun {
  report: ImportReport;
  refusals: ImportRefusal[];
}

/** Imports the text into the store as the CLI does (line by line, in batches). */
export async function runImport(
  eventStore: EventStore,
  text: string,
  options: { batchLines?: number; storedFiles?: StoredFiles; onProgress?: (progress: ImportProgress) => void } = {},
): Promise<ImportRun> {
  const refusals: ImportRefusal[] = [];
  async function* source() {
    yield Buffer.from(text);
  }
  const report = await importCatalogue(
    { eventStore, storedFiles: options.storedFiles ?? storedPictures, clock: () => new Date(at) },
    ndjsonLines(source()),
    {
      actor: 'import',
      ...(options.batchLines ? { batchLines: options.batchLines } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onRefusal: (refusal) => refusals.push(refusal),
    },
  );
  return { report, refusals };
}

/** Every event of the log, in order. */
export async function wholeLog(eventStore: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (let page = await eventStore.readAll({ maxCount: 5_000 }); page.length > 0;) {
    events.push(...page);
    page = await eventStore.readAll({ after: page.at(-1)!.position, maxCount: 5_000 });
  }
  return events;
}
