import type { KeyEnvironment } from '../../src/access/accessContext.js';
import { apiKeyStream, type ApiKeyEvent } from '../../src/access/apiKey.js';
import { clientStream, type ClientEvent, type ClientFields } from '../../src/access/client.js';
import { planStream, type PlanEvent, type PlanFields } from '../../src/access/plan.js';
import { subscriptionStream } from '../../src/access/subscription.js';
import { communityStream, type CommunityEvent } from '../../src/catalogue/community.js';
import { developerStream, type DeveloperEvent } from '../../src/catalogue/developer.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import {
  projectStream,
  type ProjectEventOf,
  type ProjectEventType,
  type ProjectFields,
  type ProjectStatus,
} from '../../src/catalogue/project.js';
import { stateStream, type StateEvent } from '../../src/catalogue/state.js';
import { subCommunityStream, type SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import { unitTypeStream, type UnitTypeEvent } from '../../src/catalogue/unitType.js';
import type { DomainEvent, EventStore } from '../../src/eventStore/eventStore.js';

/** The fields a `...Created` event sets, without the id and time stamp the builders fill in. */
type CreatedFields<Event extends DomainEvent, Type extends Event['type'], Stamp extends string> = Omit<
  Extract<Event, { type: Type }>['data'],
  Stamp | 'at'
>;
type StateRegionFields = CreatedFields<StateEvent, 'StateCreated', 'state_id'>;
type CommunityFields = CreatedFields<CommunityEvent, 'CommunityCreated', 'community_id'>;
type SubCommunityFields = CreatedFields<SubCommunityEvent, 'SubCommunityCreated', 'sub_community_id'>;
type DeveloperFields = CreatedFields<DeveloperEvent, 'DeveloperCreated', 'developer_id'>;
type UnitTypeFields = CreatedFields<UnitTypeEvent, 'UnitTypeCreated', 'unit_type_id'>;

/** An event and the stream it belongs to, built with the real event types of src/catalogue. */
export interface StreamEvent {
  stream: string;
  event: DomainEvent;
}

export const T0 = Date.parse('2025-01-01T00:00:00.000Z');
/** A moment `minutes` after T0, as the ISO string events carry. */
export const minute = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

export function imageRef(key: string): ImageRef {
  return { key, file_name: `${key}.jpg`, content_type: 'image/jpeg', width: 1600, height: 1200, size_bytes: 120_000 };
}

export function stateCreated(id: number, fields: Partial<StateRegionFields> = {}, at = minute(0)): StreamEvent {
  const event: StateEvent = {
    type: 'StateCreated',
    data: { state_id: id, name: `State ${id}`, slug: `state-${id}`, country_code: 'AE', ...fields, at },
  };
  return { stream: stateStream(id), event };
}

export function stateEvent(event: StateEvent): StreamEvent {
  return { stream: stateStream(event.data.state_id), event };
}

export function communityCreated(id: number, fields: Partial<CommunityFields> = {}, at = minute(0)): StreamEvent {
  const event: CommunityEvent = {
    type: 'CommunityCreated',
    data: {
      community_id: id,
      state_id: 1,
      name: `Community ${id}`,
      slug: `community-${id}`,
      description: '',
      banner: null,
      location: null,
      ...fields,
      at,
    },
  };
  return { stream: communityStream(id), event };
}

export function communityEvent(event: CommunityEvent): StreamEvent {
  return { stream: communityStream(event.data.community_id), event };
}

export function subCommunityCreated(id: number, fields: Partial<SubCommunityFields> = {}, at = minute(0)): StreamEvent {
  const event: SubCommunityEvent = {
    type: 'SubCommunityCreated',
    data: {
      sub_community_id: id,
      community_id: 1,
      name: `Sub-community ${id}`,
      slug: `sub-community-${id}`,
      description: '',
      ...fields,
      at,
    },
  };
  return { stream: subCommunityStream(id), event };
}

export function subCommunityEvent(event: SubCommunityEvent): StreamEvent {
  return { stream: subCommunityStream(event.data.sub_community_id), event };
}

export function developerCreated(id: number, fields: Partial<DeveloperFields> = {}, at = minute(0)): StreamEvent {
  const event: DeveloperEvent = {
    type: 'DeveloperCreated',
    data: {
      developer_id: id,
      name: `Developer ${id}`,
      slug: `developer-${id}`,
      description: '',
      website: null,
      logo: null,
      established_year: null,
      ...fields,
      at,
    },
  };
  return { stream: developerStream(id), event };
}

export function developerEvent(event: DeveloperEvent): StreamEvent {
  return { stream: developerStream(event.data.developer_id), event };
}

export function unitTypeCreated(id: number, fields: UnitTypeFields, at = minute(0)): StreamEvent {
  const event: UnitTypeEvent = { type: 'UnitTypeCreated', data: { unit_type_id: id, ...fields, at } };
  return { stream: unitTypeStream(id), event };
}

export function unitTypeEvent(event: UnitTypeEvent): StreamEvent {
  return { stream: unitTypeStream(event.data.unit_type_id), event };
}

export function planDefined(id: number, fields: Partial<PlanFields> = {}, at = minute(0)): StreamEvent {
  const event: PlanEvent = {
    type: 'PlanDefined',
    data: { plan_id: id, key: `plan-${id}`, name: `Plan ${id}`, scopes: ['projects:read'], entitlements: [], active: true, ...fields, at },
  };
  return { stream: planStream(id), event };
}

export function planEvent(event: PlanEvent): StreamEvent {
  return { stream: planStream(event.data.plan_id), event };
}

export function clientRegistered(id: number, fields: Partial<ClientFields> = {}, at = minute(0)): StreamEvent {
  const event: ClientEvent = {
    type: 'ClientRegistered',
    data: { client_id: id, name: `Client ${id}`, plan_id: 1, scopes: null, entitlements: null, ...fields, at },
  };
  return { stream: clientStream(id), event };
}

export function clientEvent(event: ClientEvent): StreamEvent {
  return { stream: clientStream(event.data.client_id), event };
}

/** A stand-in for a key's SHA-256 hex, one per key id. */
export const keyHashOf = (apiKeyId: number): string => apiKeyId.toString(16).padStart(64, '0');

export function apiKeyIssued(id: number, clientId: number, environment: KeyEnvironment = 'live', at = minute(0)): StreamEvent {
  const event: ApiKeyEvent = {
    type: 'ApiKeyIssued',
    data: {
      api_key_id: id,
      client_id: clientId,
      environment,
      key_hash: keyHashOf(id),
      hint: `svc_${environment}_k${String(id).padStart(3, '0')}…`,
      at,
    },
  };
  return { stream: apiKeyStream(id), event };
}

export function apiKeyEvent(event: ApiKeyEvent): StreamEvent {
  return { stream: apiKeyStream(event.data.api_key_id), event };
}

/** Unit type ids of `referenceCatalogue()`. */
export const UNIT = { studio: 1, oneBedroom: 2, twoBedrooms: 3, threeBedrooms: 4, sixPlus: 5, office: 6, retail: 7 } as const;

/** States 1-2, communities 1-3, sub-communities 1-2, developers 1-2 and the unit types of UNIT. */
export function referenceCatalogue(): StreamEvent[] {
  return [
    stateCreated(1, { name: 'Dubai', slug: 'dubai' }),
    stateCreated(2, { name: 'Abu Dhabi', slug: 'abu-dhabi' }),
    communityCreated(1, { state_id: 1, name: 'Dubai Marina', slug: 'dubai-marina' }),
    communityCreated(2, { state_id: 1, name: 'Downtown Dubai', slug: 'downtown-dubai' }),
    communityCreated(3, { state_id: 2, name: 'Yas Island', slug: 'yas-island' }),
    subCommunityCreated(1, { community_id: 1, name: 'Marina Walk', slug: 'marina-walk' }),
    subCommunityCreated(2, { community_id: 2, name: 'Opera District', slug: 'opera-district' }),
    developerCreated(1, { name: 'Emaar Properties', slug: 'emaar' }),
    developerCreated(2, { name: 'Aldar', slug: 'aldar' }),
    unitTypeCreated(UNIT.studio, { name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 }),
    unitTypeCreated(UNIT.oneBedroom, { name: '1 Bedroom', kind: 'bedrooms', bedrooms: 1, sort_order: 10 }),
    unitTypeCreated(UNIT.twoBedrooms, { name: '2 Bedrooms', kind: 'bedrooms', bedrooms: 2, sort_order: 20 }),
    unitTypeCreated(UNIT.threeBedrooms, { name: '3 Bedrooms', kind: 'bedrooms', bedrooms: 3, sort_order: 30 }),
    unitTypeCreated(UNIT.sixPlus, { name: '6+ Bedrooms', kind: 'bedrooms_or_more', bedrooms: 6, sort_order: 60 }),
    unitTypeCreated(UNIT.office, { name: 'Office', kind: 'other', bedrooms: null, sort_order: 100 }),
    unitTypeCreated(UNIT.retail, { name: 'Retail', kind: 'other', bedrooms: null, sort_order: 110 }),
  ];
}

export function projectFields(id: number, overrides: Partial<ProjectFields> = {}): ProjectFields {
  return {
    name: `Project ${id}`,
    slug: `project-${id}`,
    developer_id: 1,
    state_id: 1,
    community_id: 1,
    sub_community_id: null,
    nature: 'off_plan',
    unit_type_ids: [UNIT.oneBedroom, UNIT.twoBedrooms],
    starting_from: 1_000_000 + id,
    currency: 'AED',
    location: { latitude: 25.08, longitude: 55.14 },
    map_embed_html: null,
    area_from: 650.4,
    area_to: '1,234.6 sq ft',
    completion_date: '2027-12-31',
    overview: 'Overview',
    description: 'Description',
    master_plan: '',
    property_no: `P-${id}`,
    license_no: `L-${id}`,
    project_types: ['Apartments'],
    video_description: '',
    down_payment_percent: 20,
    service_charges: null,
    ...overrides,
  };
}

/** Any project event with its stamp (project_id, at) filled in. */
export function projectEvent<Type extends ProjectEventType>(
  type: Type,
  projectId: number,
  data: Omit<ProjectEventOf<Type>['data'], 'project_id' | 'at'>,
  at = minute(0),
): StreamEvent {
  const event = { type, data: { project_id: projectId, ...data, at } } as DomainEvent;
  return { stream: projectStream(projectId), event };
}

export function projectCreated(
  id: number,
  overrides: Partial<ProjectFields> = {},
  at = minute(0),
  status: ProjectStatus = 'under_construction',
): StreamEvent {
  return projectEvent('ProjectCreated', id, { ...projectFields(id, overrides), status }, at);
}

/** Appends the events in order, one append per run of events of one stream; the position of the last. */
export async function appendEvents(eventStore: EventStore, events: readonly StreamEvent[]): Promise<bigint> {
  let position = 0n;
  let index = 0;
  while (index < events.length) {
    const stream = events[index]!.stream;
    const run: DomainEvent[] = [];
    while (index < events.length && events[index]!.stream === stream) run.push(events[index++]!.event);
    const appended = await eventStore.appendToStream(
      stream,
      run.map(({ type, data }) => ({ type, data, metadata: { actor: 'test' } })),
      { expectedRevision: 'any' },
    );
    position = appended.position;
  }
  return position;
}

/** Deterministic pseudo-random numbers (mulberry32), so generated histories repeat exactly. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A busy catalogue history: the reference catalogue, then `projects` projects that each receive a mix of
 * every kind of project event, interleaved with renames of developers and communities, revisions of unit
 * types (bedrooms, names, order), a community moving state, publications and slug changes, and plans,
 * clients and API keys changing. Every event type any projection handles occurs in it (when `projects` >= 9).
 * The same seed gives the same history.
 */
export function catalogueHistory(options: { projects: number; seed?: number; editsPerProject?: number }): StreamEvent[] {
  const random = randomSource(options.seed ?? 42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const editsPerProject = options.editsPerProject ?? 12;
  let clock = 0;
  const tick = () => minute(++clock);
  const history = referenceCatalogue();
  const residentialSets = [
    [UNIT.studio],
    [UNIT.studio, UNIT.oneBedroom, UNIT.twoBedrooms],
    [UNIT.oneBedroom, UNIT.sixPlus],
    [UNIT.twoBedrooms],
    [UNIT.office, UNIT.retail],
    [UNIT.threeBedrooms, UNIT.office],
  ];
  let nextItemId = 1;
  const floorPlans = new Map<number, number[]>();
  const paymentPlans = new Map<number, number[]>();
  const pictures = new Map<number, number[]>();
  const deleted = new Set<number>();

  const EDIT_KINDS = 26;
  const projectEdit = (projectId: number, kind = Math.floor(random() * EDIT_KINDS)): StreamEvent => {
    const at = tick();
    const plans = floorPlans.get(projectId)!;
    const payments = paymentPlans.get(projectId)!;
    const gallery = pictures.get(projectId)!;
    switch (kind) {
      case 0:
        return projectEvent(
          'ProjectRevised',
          projectId,
          { changes: { name: `Project ${projectId} ${pick(['Heights', 'Residences', 'Gardens'])}` } },
          at,
        );
      case 1:
        return projectEvent(
          'ProjectRevised',
          projectId,
          {
            changes: {
              unit_type_ids: pick(residentialSets),
              area_from: pick([512.5, '1,499.5 sq ft', null]),
              starting_from: Math.round(random() * 5e6),
            },
          },
          at,
        );
      case 2:
        return projectEvent(
          'ProjectRevised',
          projectId,
          { changes: { developer_id: pick([1, 2]), community_id: pick([1, 2, 3]), location: null } },
          at,
        );
      case 3:
        return projectEvent('ProjectPublished', projectId, {}, at);
      case 4:
        return projectEvent('ProjectUnpublished', projectId, {}, at);
      case 5:
        return projectEvent(
          'ProjectStatusChanged',
          projectId,
          { status: pick(['completed', 'sold_out'] as const), previous_status: 'under_construction' },
          at,
        );
      case 6: {
        const id = nextItemId++;
        plans.push(id);
        return projectEvent(
          'FloorPlanAdded',
          projectId,
          {
            floor_plan: {
              floor_plan_id: id,
              title: `Plan ${id}`,
              unit_type_id: UNIT.twoBedrooms,
              area: pick([980.6, '1,020.4 sq ft']),
              price: null,
              image: imageRef(`fp${id}`),
            },
          },
          at,
        );
      }
      case 7:
        return plans.length > 0
          ? projectEvent(
              'FloorPlanRevised',
              projectId,
              { floor_plan_id: pick(plans), changes: { title: 'Revised plan', area: 1001.5 } },
              at,
            )
          : projectEvent('ProjectPublished', projectId, {}, at);
      case 8:
        return plans.length > 0
          ? projectEvent('FloorPlanImageReplaced', projectId, { floor_plan_id: pick(plans), image: imageRef(`fp-new-${clock}`) }, at)
          : projectEvent('ProjectUnpublished', projectId, {}, at);
      case 9:
        return plans.length > 0
          ? projectEvent('FloorPlanRemoved', projectId, { floor_plan_id: plans.splice(0, 1)[0]! }, at)
          : projectEvent('ProjectPublished', projectId, {}, at);
      case 10: {
        const id = nextItemId++;
        payments.push(id);
        return projectEvent(
          'PaymentPlanAdded',
          projectId,
          {
            payment_plan: {
              payment_plan_id: id,
              name: `Plan ${id}`,
              milestones: [
                { label: 'Booking', percent: 20, due: null },
                { label: 'Handover', percent: 80, due: 'On handover' },
              ],
            },
          },
          at,
        );
      }
      case 11:
        return payments.length > 0
          ? projectEvent('PaymentPlanRevised', projectId, { payment_plan_id: pick(payments), changes: { name: 'Easy plan' } }, at)
          : projectEvent('ProjectPublished', projectId, {}, at);
      case 12:
        return payments.length > 0
          ? projectEvent('PaymentPlanRemoved', projectId, { payment_plan_id: payments.splice(0, 1)[0]! }, at)
          : projectEvent('ProjectUnpublished', projectId, {}, at);
      case 13: {
        const id = nextItemId++;
        gallery.push(id);
        return projectEvent(
          'GalleryPictureAdded',
          projectId,
          { picture: { media_id: id, caption: null, position: Math.floor(random() * 5), image: imageRef(`g${id}`) } },
          at,
        );
      }
      case 14:
        return gallery.length > 0
          ? projectEvent(
              'GalleryPictureRevised',
              projectId,
              { media_id: pick(gallery), changes: { position: Math.floor(random() * 5), caption: 'Lobby' } },
              at,
            )
          : projectEvent('ProjectPublished', projectId, {}, at);
      case 15:
        return gallery.length > 0
          ? projectEvent('GalleryPictureReplaced', projectId, { media_id: pick(gallery), image: imageRef(`g-new-${clock}`) }, at)
          : projectEvent('ProjectUnpublished', projectId, {}, at);
      case 16:
        return gallery.length > 0
          ? projectEvent('GalleryPictureRemoved', projectId, { media_id: gallery.splice(0, 1)[0]! }, at)
          : projectEvent('ProjectPublished', projectId, {}, at);
      case 17:
        return random() < 0.5
          ? projectEvent(
              'MasterPlanDocumentAttached',
              projectId,
              { document: { key: `mp${clock}`, file_name: 'master.pdf', content_type: 'application/pdf', size_bytes: 1000 } },
              at,
            )
          : projectEvent('MasterPlanDocumentRemoved', projectId, {}, at);
      case 18:
        return random() < 0.6
          ? projectEvent(
              'VideoSet',
              projectId,
              {
                video: {
                  title: 'Tour',
                  description: null,
                  external_url: 'https://video.example/tour',
                  file: null,
                  thumbnail: imageRef(`v${clock}`),
                },
              },
              at,
            )
          : projectEvent('VideoRemoved', projectId, {}, at);
      case 19:
        return projectEvent(
          'AmenitiesSet',
          projectId,
          {
            items: [
              { name: 'Pool', icon: 'pool' },
              { name: 'Gym', icon: null },
            ].slice(0, 1 + Math.floor(random() * 2)),
          },
          at,
        );
      case 20:
        return projectEvent('NearbyPlacesSet', projectId, { items: [{ name: 'Metro', category: 'transport', distance_km: 0.4 }] }, at);
      case 21:
        return projectEvent('PaymentMethodsSet', projectId, { items: [{ name: 'Cheque', description: null }] }, at);
      case 22:
        return projectEvent('FaqsSet', projectId, { items: [{ question: 'Freehold?', answer: 'Yes' }] }, at);
      case 23:
        return random() < 0.5
          ? projectEvent('VirtualToursSet', projectId, { items: [{ title: '360', url: 'https://tour.example/360' }] }, at)
          : projectEvent('FloorPlatesSet', projectId, { items: [{ title: 'Typical', floors: '5-12', image: null }] }, at);
      case 24:
        return projectEvent('RelatedProjectsSet', projectId, { project_ids: projectId > 1 ? [projectId - 1] : [] }, at);
      default:
        return random() < 0.6
          ? projectEvent(
              'BrochureAttached',
              projectId,
              { brochure: { key: `b${clock}`, file_name: 'brochure.pdf', content_type: 'application/pdf', size_bytes: 2000 } },
              at,
            )
          : projectEvent('BrochureRemoved', projectId, {}, at);
    }
  };

  // Access: two plans, a client on each (the second with its own scopes), a key each; every round then
  // revises a plan, issues or revokes a key, moves a client or registers one.
  history.push(
    planDefined(1, { key: 'starter', scopes: ['projects:read', 'developers:read'], entitlements: ['images'] }),
    planDefined(2, {
      key: 'professional',
      scopes: ['projects:read', 'media:read', 'floorplans:read'],
      entitlements: ['images', 'floorplans'],
    }),
    clientRegistered(1, { plan_id: 1 }),
    clientRegistered(2, { plan_id: 2, scopes: ['projects:read'] }),
    apiKeyIssued(1, 1, 'live'),
    apiKeyIssued(2, 2, 'test'),
  );
  {
    const at = tick();
    const none = { domain: null, ip_allow: [], ip_deny: [] };
    history.push(
      clientEvent({ type: 'ClientStatusChanged', data: { client_id: 2, status: 'suspended', previous_status: 'active', at } }),
      clientEvent({ type: 'ClientStatusChanged', data: { client_id: 2, status: 'active', previous_status: 'suspended', at } }),
      clientEvent({
        type: 'ClientControlsSet',
        data: {
          client_id: 1,
          controls: { request_signing: true, environments: { live: { ...none, domain: 'portal.example.com' }, test: none } },
          at,
        },
      }),
      apiKeyEvent({ type: 'ApiKeyDeactivated', data: { api_key_id: 2, client_id: 2, at } }),
      apiKeyEvent({ type: 'ApiKeyReactivated', data: { api_key_id: 2, client_id: 2, at } }),
      {
        stream: subscriptionStream(2),
        event: {
          type: 'SubscriptionSet',
          data: {
            client_id: 2,
            status: 'active',
            period_start: at,
            period_end: null,
            trial_ends_at: null,
            payment_due_at: null,
            grace_days: 7,
            paid: true,
            at,
          },
        },
      },
      clientEvent({
        type: 'ClientRestrictionSet',
        data: {
          client_id: 2,
          restriction: {
            states: [
              { state_id: 1, community_ids: [] },
              { state_id: 2, community_ids: [3] },
            ],
          },
          at,
        },
      }),
      clientEvent({ type: 'EvaluationStarted', data: { client_id: 2, sample_project_ids: [1, 2, 3], at } }),
      clientEvent({ type: 'EvaluationPaused', data: { client_id: 2, at } }),
      clientEvent({ type: 'CommercialAccessActivated', data: { client_id: 2, reason: 'payment', at } }),
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id: 1, account_token: 'marina-homes', at } }),
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id: 2, account_token: 'client-two', at } }),
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id: 2, account_token: null, at } }),
      apiKeyIssued(10_000, 1, 'live', at),
      apiKeyEvent({ type: 'ApiKeyRotated', data: { api_key_id: 1, client_id: 1, successor_key_id: 10_000, rotation_ends_at: at, at } }),
    );
  }
  let clients = 2;
  let nextKeyId = 3;
  const activeKeys = new Map<number, number>([
    [1, 1],
    [2, 2],
  ]);
  const accessEdit = (round: number): StreamEvent => {
    const at = tick();
    switch (round % 5) {
      case 0:
        return planEvent({
          type: 'PlanRevised',
          data: {
            plan_id: 1 + (round % 2),
            changes: { scopes: round % 4 === 0 ? ['projects:read'] : ['projects:read', 'faqs:read'], active: round % 15 !== 0 },
            at,
          },
        });
      case 1: {
        const id = nextKeyId++;
        const clientId = 1 + (round % clients);
        activeKeys.set(id, clientId);
        return apiKeyIssued(id, clientId, round % 3 === 0 ? 'test' : 'live', at);
      }
      case 2: {
        const [id, clientId] = [...activeKeys][0]!;
        activeKeys.delete(id);
        return apiKeyEvent({ type: 'ApiKeyRevoked', data: { api_key_id: id, client_id: clientId, at } });
      }
      case 3:
        return clientEvent({
          type: 'ClientRevised',
          data: {
            client_id: 1 + (round % 2),
            changes: round % 4 === 3 ? { plan_id: 2, entitlements: ['images'] } : { plan_id: 1, entitlements: null },
            at,
          },
        });
      default:
        return clientRegistered(++clients, { plan_id: 1 + (round % 2) }, at);
    }
  };

  const referenceEdit = (round: number): StreamEvent[] => {
    const at = tick();
    switch (round % 9) {
      case 0:
        return [
          developerEvent({
            type: 'DeveloperRevised',
            data: { developer_id: pick([1, 2]), changes: { name: `Developer renamed ${round}` }, at },
          }),
        ];
      case 1:
        return [
          communityEvent({
            type: 'CommunityRevised',
            data: { community_id: pick([1, 2, 3]), changes: { name: `Community renamed ${round}` }, at },
          }),
        ];
      case 2:
        return [
          unitTypeEvent({
            type: 'UnitTypeRevised',
            data: { unit_type_id: UNIT.threeBedrooms, changes: { bedrooms: pick([3, 4]), sort_order: pick([30, 5]) }, at },
          }),
        ];
      case 3:
        return [communityEvent({ type: 'CommunityRevised', data: { community_id: 2, changes: { state_id: pick([1, 2]) }, at } })];
      case 4:
        return [
          developerEvent({ type: 'DeveloperPublished', data: { developer_id: pick([1, 2]), at } }),
          communityEvent({ type: 'CommunityPublished', data: { community_id: pick([1, 2, 3]), at } }),
          stateEvent({ type: 'StatePublished', data: { state_id: pick([1, 2]), at } }),
          subCommunityEvent({ type: 'SubCommunityPublished', data: { sub_community_id: pick([1, 2]), at } }),
        ];
      case 5:
        return [
          developerEvent({ type: 'DeveloperUnpublished', data: { developer_id: pick([1, 2]), at } }),
          communityEvent({ type: 'CommunityUnpublished', data: { community_id: pick([1, 2, 3]), at } }),
          stateEvent({ type: 'StateUnpublished', data: { state_id: pick([1, 2]), at } }),
          subCommunityEvent({ type: 'SubCommunityUnpublished', data: { sub_community_id: pick([1, 2]), at } }),
        ];
      case 6:
        return [
          stateEvent({ type: 'StateRevised', data: { state_id: 2, changes: { name: `Abu Dhabi ${round}` }, at } }),
          subCommunityEvent({
            type: 'SubCommunityRevised',
            data: { sub_community_id: 2, changes: { community_id: pick([2, 3]), name: `Opera ${round}` }, at },
          }),
        ];
      case 7:
        return [
          unitTypeEvent({
            type: 'UnitTypeRevised',
            data: { unit_type_id: UNIT.studio, changes: { name: pick(['Studio', 'Studio Apartment']) }, at },
          }),
        ];
      default:
        return [unitTypeCreated(100 + round, { name: `Type ${round}`, kind: 'other', bedrooms: null, sort_order: 200 + round }, at)];
    }
  };

  for (let projectId = 1; projectId <= options.projects; projectId++) {
    floorPlans.set(projectId, []);
    paymentPlans.set(projectId, []);
    pictures.set(projectId, []);
    history.push(
      projectCreated(
        projectId,
        { unit_type_ids: pick(residentialSets), developer_id: pick([1, 2]), community_id: pick([1, 2, 3]) },
        tick(),
      ),
    );
    // The first project goes through every kind of edit once, in order (adds before revisions).
    if (projectId === 1) for (let kind = 0; kind < EDIT_KINDS; kind++) history.push(projectEdit(1, kind));
    for (let edit = 0; edit < editsPerProject; edit++) {
      // Earlier projects keep being edited while new ones arrive; deleted ones accept nothing more.
      const edited = 1 + Math.floor(random() * projectId);
      if (!deleted.has(edited)) history.push(projectEdit(edited));
    }
    history.push(...referenceEdit(projectId), accessEdit(projectId));
    if (projectId % 4 === 0 && !deleted.has(projectId - 1)) {
      // A slug handed over: the earlier project gives it up, the new one takes it within a few events.
      const giver = projectId - 1;
      history.push(projectEvent('ProjectRevised', giver, { changes: { slug: `project-${giver}-renamed-${projectId}` } }, tick()));
      history.push(projectEvent('ProjectRevised', projectId, { changes: { slug: `project-${giver}` } }, tick()));
      history.push(projectEvent('ProjectRevised', giver, { changes: { name: `Project ${giver} again` } }, tick()));
    }
    if (projectId % 7 === 0 && !deleted.has(projectId - 2)) {
      deleted.add(projectId - 2);
      history.push(projectEvent('ProjectDeleted', projectId - 2, {}, tick()));
    }
  }
  return history;
}
