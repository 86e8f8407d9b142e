import { catalogueFacts, type CatalogueFacts } from '../../../src/catalogue/catalogueReferences.js';
import type { ImageRef } from '../../../src/catalogue/imageRef.js';
import type {
  FloorPlan,
  GalleryPicture,
  PaymentPlan,
  PdfDocument,
  ProjectEventOf,
  ProjectFields,
  ProjectStatus,
  VideoFile,
} from '../../../src/catalogue/project.js';
import { defaultMeta } from '../../support/deciderSpec.js';
import { storedFacts } from '../../support/storedFiles.js';

/** The id deciderSpec's default meta gives the aggregate. */
export const projectId = defaultMeta.id;
/** When the command under test happens. */
export const now = defaultMeta.now;
/** When the given history happened. */
export const earlier = '2024-04-01T09:00:00.000Z';

/**
 * The catalogue around the project of these tests: every id they name exists (developer 3, state 1 holding
 * community 2 holding sub-community 8, unit types 4 to 7, projects 4 and 9), and the blob store holds the
 * files of the refs the builders below make, so a case about a missing or misplaced
 * reference states it by overriding `references`.
 */
export const knownCatalogue: CatalogueFacts = catalogueFacts({
  developers: [3],
  states: [1],
  communities: { 2: { state_id: 1 } },
  subCommunities: { 8: { community_id: 2 } },
  unitTypes: [4, 5, 6, 7],
  projects: [4, 9, projectId],
  storedFiles: storedFacts(
    ...['a1b2c3d4e5f6', 'new1', 'ffee01', 'replaced', 'thumb1'].map((key) => anImage(key)),
    ...['f0e1d2c3b4a5', '0badc0de'].map((key) => aPdf(key)),
    aVideoFile(),
  ),
});

export function anImage(key = 'a1b2c3d4e5f6'): ImageRef {
  return { key, file_name: `${key}.jpg`, content_type: 'image/jpeg', width: 1600, height: 1200, size_bytes: 245_000 };
}

export function aVideoFile(key = 'v1d30'): VideoFile {
  return { key, file_name: 'walkthrough.mp4', content_type: 'video/mp4', size_bytes: 48_000_000 };
}

export function aPdf(key = 'f0e1d2c3b4a5'): Extract<PdfDocument, { key: string }> {
  return { key, file_name: `${key}.pdf`, content_type: 'application/pdf', size_bytes: 1_200_000 };
}

export function projectFields(overrides: Partial<ProjectFields> = {}): ProjectFields {
  return {
    name: 'Marina Heights',
    slug: 'marina-heights',
    developer_id: 3,
    state_id: 1,
    community_id: 2,
    sub_community_id: null,
    nature: 'off_plan',
    unit_type_ids: [],
    starting_from: null,
    currency: 'AED',
    location: null,
    map_embed_html: null,
    area_from: null,
    area_to: null,
    completion_date: null,
    overview: '',
    description: '',
    master_plan: '',
    property_no: '',
    license_no: '',
    project_types: [],
    video_description: '',
    down_payment_percent: null,
    service_charges: null,
    ...overrides,
  };
}

export function projectCreated(overrides: Partial<ProjectFields> & { status?: ProjectStatus } = {}): ProjectEventOf<'ProjectCreated'> {
  const { status = 'upcoming', ...fields } = overrides;
  return { type: 'ProjectCreated', data: { project_id: projectId, ...projectFields(fields), status, at: earlier } };
}

export const projectPublished = (): ProjectEventOf<'ProjectPublished'> => ({
  type: 'ProjectPublished',
  data: { project_id: projectId, at: earlier },
});

export const projectDeleted = (): ProjectEventOf<'ProjectDeleted'> => ({
  type: 'ProjectDeleted',
  data: { project_id: projectId, at: earlier },
});

export function aFloorPlan(floorPlanId: number, overrides: Partial<FloorPlan> = {}): FloorPlan {
  return { floor_plan_id: floorPlanId, title: 'Type A', unit_type_id: 4, area: 1250, price: 1_800_000, image: anImage(), ...overrides };
}

export const floorPlanAdded = (floorPlan: FloorPlan): ProjectEventOf<'FloorPlanAdded'> => ({
  type: 'FloorPlanAdded',
  data: { project_id: projectId, floor_plan: floorPlan, at: earlier },
});

export function aPaymentPlan(paymentPlanId: number, overrides: Partial<PaymentPlan> = {}): PaymentPlan {
  return {
    payment_plan_id: paymentPlanId,
    name: '60/40',
    milestones: [
      { label: 'On booking', percent: 20, due: null },
      { label: 'During construction', percent: 40, due: '2025' },
      { label: 'On handover', percent: 40, due: 'Q4 2026' },
    ],
    ...overrides,
  };
}

export const paymentPlanAdded = (paymentPlan: PaymentPlan): ProjectEventOf<'PaymentPlanAdded'> => ({
  type: 'PaymentPlanAdded',
  data: { project_id: projectId, payment_plan: paymentPlan, at: earlier },
});

export function aGalleryPicture(mediaId: number, overrides: Partial<GalleryPicture> = {}): GalleryPicture {
  return { media_id: mediaId, caption: 'Pool deck', position: 0, image: anImage(`pic${mediaId}`), ...overrides };
}

export const galleryPictureAdded = (picture: GalleryPicture): ProjectEventOf<'GalleryPictureAdded'> => ({
  type: 'GalleryPictureAdded',
  data: { project_id: projectId, picture, at: earlier },
});
