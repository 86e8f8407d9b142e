/**
 * A deterministic NDJSON catalogue for the import's tests and benchmark: the demo's reference data, then per
 * project the project line with its lists, 3 floor plans, 2 payment plans and 5 gallery pictures, naming a few
 * pictures and PDFs stored in the blob store first (as uploads would have stored them).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import sharp from 'sharp';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import {
  amenityCatalogue,
  demoDeveloperNames,
  demoStates,
  demoUnitTypes,
  faqCatalogue,
  nearbyCatalogue,
  paymentMethodCatalogue,
  projectNamePrefixes,
  projectNameSuffixes,
} from '../../src/seed/demoCatalogueData.js';
import { mixSeed, Random } from '../../src/seed/random.js';
import { pdfBytes } from '../support/storedFiles.js';

const SEED = 0x1a9_0127;
const PICTURES = 12;
const BROCHURES = 4;

interface StoredPicture {
  key: string;
  file_name: string;
  content_type: 'image/jpeg';
  width: number;
  height: number;
  size_bytes: number;
}

interface StoredPdf {
  key: string;
  file_name: string;
  content_type: 'application/pdf';
  size_bytes: number;
}

/** The files the catalogue names, stored first as uploads would have stored them. */
export async function storeFiles(blobStore: BlobStore): Promise<{ pictures: StoredPicture[]; pdfs: StoredPdf[] }> {
  const pictures: StoredPicture[] = [];
  for (let index = 0; index < PICTURES; index++) {
    const [width, height] = [640 + index * 16, 480 + index * 8];
    const background = { r: (index * 67) % 256, g: (index * 131) % 256, b: (index * 199) % 256 };
    const bytes = await sharp({ create: { width, height, channels: 3, background } })
      .jpeg()
      .toBuffer();
    const stored = await blobStore.put(Readable.from([bytes]), { contentType: 'image/jpeg' });
    pictures.push({
      key: stored.sha256,
      file_name: `picture-${index}.jpg`,
      content_type: 'image/jpeg',
      width,
      height,
      size_bytes: stored.size,
    });
  }
  const pdfs: StoredPdf[] = [];
  for (let index = 0; index < BROCHURES; index++) {
    const stored = await blobStore.put(Readable.from([pdfBytes(`brochure ${index}`)]), { contentType: 'application/pdf' });
    pdfs.push({ key: stored.sha256, file_name: `brochure-${index}.pdf`, content_type: 'application/pdf', size_bytes: stored.size });
  }
  return { pictures, pdfs };
}

const kebab = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** The catalogue's lines, deterministic for a given count: reference data first, then each project and its parts. */
export function* catalogueLines(projects: number, files: { pictures: StoredPicture[]; pdfs: StoredPdf[] }): Generator<object> {
  const communities: Array<{ key: string; state: string; subCommunities: string[] }> = [];
  for (const state of demoStates) {
    yield { type: 'state', key: `state:${state.slug}`, data: { name: state.name, slug: state.slug, country_code: 'AE', published: true } };
    for (const demo of state.communities) {
      const slug = kebab(demo.name);
      yield {
        type: 'community',
        key: `community:${slug}`,
        data: {
          state: `state:${state.slug}`,
          name: demo.name,
          slug,
          description: `${demo.name}, ${state.name}.`,
          location: { latitude: demo.latitude, longitude: demo.longitude },
          published: true,
        },
      };
      const subCommunities: string[] = [];
      for (const name of demo.subCommunities) {
        const subSlug = `${slug}-${kebab(name)}`;
        yield {
          type: 'sub_community',
          key: `sub:${subSlug}`,
          data: { community: `community:${slug}`, name, slug: subSlug, published: true },
        };
        subCommunities.push(`sub:${subSlug}`);
      }
      communities.push({ key: `community:${slug}`, state: `state:${state.slug}`, subCommunities });
    }
  }
  for (const name of demoDeveloperNames) {
    yield { type: 'developer', key: `developer:${kebab(name)}`, data: { name, slug: kebab(name), website: null, published: true } };
  }
  for (const [index, unitType] of demoUnitTypes.entries()) {
    yield { type: 'unit_type', key: `unit-type:${kebab(unitType.name)}`, data: { ...unitType, sort_order: (index + 1) * 10 } };
  }
  const unitTypeKeys = demoUnitTypes.map((unitType) => `unit-type:${kebab(unitType.name)}`);

  for (let ordinal = 0; ordinal < projects; ordinal++) {
    const random = new Random(mixSeed(SEED, ordinal));
    const community = random.pick(communities);
    const name = `${random.pick(projectNamePrefixes)} ${random.pick(projectNameSuffixes)} ${ordinal + 1}`;
    const key = `project:${ordinal + 1}`;
    const unitTypes = random.sample(unitTypeKeys, random.int(2, 5));
    const picture = () => random.pick(files.pictures);
    yield {
      type: 'project',
      key,
      data: {
        name,
        slug: kebab(name),
        developer: `developer:${kebab(random.pick(demoDeveloperNames))}`,
        state: community.state,
        community: community.key,
        sub_community: random.chance(0.7) ? random.pick(community.subCommunities) : null,
        nature: random.chance(0.6) ? 'off_plan' : 'ready',
        status: random.pick(['upcoming', 'under_construction', 'completed', 'sold_out']),
        unit_types: unitTypes,
        starting_from: random.int(400, 9_000) * 1000,
        area_from: random.int(380, 1_100),
        area_to: random.int(1_200, 4_000),
        completion_date: `${random.int(2024, 2030)}-${String(random.int(1, 12)).padStart(2, '0')}-01`,
        overview: `${name} brings ${random.int(80, 900)} homes to the neighbourhood.`,
        description:
          `${name} is a residential development with views over the water and the park, close to schools, retail and transport. `.repeat(3),
        down_payment_percent: random.pick([10, 20, 30]),
        service_charges: `AED ${random.int(10, 28)} per sq ft per year`,
        published: random.chance(0.9),
        amenities: random.sample(amenityCatalogue, random.int(4, 9)),
        nearby_places: random
          .sample(nearbyCatalogue, random.int(3, 6))
          .map((place) => ({ ...place, distance_km: random.int(1, 250) / 10 })),
        payment_methods: random.sample(paymentMethodCatalogue, random.int(2, 4)),
        faqs: random.sample(faqCatalogue, random.int(3, 5)),
        virtual_tours: random.chance(0.35) ? [{ title: 'Show apartment', url: `https://tours.example.com/${kebab(name)}` }] : [],
        floor_plates: random.chance(0.3) ? [{ title: 'Typical floor plate', floors: '1-10', image: picture() }] : [],
        related_projects: ordinal > 0 && random.chance(0.4) ? [`project:${random.int(1, ordinal)}`] : [],
        video: random.chance(0.5) ? { title: `${name} film`, external_url: `https://videos.example.com/${kebab(name)}` } : null,
        brochure: random.chance(0.9) ? random.pick(files.pdfs) : null,
        master_plan_document: random.chance(0.5)
          ? { external_url: `https://documents.example.com/${kebab(name)}/master-plan.pdf`, file_name: 'master-plan.pdf' }
          : null,
      },
    };
    for (let index = 0; index < 3; index++) {
      yield {
        type: 'floor_plan',
        key: `${key}:floor-plan:${index + 1}`,
        data: {
          project: key,
          title: `Type ${String.fromCharCode(65 + index)}`,
          unit_type: unitTypes[index % unitTypes.length],
          area: random.int(400, 4_000),
          price: random.int(400, 9_000) * 1000,
          image: picture(),
        },
      };
    }
    yield {
      type: 'payment_plan',
      key: `${key}:payment-plan:1`,
      data: {
        project: key,
        name: '60/40 plan',
        milestones: [
          { label: 'Down payment', percent: 20, due: 'On booking' },
          { label: 'During construction', percent: 40, due: 'In 8 instalments' },
          { label: 'On handover', percent: 40, due: 'On handover' },
        ],
      },
    };
    yield {
      type: 'payment_plan',
      key: `${key}:payment-plan:2`,
      data: { project: key, name: 'Cash', milestones: [{ label: 'Full payment', percent: 100, due: 'On transfer' }] },
    };
    for (let index = 0; index < 5; index++) {
      yield {
        type: 'gallery_picture',
        key: `${key}:picture:${index + 1}`,
        data: { project: key, caption: random.chance(0.7) ? `View ${index + 1}` : null, image: picture() },
      };
    }
  }
}

/** Stores the files in `dataDir`'s blob store and writes the catalogue of `projects` projects to `file`. */
export async function writeImportCatalogue(dataDir: string, file: string, projects: number): Promise<{ lines: number }> {
  const blobStore = createEmbeddedBlobStore({ dataDir });
  const files = await storeFiles(blobStore);
  await blobStore.close();
  const out = createWriteStream(file);
  let lines = 0;
  for (const line of catalogueLines(projects, files)) {
    lines += 1;
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return { lines };
}
