import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import { DEFAULT_IMAGE_WIDTH, IMAGE_WIDTHS, type ImageDerivatives } from '../../src/media/imageDerivatives.js';
import type { BrochureRequest, PdfLanguage, PdfSection, PdfTemplate } from '../../src/pdf/pdfOptions.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { AGENT_PROFILES, type AgentProfileDoc } from '../../projections/agentProfiles.js';
import { COMMUNITIES, type CommunityDoc } from '../../projections/communities.js';
import { DEVELOPERS, type DeveloperDoc } from '../../projections/developers.js';
import { PROJECT_RESOURCES, type ProjectResourcesDoc } from '../../projections/projectResources.js';
import { PROJECTS, type BedroomType, type ProjectDoc } from '../../projections/projects.js';
import { BROCHURE_LABELS, BROCHURE_LOCALES, type BrochureLabels } from './brochureLabels.js';
import { MAP_VIEW, type MapImages } from './mapImage.js';

/** A picture ready to print: its bytes inlined, so the page loads nothing. */
export interface BrochureImage {
  /** A data: URI. */
  src: string;
  width: number;
  height: number;
}

export interface KeyFact {
  label: string;
  value: string;
}

export interface BrochureFloorPlan {
  title: string;
  unitType: string | null;
  area: string | null;
  price: string | null;
  image: BrochureImage | null;
}

export interface BrochurePaymentPlan {
  name: string;
  milestones: Array<{ label: string; percent: string; due: string }>;
  total: string;
}

export interface BrochureAgent {
  name: string;
  company: string;
  phone: string;
  email: string;
  whatsapp: string | null;
  portrait: BrochureImage | null;
}

export interface BrochureLocation {
  /** "25.0800° N, 55.1400° E"; null when the project has no coordinates. */
  coordinates: string | null;
  map: BrochureImage | null;
  placeName: string;
  nearby: Array<{ name: string; category: string; distance: string }>;
}

/** Everything a design prints, in the request's language and currency; no design reads a store. */
export interface BrochureModel {
  template: PdfTemplate;
  language: PdfLanguage;
  direction: 'ltr' | 'rtl';
  labels: BrochureLabels;
  sections: ReadonlySet<PdfSection>;
  name: string;
  /** Community (and developer) in one line, for the cover. */
  tagline: string;
  developerName: string | null;
  developerLogo: BrochureImage | null;
  hero: BrochureImage | null;
  priceFrom: string;
  bedroomsLabel: string | null;
  statusLabel: string;
  handoverLabel: string | null;
  keyFacts: KeyFact[];
  overview: string[];
  gallery: Array<{ image: BrochureImage; caption: string | null }>;
  floorPlans: BrochureFloorPlan[];
  paymentPlans: BrochurePaymentPlan[];
  amenities: string[];
  location: BrochureLocation;
  /** The agent of the request: its own page when the section is asked for, and a line on the branding page. */
  agent: BrochureAgent | null;
  brandingPage: boolean;
}

/** The project of a request is gone from the read models (deleted since the request was checked). */
export class BrochureProjectNotFound extends Error {
  constructor(readonly projectId: number) {
    super(`project ${projectId} is not in the read models`);
    this.name = 'BrochureProjectNotFound';
  }
}

export interface BrochureSources {
  readStore: ReadStore;
  blobStore: BlobStore;
  derivatives: ImageDerivatives;
  maps: MapImages;
}

/** Gallery pictures after the hero: two spreads' worth keeps a brochure light enough to e-mail. */
const GALLERY_LIMIT = 6;
const FLOOR_PLAN_LIMIT = 12;
const OVERVIEW_CHARACTERS = 2_400;

/**
 * How many pixels wide each kind of picture is printed: what its place on an A4 page needs at about 170-200 dpi
 * (a full-bleed cover 210 mm, a floor plan at most 166 x 90 mm, a portrait 70 mm, a logo 20-24 mm high), and
 * the gallery's 800 px as before. Chromium's print time grows with the pixels it is given, not the ones it prints.
 */
const PRINT_WIDTHS = { cover: 1400, gallery: 800, floorPlan: 1000, portrait: 600, logo: 600 } as const;

/**
 * The name a picture's print copy is linked under in the blob store, beside the stored width it is made from:
 * a JPEG, which Chromium puts into the PDF as it is.
 */
const printVariant = (width: number): string => `print-jpeg-w${width}-q84`;

async function readBlob(blobStore: BlobStore, sha256: string): Promise<Buffer | null> {
  const stream = await blobStore.open(sha256);
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The picture `width` pixels wide (or narrower, never enlarged) as a JPEG data: URI. A WebP (or PNG) would be
 * decoded by Chromium and written into the PDF as raw pixels, deflated: several times the bytes and most of the
 * print time. The JPEG is made once from the smallest stored WebP width that covers `width` and kept beside it
 * in the blob store.
 */
async function inlineImage(sources: BrochureSources, ref: ImageRef | null, width: number): Promise<BrochureImage | null> {
  if (!ref) return null;
  const { blobStore } = sources;
  const storedWidth = IMAGE_WIDTHS.find((candidate) => candidate >= width) ?? DEFAULT_IMAGE_WIDTH;
  const derived = await sources.derivatives.derivative(ref.key, storedWidth);
  if (!derived) return null;
  const variant = printVariant(width);
  const kept = await blobStore.findVariant(derived.sha256, variant);
  let jpeg = kept && (await readBlob(blobStore, kept.sha256));
  if (!jpeg) {
    const webp = await readBlob(blobStore, derived.sha256);
    if (!webp) return null;
    jpeg = await sharp(webp)
      .resize({ width, withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 84, mozjpeg: true })
      .toBuffer();
    const stored = await blobStore.put(Readable.from([jpeg]), { contentType: 'image/jpeg' });
    await blobStore.linkVariant(derived.sha256, variant, stored.sha256);
  }
  const printedWidth = Math.min(width, ref.width);
  return {
    src: `data:image/jpeg;base64,${jpeg.toString('base64')}`,
    width: printedWidth,
    height: Math.round((ref.height * printedWidth) / ref.width),
  };
}

const pngImage = (png: Buffer, width: number, height: number): BrochureImage => ({
  src: `data:image/png;base64,${png.toString('base64')}`,
  width,
  height,
});

function bedroomsLabel(types: readonly BedroomType[], labels: BrochureLabels): string | null {
  const counts = types.flatMap((type) => (type.bedrooms === null ? [] : [type.bedrooms]));
  if (counts.length === 0) return null;
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  const orMore = types.some((type) => type.kind === 'bedrooms_or_more' && type.bedrooms === max);
  const maxLabel = max === 0 ? labels.studio : labels.bedroomCount(max, orMore);
  if (min === max) return maxLabel;
  return `${min === 0 ? labels.studio : String(min)} – ${maxLabel}`;
}

/** Overview paragraphs, cut at a sentence near the length one page holds. */
function overviewParagraphs(project: ProjectDoc): string[] {
  const text = (project.overview.trim() || project.description.trim()).slice(0, OVERVIEW_CHARACTERS);
  const paragraphs = text.split(/\n\s*\n|\r?\n/).map((paragraph) => paragraph.trim());
  return paragraphs.filter((paragraph) => paragraph.length > 0);
}

function coordinatesText(latitude: number, longitude: number): string {
  const part = (value: number, positive: string, negative: string) => `${Math.abs(value).toFixed(4)}° ${value >= 0 ? positive : negative}`;
  return `${part(latitude, 'N', 'S')}, ${part(longitude, 'E', 'W')}`;
}

/**
 * Reads the project and what it names from the read models and makes the plain data a design prints:
 * labels in the request's language, prices converted to its currency, floor plans and prices of the unit
 * types asked for, pictures inlined as data: URIs and the location map drawn (or its fallback).
 */
export async function buildBrochureModel(request: BrochureRequest, sources: BrochureSources): Promise<BrochureModel> {
  const { readStore } = sources;
  const project = await readStore.get<ProjectDoc>(PROJECTS, request.projectId);
  if (!project || project.deleted) throw new BrochureProjectNotFound(request.projectId);
  const [resources, developer, community, agentProfile] = await Promise.all([
    readStore.get<ProjectResourcesDoc>(PROJECT_RESOURCES, project.id),
    readStore.get<DeveloperDoc>(DEVELOPERS, project.developer_id),
    readStore.get<CommunityDoc>(COMMUNITIES, project.community_id),
    request.agentProfileId === null ? null : readStore.get<AgentProfileDoc>(AGENT_PROFILES, request.agentProfileId),
  ]);
  const sections = new Set(request.sections);
  const labels = BROCHURE_LABELS[request.language];
  const locale = BROCHURE_LOCALES[request.language];
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: request.currency.code, maximumFractionDigits: 0 });
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const price = (amount: number) => money.format(amount * request.currency.rate);

  const wanted = request.unitTypeIds === null ? null : new Set(request.unitTypeIds);
  const unitTypes = project.bedroom_types.filter((type) => wanted === null || wanted.has(type.id));
  const unitTypeName = new Map(project.bedroom_types.map((type) => [type.id, type.name]));
  const floorPlanItems = (resources?.floor_plans ?? []).filter(
    (plan) => wanted === null || (plan.unit_type_id !== null && wanted.has(plan.unit_type_id)),
  );
  const planPrices = floorPlanItems.flatMap((plan) => (plan.price === null ? [] : [plan.price]));
  // Restricted to some unit types, the project's own "from" price may belong to another type: only their plans' prices count.
  const lowest = wanted === null ? project.starting_from : planPrices.length > 0 ? Math.min(...planPrices) : null;

  const area = (value: number | string | null) =>
    value === null ? null : typeof value === 'number' ? `${number.format(value)} sq ft` : value;
  const handover = project.completion_date
    ? new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(project.completion_date))
    : null;
  const areaRange = [area(project.area_from), area(project.area_to)].filter((value): value is string => value !== null);
  const bedrooms = bedroomsLabel(unitTypes, labels);

  const galleryItems = resources?.media.items ?? [];
  const wantsGallery = sections.has('gallery');
  const wantsFloorPlans = sections.has('floor_plans');
  const location = project.location.latitude !== null && project.location.longitude !== null ? project.location : null;
  const [hero, developerLogo, gallery, floorPlans, portrait, map] = await Promise.all([
    inlineImage(sources, galleryItems[0]?.image ?? null, PRINT_WIDTHS.cover),
    inlineImage(sources, developer?.logo ?? null, PRINT_WIDTHS.logo),
    wantsGallery
      ? Promise.all(galleryItems.slice(1, 1 + GALLERY_LIMIT).map((item) => inlineImage(sources, item.image, PRINT_WIDTHS.gallery)))
      : Promise.resolve([]),
    wantsFloorPlans
      ? Promise.all(floorPlanItems.slice(0, FLOOR_PLAN_LIMIT).map((plan) => inlineImage(sources, plan.image, PRINT_WIDTHS.floorPlan)))
      : Promise.resolve([]),
    sections.has('agent') && agentProfile ? inlineImage(sources, agentProfile.picture, PRINT_WIDTHS.portrait) : Promise.resolve(null),
    sections.has('location') && location
      ? sources.maps.mapAround({ latitude: location.latitude!, longitude: location.longitude! })
      : Promise.resolve(null),
  ]);

  const keyFacts: KeyFact[] = [
    { label: labels.priceFrom, value: lowest === null ? labels.priceOnRequest : price(lowest) },
    ...(bedrooms ? [{ label: labels.bedrooms, value: bedrooms }] : []),
    { label: labels.status, value: `${labels.statuses[project.status]} · ${labels.natures[project.nature]}` },
    ...(handover ? [{ label: labels.handover, value: handover }] : []),
    ...(developer ? [{ label: labels.developer, value: developer.name }] : []),
    ...(community ? [{ label: labels.community, value: community.name }] : []),
    ...(areaRange.length > 0 ? [{ label: labels.area, value: areaRange.join(' – ') }] : []),
    ...(project.down_payment_percent === null
      ? []
      : [{ label: labels.downPayment, value: `${number.format(project.down_payment_percent)}%` }]),
    ...(project.service_charges ? [{ label: labels.serviceCharges, value: project.service_charges }] : []),
    ...(project.project_types.length > 0 ? [{ label: labels.propertyTypes, value: project.project_types.join(', ') }] : []),
  ];

  return {
    template: request.template,
    language: request.language,
    direction: request.language === 'ar' ? 'rtl' : 'ltr',
    labels,
    sections,
    name: project.name,
    tagline: [community?.name, developer?.name].filter((part): part is string => Boolean(part)).join(' · '),
    developerName: developer?.name ?? null,
    developerLogo,
    hero,
    priceFrom: lowest === null ? labels.priceOnRequest : price(lowest),
    bedroomsLabel: bedrooms,
    statusLabel: labels.statuses[project.status],
    handoverLabel: handover,
    keyFacts,
    overview: overviewParagraphs(project),
    gallery: gallery.flatMap((image, index) => (image ? [{ image, caption: galleryItems[index + 1]?.caption ?? null }] : [])),
    floorPlans: floorPlanItems.slice(0, floorPlans.length).map((plan, index) => ({
      title: plan.title,
      unitType: plan.unit_type_id === null ? null : (unitTypeName.get(plan.unit_type_id) ?? null),
      area: area(plan.area),
      price: plan.price === null ? null : price(plan.price),
      image: floorPlans[index] ?? null,
    })),
    paymentPlans: (resources?.payment_plans ?? []).map((plan) => ({
      name: plan.name,
      milestones: plan.milestones.map((milestone) => ({
        label: milestone.label,
        percent: `${number.format(milestone.percent)}%`,
        due: milestone.due ?? '',
      })),
      total: `${number.format(plan.milestones.reduce((sum, milestone) => sum + milestone.percent, 0))}%`,
    })),
    amenities: (resources?.amenities ?? []).map((amenity) => amenity.name),
    location: {
      coordinates: location ? coordinatesText(location.latitude!, location.longitude!) : null,
      map: map && pngImage(map, MAP_VIEW.width, MAP_VIEW.height),
      placeName: community?.name ?? '',
      nearby: (resources?.nearby ?? []).slice(0, 8).map((place) => ({
        name: place.name,
        category: place.category,
        distance: `${number.format(place.distance_km)} ${labels.km}`,
      })),
    },
    agent:
      agentProfile && !agentProfile.deleted
        ? {
            name: agentProfile.agent_name,
            company: agentProfile.company_name,
            phone: agentProfile.phone,
            email: agentProfile.email,
            whatsapp: agentProfile.whatsapp,
            portrait,
          }
        : null,
    brandingPage: request.brandingPage,
  };
}
