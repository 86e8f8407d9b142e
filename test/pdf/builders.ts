import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import { createImageDerivatives, type ImageDerivatives } from '../../src/media/imageDerivatives.js';
import { PDF_SECTIONS, type BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { renderDemoPicture, type DemoPicture } from '../../src/seed/demoMedia.js';
import { AGENT_PROFILES, type AgentProfileDoc } from '../../projections/agentProfiles.js';
import { COMMUNITIES, type CommunityDoc } from '../../projections/communities.js';
import { DEVELOPERS, type DeveloperDoc } from '../../projections/developers.js';
import { PROJECT_RESOURCES, type ProjectResourcesDoc } from '../../projections/projectResources.js';
import { PROJECTS, type ProjectDoc } from '../../projections/projects.js';

/*
 * A tiny catalogue for brochure tests, written straight into the read models: one project with every
 * related collection, its developer and community, and one agent profile, with pictures drawn by the demo
 * seed's renderer and stored in a throwaway blob store.
 */

export const PROJECT_ID = 7;
export const AGENT_PROFILE_ID = 31;
export const UNIT_TYPE = { studio: 1, oneBed: 2, twoBed: 3, threeBed: 4 } as const;
export const PROJECT_LOCATION = { latitude: 25.0805, longitude: 55.1403 };

const AT = '2025-03-01T09:00:00.000Z';

async function storedPicture(blobStore: BlobStore, picture: DemoPicture): Promise<ImageRef> {
  const file = await renderDemoPicture(picture);
  const info = await blobStore.put(Readable.from([file.bytes]), { contentType: file.contentType });
  return {
    key: info.sha256,
    file_name: `${picture.kind}.${file.contentType === 'image/png' ? 'png' : 'jpg'}`,
    content_type: file.contentType as ImageRef['content_type'],
    width: file.width,
    height: file.height,
    size_bytes: info.size,
  };
}

export function projectDoc(fields: Partial<ProjectDoc> = {}): ProjectDoc {
  return {
    _id: PROJECT_ID,
    id: PROJECT_ID,
    slug: 'marina-crest-residences',
    name: 'Marina Crest Residences',
    developer_id: 3,
    state_id: 1,
    community_id: 5,
    sub_community_id: null,
    nature: 'off_plan',
    status: 'under_construction',
    published: true,
    deleted: false,
    created_at: AT,
    updated_at: AT,
    starting_from: 1_250_000,
    currency: 'AED',
    bedrooms: Object.values(UNIT_TYPE).map(String),
    bedroom_types: [
      { id: UNIT_TYPE.studio, name: 'Studio', bedrooms: 0, kind: 'studio' },
      { id: UNIT_TYPE.oneBed, name: '1 Bedroom', bedrooms: 1, kind: 'bedrooms' },
      { id: UNIT_TYPE.twoBed, name: '2 Bedrooms', bedrooms: 2, kind: 'bedrooms' },
      { id: UNIT_TYPE.threeBed, name: '3 Bedrooms', bedrooms: 3, kind: 'bedrooms' },
    ],
    bedroom_range: { min: 0, max: 3, max_or_more: false, label: 'Studio – 3 Bedrooms' },
    location: PROJECT_LOCATION,
    map_embed_html: null,
    area_from: 450,
    area_to: 1_820,
    completion_date: '2027-12-31',
    overview:
      'Marina Crest Residences rises forty-two storeys above the marina promenade, with floor-to-ceiling glass that frames the water on one side and the skyline on the other.\n\n' +
      'Every home opens onto a deep terrace. Interiors are finished in oak, travertine and brushed brass, with kitchens by an Italian atelier and bathrooms in honed marble.\n\n' +
      'Residents share a rooftop infinity pool, a private cinema, co-working lounges and a landscaped podium garden, five minutes on foot from the tram and the beach.',
    description: '',
    master_plan: '',
    property_no: 'P-2291',
    license_no: 'L-88120',
    project_types: ['Apartments', 'Penthouses'],
    video_description: '',
    down_payment_percent: 20,
    service_charges: 'AED 18 per sq ft',
    cover_image: null,
    media_count: 0,
    floor_plan_count: 0,
    payment_plan_count: 0,
    _gallery: [],
    _search: 'marina crest residences',
    _position: 1,
    ...fields,
  };
}

export interface BrochureCatalogue {
  readStore: ReadStore;
  blobStore: BlobStore;
  derivatives: ImageDerivatives;
  /** Replaces the project's document (an editor's change, as the projection would write it). */
  putProject(fields: Partial<ProjectDoc>): Promise<void>;
  close(): Promise<void>;
}

/** The catalogue above in a fresh in-memory read store and a blob store in a temporary folder. */
export async function brochureCatalogue(): Promise<BrochureCatalogue> {
  const dataDir = await mkdtemp(join(tmpdir(), 'brochure-'));
  const blobStore = createEmbeddedBlobStore({ dataDir });
  const readStore = createEmbeddedReadStore();
  const derivatives = createImageDerivatives(blobStore);
  const picture = (description: DemoPicture) => storedPicture(blobStore, description);
  const facades = await Promise.all([0, 1, 2, 3, 4, 5].map((variant) => picture({ kind: 'facade', name: 'Marina Crest', variant })));
  const plans = await Promise.all(
    ['Studio', '1 Bedroom', '2 Bedrooms'].map((unitType, variant) => picture({ kind: 'floorPlan', unitType, variant })),
  );
  const [logo, portrait] = await Promise.all([
    picture({ kind: 'logo', name: 'Azure Bay Developments' }),
    picture({ kind: 'portrait', name: 'Layla Haddad', longHair: true }),
  ]);

  const developer: DeveloperDoc = {
    _id: 3,
    id: 3,
    name: 'Azure Bay Developments',
    slug: 'azure-bay',
    description: '',
    website: null,
    logo,
    established_year: 2004,
    published: true,
    created_at: AT,
    updated_at: AT,
    _search: 'azure bay developments',
    _position: 1,
  };
  const community: CommunityDoc = {
    _id: 5,
    id: 5,
    state_id: 1,
    name: 'Dubai Marina',
    slug: 'dubai-marina',
    description: '',
    banner: null,
    location: PROJECT_LOCATION,
    published: true,
    created_at: AT,
    updated_at: AT,
    _search: 'dubai marina',
    _position: 1,
  };
  const resources: ProjectResourcesDoc = {
    _id: PROJECT_ID,
    project_id: PROJECT_ID,
    floor_plans: [
      { id: 11, title: 'Studio Type A', unit_type_id: UNIT_TYPE.studio, area: 450, price: 1_250_000, image: plans[0]! },
      { id: 12, title: 'One Bedroom Type B', unit_type_id: UNIT_TYPE.oneBed, area: 780, price: 1_890_000, image: plans[1]! },
      { id: 13, title: 'Two Bedroom Type C', unit_type_id: UNIT_TYPE.twoBed, area: 1_240, price: 2_760_000, image: plans[2]! },
    ],
    payment_plans: [
      {
        id: 21,
        name: '60/40 Post-handover Plan',
        milestones: [
          { label: 'Booking', percent: 20, due: 'On reservation' },
          { label: 'First instalment', percent: 10, due: 'Within 60 days' },
          { label: 'Construction 30%', percent: 10, due: 'Q3 2026' },
          { label: 'Construction 60%', percent: 20, due: 'Q1 2027' },
          { label: 'Handover', percent: 40, due: 'On completion' },
        ],
      },
    ],
    media: {
      items: facades.map((image, index) => ({
        id: 100 + index,
        caption: index === 2 ? 'Rooftop pool at dusk' : null,
        position: index,
        image,
      })),
      master_plan_document: null,
    },
    video: null,
    amenities: [
      'Rooftop infinity pool',
      'Private cinema',
      'Gymnasium',
      'Co-working lounge',
      "Children's play area",
      'Podium garden',
      'Concierge',
      'Covered parking',
      'Spa and sauna',
      'Beach access',
    ].map((name) => ({ name, icon: null })),
    nearby: [
      { name: 'Marina Walk', category: 'leisure', distance_km: 0.3 },
      { name: 'JBR Beach', category: 'beach', distance_km: 0.8 },
      { name: 'Marina Mall', category: 'shopping', distance_km: 1.2 },
      { name: 'DMCC Metro', category: 'transport', distance_km: 1.6 },
    ],
    payment_methods: [],
    faqs: [],
    virtual_tours: [],
    floor_plates: [],
    brochure: null,
    related_project_ids: [],
    _position: 1,
  };
  const agent: AgentProfileDoc = {
    _id: AGENT_PROFILE_ID,
    id: AGENT_PROFILE_ID,
    client_id: 1,
    agent_name: 'Layla Haddad',
    company_name: 'Harbour & Key Realty',
    email: 'layla.haddad@harbourkey.example',
    phone: '+971 4 555 0142',
    whatsapp: '+971 50 555 0142',
    picture: portrait,
    status: 'approved',
    rejection_reason: null,
    deleted: false,
    created_at: AT,
    updated_at: AT,
    revision: 2,
    _search: 'layla haddad',
    _position: 1,
  };
  const put = (collection: string, doc: Doc) => ({ op: 'put' as const, collection, doc });
  await readStore.write([
    put(PROJECTS, projectDoc()),
    put(PROJECT_RESOURCES, resources),
    put(DEVELOPERS, developer),
    put(COMMUNITIES, community),
    put(AGENT_PROFILES, agent),
  ]);
  return {
    readStore,
    blobStore,
    derivatives,
    putProject: (fields) => readStore.write([put(PROJECTS, projectDoc(fields))]),
    async close() {
      await readStore.close();
      await blobStore.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function brochureRequest(fields: Partial<BrochureRequest> = {}): BrochureRequest {
  return {
    projectId: PROJECT_ID,
    clientId: 1,
    template: 'classic',
    language: 'en',
    currency: { code: 'AED', rate: 1 },
    sections: PDF_SECTIONS,
    unitTypeIds: null,
    agentProfileId: AGENT_PROFILE_ID,
    brandingPage: false,
    ...fields,
  };
}

/** What a PDF parser reads from a brochure: its page count and each page's text. */
export async function readPdf(pdf: Buffer): Promise<{ pages: number; text: string[] }> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, disableFontFace: true }).promise;
  try {
    const text: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const content = await (await document.getPage(number)).getTextContent();
      text.push(
        content.items
          .map((item) => ('str' in item ? item.str : ''))
          .join(' ')
          .normalize('NFKC'),
      );
    }
    return { pages: document.numPages, text };
  } finally {
    await document.destroy();
  }
}
