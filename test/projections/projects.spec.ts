import { describe, expect, it } from 'vitest';
import { roundArea } from '../../projections/shared/apiShape.js';
import { PROJECT_RESOURCES, projectResourcesProjection, type ProjectResourcesDoc } from '../../projections/projectResources.js';
import { bedroomRange, PROJECTS, projectsProjection, type BedroomType, type ProjectDoc } from '../../projections/projects.js';
import type { Projection, ProjectionContext } from '../../src/projectionEngine/projection.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import {
  communityEvent,
  developerEvent,
  imageRef,
  minute,
  projectCreated,
  projectEvent,
  referenceCatalogue,
  unitTypeEvent,
  UNIT,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

/** An acceptable embed in canonical form, so it is stored and served as it is. */
const MAP_EMBED = '<iframe src="https://www.openstreetmap.org/export/embed.html?bbox=55.13%2C25.07%2C55.15%2C25.09"></iframe>';

async function projected(events: StreamEvent[]) {
  const readStore = createEmbeddedReadStore();
  const history = await recorded([...referenceCatalogue(), ...events]);
  await projectInBatches(readStore, projectsProjection, history, 10);
  await projectInBatches(readStore, projectResourcesProjection, history, 10);
  return {
    project: async (id: number) => (await readStore.get<ProjectDoc>(PROJECTS, id))!,
    resources: async (id: number) => (await readStore.get<ProjectResourcesDoc>(PROJECT_RESOURCES, id))!,
  };
}

const type = (id: number, name: string, bedrooms: number | null, kind: BedroomType['kind']): BedroomType => ({ id, name, bedrooms, kind });

describe('projects read model', () => {
  it('when a project is created, then its document carries the summary and detail fields in API shape', async () => {
    const { project } = await projected([
      projectCreated(1, { map_embed_html: MAP_EMBED, sub_community_id: 1, service_charges: 'AED 15/sq ft' }, minute(5)),
    ]);
    expect(await project(1)).toMatchObject({
      _id: 1,
      id: 1,
      slug: 'project-1',
      name: 'Project 1',
      developer_id: 1,
      state_id: 1,
      community_id: 1,
      sub_community_id: 1,
      nature: 'off_plan',
      status: 'under_construction',
      published: false,
      deleted: false,
      created_at: minute(5),
      updated_at: minute(5),
      starting_from: 1_000_001,
      currency: 'AED',
      bedrooms: ['2', '3'],
      location: { latitude: 25.08, longitude: 55.14 },
      map_embed_html: MAP_EMBED,
      area_from: 650,
      area_to: '1,235 sq ft',
      completion_date: '2027-12-31',
      overview: 'Overview',
      description: 'Description',
      master_plan: '',
      property_no: 'P-1',
      license_no: 'L-1',
      project_types: ['Apartments'],
      video_description: '',
      down_payment_percent: 20,
      service_charges: 'AED 15/sq ft',
      cover_image: null,
      media_count: 0,
      floor_plan_count: 0,
      payment_plan_count: 0,
      _search: 'project 1 project-1 emaar properties dubai marina',
    });
  });

  it('when a project has no coordinates, then location holds two nulls', async () => {
    const { project } = await projected([projectCreated(1, { location: null })]);
    expect((await project(1)).location).toEqual({ latitude: null, longitude: null });
  });

  it.each([
    [[UNIT.twoBedrooms, UNIT.studio, UNIT.oneBedroom], { min: 0, max: 2, max_or_more: false, label: 'Studio – 2 Bedrooms' }],
    [[UNIT.sixPlus, UNIT.oneBedroom], { min: 1, max: 6, max_or_more: true, label: '1 – 6+ Bedrooms' }],
    [[UNIT.studio, UNIT.sixPlus], { min: 0, max: 6, max_or_more: true, label: 'Studio – 6+ Bedrooms' }],
    [[UNIT.studio, UNIT.oneBedroom], { min: 0, max: 1, max_or_more: false, label: 'Studio – 1 Bedroom' }],
    [[UNIT.twoBedrooms, UNIT.threeBedrooms, UNIT.office], { min: 2, max: 3, max_or_more: false, label: '2 – 3 Bedrooms' }],
    [[UNIT.studio], { min: 0, max: 0, max_or_more: false, label: 'Studio' }],
    [[UNIT.oneBedroom], { min: 1, max: 1, max_or_more: false, label: '1 Bedroom' }],
    [[UNIT.twoBedrooms, UNIT.retail], { min: 2, max: 2, max_or_more: false, label: '2 Bedrooms' }],
    [[UNIT.sixPlus], { min: 6, max: 6, max_or_more: true, label: '6+ Bedrooms' }],
    [[UNIT.office, UNIT.retail], null],
    [[], null],
  ])('when the unit types are %j, then bedroom_range is %j', async (unitTypeIds, range) => {
    const { project } = await projected([projectCreated(1, { unit_type_ids: unitTypeIds })]);
    expect((await project(1)).bedroom_range).toEqual(range);
  });

  it('when a project names unit types, then bedrooms lists their ids as strings and bedroom_types orders them by sort order', async () => {
    const { project } = await projected([projectCreated(1, { unit_type_ids: [UNIT.office, UNIT.sixPlus, UNIT.studio, UNIT.twoBedrooms] })]);
    const doc = await project(1);
    expect(doc.bedrooms).toEqual(['6', '5', '1', '3']);
    expect(doc.bedroom_types).toEqual([
      type(UNIT.studio, 'Studio', 0, 'studio'),
      type(UNIT.twoBedrooms, '2 Bedrooms', 2, 'bedrooms'),
      type(UNIT.sixPlus, '6+ Bedrooms', 6, 'bedrooms_or_more'),
      type(UNIT.office, 'Office', null, 'other'),
    ]);
  });

  it('when a unit type is revised, then the projects naming it show the new name, count and order', async () => {
    const { project } = await projected([
      projectCreated(1, { unit_type_ids: [UNIT.oneBedroom, UNIT.threeBedrooms] }),
      projectCreated(2, { unit_type_ids: [UNIT.oneBedroom] }),
      unitTypeEvent({
        type: 'UnitTypeRevised',
        data: { unit_type_id: UNIT.threeBedrooms, changes: { name: '4 Bedrooms', bedrooms: 4, sort_order: 1 }, at: minute(9) },
      }),
    ]);
    const doc = await project(1);
    expect(doc.bedroom_types.map((bedroomType) => bedroomType.name)).toEqual(['4 Bedrooms', '1 Bedroom']);
    expect(doc.bedroom_range?.label).toBe('1 – 4 Bedrooms');
    expect(doc.updated_at).toBe(minute(0));
    expect((await project(2)).bedroom_types).toEqual([type(UNIT.oneBedroom, '1 Bedroom', 1, 'bedrooms')]);
  });

  it('when the developer or the community is renamed, then the search text of their projects follows', async () => {
    const { project } = await projected([
      projectCreated(1, { developer_id: 2, community_id: 3, name: 'Saadiyat Grove' }),
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 2, changes: { name: 'Aldar Properties' }, at: minute(3) } }),
      communityEvent({ type: 'CommunityRevised', data: { community_id: 3, changes: { name: 'Yas Bay' }, at: minute(4) } }),
    ]);
    expect((await project(1))._search).toBe('saadiyat grove project-1 aldar properties yas bay');
  });

  it('when a project is revised, then area, location and bedroom fields are reshaped and updated_at moves', async () => {
    const { project } = await projected([
      projectCreated(1),
      projectEvent(
        'ProjectRevised',
        1,
        {
          changes: {
            area_from: '1,499.5 - 2,000.4 sq ft',
            area_to: 2210.5,
            location: null,
            unit_type_ids: [UNIT.studio],
            slug: 'new-slug',
          },
        },
        minute(30),
      ),
    ]);
    expect(await project(1)).toMatchObject({
      area_from: '1,500 - 2,000 sq ft',
      area_to: 2211,
      location: { latitude: null, longitude: null },
      bedrooms: ['1'],
      bedroom_range: { min: 0, max: 0, max_or_more: false, label: 'Studio' },
      slug: 'new-slug',
      updated_at: minute(30),
      _search: 'project 1 new-slug emaar properties dubai marina',
    });
  });

  it('when gallery pictures come and go, then the cover image is the first by position and only image-less fields move', async () => {
    const { project } = await projected([
      projectCreated(1),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 11, caption: null, position: 2, image: imageRef('aaa') } }, minute(1)),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 12, caption: null, position: 1, image: imageRef('bbb') } }, minute(2)),
      projectEvent('GalleryPictureReplaced', 1, { media_id: 12, image: imageRef('ccc') }, minute(3)),
      projectEvent(
        'FloorPlanAdded',
        1,
        { floor_plan: { floor_plan_id: 21, title: 'A', unit_type_id: null, area: 1000.4, price: null, image: imageRef('fp') } },
        minute(4),
      ),
    ]);
    expect(await project(1)).toMatchObject({
      cover_image: { media_id: 12, key: 'ccc' },
      media_count: 2,
      floor_plan_count: 1,
      updated_at: minute(0),
    });
  });

  it('when a project is deleted, then it is flagged deleted and unpublished', async () => {
    const { project } = await projected([
      projectCreated(1),
      projectEvent('ProjectPublished', 1, {}, minute(1)),
      projectEvent('ProjectDeleted', 1, {}, minute(2)),
    ]);
    expect(await project(1)).toMatchObject({ deleted: true, published: false, updated_at: minute(2) });
  });
});

describe('project resources read model', () => {
  it('when related collections are edited, then the document holds each of them in API shape', async () => {
    const video = { title: 'Tour', description: null, external_url: 'https://video.example/t', file: null, thumbnail: null };
    const document = { key: 'mp', file_name: 'master.pdf', content_type: 'application/pdf' as const, size_bytes: 10 };
    const { resources } = await projected([
      projectCreated(1),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 22, title: 'B', unit_type_id: 3, area: '1,020.6 sq ft', price: 5, image: imageRef('b') },
      }),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 21, title: 'A', unit_type_id: null, area: 980.5, price: null, image: imageRef('a') },
      }),
      projectEvent('FloorPlanRevised', 1, { floor_plan_id: 21, changes: { area: 700.2 } }),
      projectEvent('PaymentPlanAdded', 1, {
        payment_plan: { payment_plan_id: 31, name: '60/40', milestones: [{ label: 'Booking', percent: 100, due: null }] },
      }),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 41, caption: 'Pool', position: 3, image: imageRef('p') } }),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 42, caption: null, position: 1, image: imageRef('q') } }),
      projectEvent('MasterPlanDocumentAttached', 1, { document }),
      projectEvent('VideoSet', 1, { video }),
      projectEvent('AmenitiesSet', 1, { items: [{ name: 'Gym', icon: null }] }),
      projectEvent('NearbyPlacesSet', 1, { items: [{ name: 'Metro', category: 'transport', distance_km: 1 }] }),
      projectEvent('PaymentMethodsSet', 1, { items: [{ name: 'Cash', description: null }] }),
      projectEvent('FaqsSet', 1, { items: [{ question: 'Q', answer: 'A' }] }),
      projectEvent('VirtualToursSet', 1, { items: [{ title: '360', url: 'https://tour.example' }] }),
      projectEvent('FloorPlatesSet', 1, { items: [{ title: 'Typical', floors: '2-9', image: null }] }),
      projectEvent('BrochureAttached', 1, { brochure: document }),
      projectEvent('RelatedProjectsSet', 1, { project_ids: [7, 8] }),
    ]);
    expect(await resources(1)).toMatchObject({
      project_id: 1,
      floor_plans: [
        { id: 21, title: 'A', unit_type_id: null, area: 700, price: null, image: imageRef('a') },
        { id: 22, title: 'B', unit_type_id: 3, area: '1,021 sq ft', price: 5, image: imageRef('b') },
      ],
      payment_plans: [{ id: 31, name: '60/40', milestones: [{ label: 'Booking', percent: 100, due: null }] }],
      media: {
        items: [
          { id: 42, caption: null, position: 1, image: imageRef('q') },
          { id: 41, caption: 'Pool', position: 3, image: imageRef('p') },
        ],
        master_plan_document: document,
      },
      video,
      amenities: [{ name: 'Gym', icon: null }],
      nearby: [{ name: 'Metro', category: 'transport', distance_km: 1 }],
      payment_methods: [{ name: 'Cash', description: null }],
      faqs: [{ question: 'Q', answer: 'A' }],
      virtual_tours: [{ title: '360', url: 'https://tour.example' }],
      floor_plates: [{ title: 'Typical', floors: '2-9', image: null }],
      brochure: document,
      related_project_ids: [7, 8],
    });
  });

  it('when pictures and plans are added, revised, replaced and removed in any order, then both documents list them as a full sort would', async () => {
    let seed = 11;
    const next = (range: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor(seed / 65_536) % range;
    };
    const pictures = new Map<number, { caption: string | null; position: number; key: string }>();
    const floorPlans = new Set<number>();
    const paymentPlans = new Set<number>();
    let floorPlanCount = 0;
    let paymentPlanCount = 0;
    const events: StreamEvent[] = [projectCreated(1)];
    for (let step = 1; step <= 120; step++) {
      const mediaId = 40 + next(8);
      const planId = 20 + next(5);
      const key = `k${step}`;
      switch (next(9)) {
        case 0:
        case 1:
        case 2: {
          const picture = { caption: next(2) === 0 ? null : `c${step}`, position: next(4), key };
          pictures.set(mediaId, picture);
          events.push(projectEvent('GalleryPictureAdded', 1, { picture: { media_id: mediaId, ...picture, image: imageRef(key) } }));
          break;
        }
        case 3: {
          const changes = next(2) === 0 ? { position: next(4) } : { caption: `r${step}`, position: next(4) };
          const picture = pictures.get(mediaId);
          if (picture) pictures.set(mediaId, { ...picture, ...changes });
          events.push(projectEvent('GalleryPictureRevised', 1, { media_id: mediaId, changes }));
          break;
        }
        case 4: {
          const picture = pictures.get(mediaId);
          if (picture) pictures.set(mediaId, { ...picture, key });
          events.push(projectEvent('GalleryPictureReplaced', 1, { media_id: mediaId, image: imageRef(key) }));
          break;
        }
        case 5:
          pictures.delete(mediaId);
          events.push(projectEvent('GalleryPictureRemoved', 1, { media_id: mediaId }));
          break;
        case 6:
          floorPlans.add(planId);
          floorPlanCount += 1;
          events.push(
            projectEvent('FloorPlanAdded', 1, {
              floor_plan: { floor_plan_id: planId, title: key, unit_type_id: null, area: null, price: null, image: imageRef(key) },
            }),
          );
          break;
        case 7:
          paymentPlans.add(planId);
          paymentPlanCount += 1;
          events.push(projectEvent('PaymentPlanAdded', 1, { payment_plan: { payment_plan_id: planId, name: key, milestones: [] } }));
          break;
        default:
          floorPlans.delete(planId);
          paymentPlans.delete(planId);
          floorPlanCount = Math.max(0, floorPlanCount - 1);
          paymentPlanCount = Math.max(0, paymentPlanCount - 1);
          events.push(projectEvent('FloorPlanRemoved', 1, { floor_plan_id: planId }));
          events.push(projectEvent('PaymentPlanRemoved', 1, { payment_plan_id: planId }));
      }
    }
    const { project, resources } = await projected(events);

    const gallery = [...pictures].map(([id, picture]) => ({ id, ...picture })).sort((a, b) => a.position - b.position || a.id - b.id);
    const byId = (a: number, b: number) => a - b;
    expect(gallery.length).toBeGreaterThan(2);
    expect(await project(1)).toMatchObject({
      _gallery: gallery.map(({ id, position, key }) => ({ media_id: id, position, key })),
      media_count: gallery.length,
      cover_image: { media_id: gallery[0]!.id, key: gallery[0]!.key },
      floor_plan_count: floorPlanCount,
      payment_plan_count: paymentPlanCount,
    });
    const stored = await resources(1);
    expect(stored.media.items).toEqual(gallery.map(({ id, caption, position, key }) => ({ id, caption, position, image: imageRef(key) })));
    expect(stored.floor_plans.map((plan) => plan.id)).toEqual([...floorPlans].sort(byId));
    expect(stored.payment_plans.map((plan) => plan.id)).toEqual([...paymentPlans].sort(byId));
  });

  it('when items are removed, then they leave the lists; removed video and brochure read null', async () => {
    const { resources } = await projected([
      projectCreated(1),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 21, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('a') },
      }),
      projectEvent('FloorPlanRemoved', 1, { floor_plan_id: 21 }),
      projectEvent('VideoSet', 1, { video: { title: 'T', description: null, external_url: null, file: null, thumbnail: null } }),
      projectEvent('VideoRemoved', 1, {}),
      projectEvent('BrochureAttached', 1, { brochure: { key: 'k', file_name: 'b.pdf', content_type: 'application/pdf', size_bytes: 1 } }),
      projectEvent('BrochureRemoved', 1, {}),
    ]);
    expect(await resources(1)).toMatchObject({ floor_plans: [], video: null, brochure: null });
  });
});

describe('projects and project resources applied without waiting', () => {
  it('when an edit fails before anything is awaited, then apply answers a rejected promise rather than throwing', async () => {
    const failing = {
      peek: () => {
        throw new Error('store gone');
      },
    } as unknown as ProjectionContext;
    const [event] = await recorded([projectEvent('FloorPlanRemoved', 1, { floor_plan_id: 21 })]);
    for (const projection of [projectsProjection, projectResourcesProjection] as Projection[]) {
      const applying = projection.apply(event!, failing);
      await expect(applying).rejects.toThrow('store gone');
    }
  });
});

describe('area rounding', () => {
  it.each([
    [650.4, 650],
    [650.5, 651],
    [1200, 1200],
    ['1,234.6 sq ft', '1,235 sq ft'],
    ['850.4 - 1200.5 sq ft', '850 - 1201 sq ft'],
    ['1,999.5 sq ft', '2,000 sq ft'],
    ['999.5', '1000'],
    ['1,200', '1,200'],
    ['From 75.25 m²', 'From 75 m²'],
    ['Ground floor', 'Ground floor'],
    [null, null],
  ])('when the area is %j, then it is shown as %j', (area, shown) => {
    expect(roundArea(area)).toEqual(shown);
  });
});

describe('bedroom range', () => {
  it('when only non-residential types are given, then there is no range', () => {
    expect(bedroomRange([type(9, 'Office', null, 'other')])).toBeNull();
  });
});
