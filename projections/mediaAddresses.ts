import { assertNever } from '../src/domain/decider.js';
import type { AgentProfileEvent } from '../src/access/agentProfile.js';
import type { CommunityEvent } from '../src/catalogue/community.js';
import type { DeveloperEvent } from '../src/catalogue/developer.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import type { ProjectEventOf } from '../src/catalogue/project.js';
import {
  alreadyApplied,
  APPLIED,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';
import type { Doc, ReadStore } from '../src/readStore/readStore.js';

export const MEDIA_ADDRESSES = 'media_addresses';
/** Which owner's document holds a media id's address: read by id, so an address is found without a search. */
export const MEDIA_ADDRESS_OWNERS = 'media_address_owners';

/**
 * A picture an address names. `slot` tells which picture of the media id it is: empty for every media id that
 * shows one picture; a floor plate's title for `floor-plate-{project}`, whose plates all share the media id.
 */
export interface AddressedImage {
  slot: string;
  key: string;
  content_type: ImageRef['content_type'];
  width: number;
  height: number;
}

/** A key the media id showed before; its addresses redirect to the current picture of the same slot. */
export interface EarlierImage {
  slot: string;
  key: string;
  content_type: ImageRef['content_type'];
}

/**
 * The image addresses of one media id (`{base}/media/{media_id}/{key}...`): the pictures it shows now, none
 * once removed or its project deleted, and the keys it showed before.
 */
export interface MediaAddress {
  current: AddressedImage[];
  /** In the order the keys were left; a key is never both current and earlier. */
  earlier: EarlierImage[];
}

/**
 * The image addresses of one owning record: a project (its gallery pictures, floor plans, floor plates and
 * video thumbnail), a developer (logo), a community (banner) or an agent profile (portrait). One document
 * per owner rather than per media id: a rebuild writes a project's document about once per batch however
 * many of its pictures the batch adds, and a project's deletion finds every address of it in one place.
 */
export interface MediaAddressesDoc extends PositionedDoc {
  /** See ownerId. */
  _id: string;
  /**
   * The media ids as they appear in addresses: a gallery picture's media id ("42"), or its owner's form
   * (queries/representations.ts, queries/projectResources.ts): `developer-{id}`, `community-{id}`,
   * `floor-plan-{id}`, `floor-plate-{project}`, `video-{project}`, `agent-profile-{id}`. Each has a
   * MediaAddressOwnerDoc naming this document.
   */
  media_ids: string[];
  /** addresses[i] is the address of media_ids[i]. */
  addresses: MediaAddress[];
}

/**
 * A media id's owning record, written when the id is first recorded and kept (its document keeps the id, with
 * no current pictures, once they are removed): an address reads this, then the owner's document, both by id.
 */
export interface MediaAddressOwnerDoc extends Doc {
  /** The media id. */
  _id: string;
  /** The MediaAddressesDoc's `_id`. */
  owner: string;
}

type Owner = 'project' | 'developer' | 'community' | 'agent-profile';
/** The document of an owning record: `project-{id}`, `developer-{id}`, `community-{id}`, `agent-profile-{id}`. */
const ownerId = (owner: Owner, id: number): string => `${owner}-${id}`;

/** The address of a media id as its document holds it; null when the document has none. */
export function addressIn(doc: MediaAddressesDoc | null, mediaId: string): MediaAddress | null {
  const index = doc ? doc.media_ids.indexOf(mediaId) : -1;
  return index === -1 ? null : doc!.addresses[index]!;
}

/** The address of a media id, read by id through its owner; null for one never recorded. */
export async function mediaAddressOf(readStore: Pick<ReadStore, 'get'>, mediaId: string): Promise<MediaAddress | null> {
  const owner = await readStore.get<MediaAddressOwnerDoc>(MEDIA_ADDRESS_OWNERS, mediaId);
  return owner && addressIn(await readStore.get<MediaAddressesDoc>(MEDIA_ADDRESSES, owner.owner), mediaId);
}

export const galleryMediaId = (mediaId: number): string => String(mediaId);
export const developerMediaId = (developerId: number): string => `developer-${developerId}`;
export const communityMediaId = (communityId: number): string => `community-${communityId}`;
export const floorPlanMediaId = (floorPlanId: number): string => `floor-plan-${floorPlanId}`;
export const floorPlateMediaId = (projectId: number): string => `floor-plate-${projectId}`;
export const videoMediaId = (projectId: number): string => `video-${projectId}`;
export const agentProfileMediaId = (agentProfileId: number): string => `agent-profile-${agentProfileId}`;

/** The picture a request for `key` of this media id gets, if any. */
export type KeyResolution =
  { kind: 'current'; image: AddressedImage } | { kind: 'earlier'; earlier: EarlierImage; current: AddressedImage } | { kind: 'unknown' };

/**
 * A current key is served; an earlier key leads to the picture now in its slot; a key never shown, or one
 * whose slot is empty now (removed, project deleted), is unknown.
 */
export function resolveKey(address: MediaAddress | null, key: string): KeyResolution {
  if (!address) return { kind: 'unknown' };
  const image = address.current.find((candidate) => candidate.key === key);
  if (image) return { kind: 'current', image };
  const earlier = address.earlier.find((candidate) => candidate.key === key);
  const current = earlier && address.current.find((candidate) => candidate.slot === earlier.slot);
  return earlier && current ? { kind: 'earlier', earlier, current } : { kind: 'unknown' };
}

type SlottedImage = { slot: string; image: ImageRef };

const SINGLE = '';
const single = (image: ImageRef | null): SlottedImage[] => (image ? [{ slot: SINGLE, image }] : []);

/** The address once it shows `images`: the keys it stops showing become earlier keys. */
function showing(current: MediaAddress | null, images: readonly SlottedImage[]): MediaAddress {
  const next: AddressedImage[] = images.map(({ slot, image }) => ({
    slot,
    key: image.key,
    content_type: image.content_type,
    width: image.width,
    height: image.height,
  }));
  // A media id's first pictures, the common case, have nothing to leave.
  if (!current || (current.current.length === 0 && current.earlier.length === 0)) return { current: next, earlier: [] };
  const shown = new Set(next.map((image) => image.key));
  const left = current.current.filter((image) => !shown.has(image.key));
  const leftKeys = new Set(left.map((image) => image.key));
  const earlier: EarlierImage[] = [
    ...current.earlier.filter((image) => !shown.has(image.key) && !leftKeys.has(image.key)),
    // The same picture on two plates leaves once.
    ...left
      .filter((image, index) => left.findIndex((other) => other.key === image.key) === index)
      .map(({ slot, key, content_type }) => ({ slot, key, content_type })),
  ];
  return { current: next, earlier };
}

type ImageProjectEvent = ProjectEventOf<
  | 'ProjectDeleted'
  | 'FloorPlanAdded'
  | 'FloorPlanImageReplaced'
  | 'FloorPlanRemoved'
  | 'GalleryPictureAdded'
  | 'GalleryPictureReplaced'
  | 'GalleryPictureRemoved'
  | 'VideoSet'
  | 'VideoRemoved'
  | 'FloorPlatesSet'
>;
type ImageOwnerEvent = Extract<
  DeveloperEvent | CommunityEvent,
  { type: 'DeveloperCreated' | 'DeveloperRevised' | 'CommunityCreated' | 'CommunityRevised' }
>;
type AgentPictureEvent = Extract<
  AgentProfileEvent,
  { type: 'AgentProfileCreated' | 'AgentProfilePictureReplaced' | 'AgentProfilePictureRemoved' | 'AgentProfileDeleted' }
>;
export type MediaAddressEvent = ImageProjectEvent | ImageOwnerEvent | AgentPictureEvent;

interface Change {
  /** The owner's document (ownerId). */
  owner: string;
  mediaId: string;
  /** What the media id shows afterwards. */
  images: SlottedImage[];
  /** Changes a media id already recorded only: like the aggregate, a replacement or removal of an item never added changes nothing. */
  onlyIfKnown?: boolean;
}

/** The media id an event changes and what it shows afterwards; `undefined` when the event leaves it alone. */
function change(event: Recorded<Exclude<MediaAddressEvent, ProjectEventOf<'ProjectDeleted'>>>): Change | undefined {
  switch (event.type) {
    case 'DeveloperCreated': {
      const id = event.data.developer_id;
      return { owner: ownerId('developer', id), mediaId: developerMediaId(id), images: single(event.data.logo) };
    }
    case 'DeveloperRevised': {
      const { logo } = event.data.changes;
      const id = event.data.developer_id;
      return logo === undefined ? undefined : { owner: ownerId('developer', id), mediaId: developerMediaId(id), images: single(logo) };
    }
    case 'CommunityCreated': {
      const id = event.data.community_id;
      return { owner: ownerId('community', id), mediaId: communityMediaId(id), images: single(event.data.banner) };
    }
    case 'CommunityRevised': {
      const { banner } = event.data.changes;
      const id = event.data.community_id;
      return banner === undefined ? undefined : { owner: ownerId('community', id), mediaId: communityMediaId(id), images: single(banner) };
    }
    case 'AgentProfileCreated': {
      const id = event.data.agent_profile_id;
      return { owner: ownerId('agent-profile', id), mediaId: agentProfileMediaId(id), images: single(event.data.picture) };
    }
    case 'AgentProfilePictureReplaced': {
      const id = event.data.agent_profile_id;
      return {
        owner: ownerId('agent-profile', id),
        mediaId: agentProfileMediaId(id),
        images: single(event.data.picture),
        onlyIfKnown: true,
      };
    }
    // A deleted profile's portrait leaves its addresses, as a deleted project's pictures do.
    case 'AgentProfilePictureRemoved':
    case 'AgentProfileDeleted': {
      const id = event.data.agent_profile_id;
      return { owner: ownerId('agent-profile', id), mediaId: agentProfileMediaId(id), images: [], onlyIfKnown: true };
    }
    case 'FloorPlanAdded': {
      const { floor_plan } = event.data;
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: floorPlanMediaId(floor_plan.floor_plan_id),
        images: single(floor_plan.image),
      };
    }
    case 'FloorPlanImageReplaced':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: floorPlanMediaId(event.data.floor_plan_id),
        images: single(event.data.image),
        onlyIfKnown: true,
      };
    case 'FloorPlanRemoved':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: floorPlanMediaId(event.data.floor_plan_id),
        images: [],
        onlyIfKnown: true,
      };
    case 'GalleryPictureAdded': {
      const { picture } = event.data;
      return { owner: ownerId('project', event.data.project_id), mediaId: galleryMediaId(picture.media_id), images: single(picture.image) };
    }
    case 'GalleryPictureReplaced':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: galleryMediaId(event.data.media_id),
        images: single(event.data.image),
        onlyIfKnown: true,
      };
    case 'GalleryPictureRemoved':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: galleryMediaId(event.data.media_id),
        images: [],
        onlyIfKnown: true,
      };
    case 'VideoSet':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: videoMediaId(event.data.project_id),
        images: single(event.data.video.thumbnail),
      };
    case 'VideoRemoved':
      return { owner: ownerId('project', event.data.project_id), mediaId: videoMediaId(event.data.project_id), images: [] };
    case 'FloorPlatesSet':
      return {
        owner: ownerId('project', event.data.project_id),
        mediaId: floorPlateMediaId(event.data.project_id),
        images: event.data.items.flatMap((plate) => (plate.image ? [{ slot: plate.title, image: plate.image }] : [])),
      };
    default:
      return assertNever(event);
  }
}

/** A copy whose arrays are its own, to change in place (the addresses in them are shared and replaced, never changed). */
const ownCopy = (doc: MediaAddressesDoc | null): MediaAddressesDoc | null =>
  doc && {
    _id: doc._id,
    media_ids: [...doc.media_ids],
    addresses: [...doc.addresses],
    _position: doc._position,
  };

/** An owner's document before its first picture. */
const emptyDoc = (owner: string): MediaAddressesDoc => ({ _id: owner, media_ids: [], addresses: [], _position: 0 });

/**
 * Applies the event to its owner's document as it stands (null before its first picture); `changed` is
 * undefined for a project's deletion. The document was just answered by peek or get, so its draft is made
 * at once (see ProjectionContext.draftKnown).
 */
function applyTo(
  event: Recorded<MediaAddressEvent>,
  owner: string,
  changed: Change | undefined,
  current: MediaAddressesDoc | null,
  ctx: ProjectionContext,
): void {
  if (alreadyApplied(current, event)) return;
  if (!changed) {
    if (!current) return;
    const doc = ctx.draftKnown<MediaAddressesDoc>(MEDIA_ADDRESSES, owner, ownCopy)!;
    doc.addresses = doc.addresses.map((address) => showing(address, []));
    doc._position = positionNumber(event);
    return;
  }
  const index = current ? current.media_ids.indexOf(changed.mediaId) : -1;
  if (index === -1 && changed.onlyIfKnown) return;
  // The stored document's copy is made by a function made once, not by a closure per event.
  const doc = current
    ? ctx.draftKnown<MediaAddressesDoc>(MEDIA_ADDRESSES, owner, ownCopy)!
    : ctx.draftKnown<MediaAddressesDoc>(MEDIA_ADDRESSES, owner, () => emptyDoc(owner))!;
  if (index === -1) {
    doc.media_ids.push(changed.mediaId);
    doc.addresses.push(showing(null, changed.images));
    // A pure set, the same however often the event is applied.
    ctx.put(MEDIA_ADDRESS_OWNERS, { _id: changed.mediaId, owner } satisfies MediaAddressOwnerDoc);
  } else {
    doc.addresses[index] = showing(doc.addresses[index]!, changed.images);
  }
  doc._position = positionNumber(event);
}

/** The event once the unit of work has read its owner's document from the store. */
async function applyAfterReading(
  event: Recorded<MediaAddressEvent>,
  owner: string,
  changed: Change | undefined,
  ctx: ProjectionContext,
): Promise<void> {
  applyTo(event, owner, changed, await ctx.get<MediaAddressesDoc>(MEDIA_ADDRESSES, owner), ctx);
}

/**
 * What each image address (`{base}/media/{media_id}/{key}...`, queries/mediaFiles.ts) shows: every picture the
 * catalogue holds (gallery, floor plans, floor plates, video thumbnails, developer logos, community banners,
 * agent portraits), one document per owning record, found by the media id its addresses carry. Pictures of
 * unpublished projects keep their addresses: an address never expires, and its key, the picture's SHA-256,
 * cannot be guessed.
 */
export const mediaAddressesProjection: Projection<MediaAddressEvent> = {
  name: 'mediaAddresses',
  // 5: each media id's owner is its own document, read by id, instead of a multikey index on media_ids.
  version: 5,
  collections: [MEDIA_ADDRESSES, MEDIA_ADDRESS_OWNERS],
  indexes: {},
  handles: everyEventType<MediaAddressEvent>({
    DeveloperCreated: true,
    DeveloperRevised: true,
    CommunityCreated: true,
    CommunityRevised: true,
    AgentProfileCreated: true,
    AgentProfilePictureReplaced: true,
    AgentProfilePictureRemoved: true,
    AgentProfileDeleted: true,
    ProjectDeleted: true,
    FloorPlanAdded: true,
    FloorPlanImageReplaced: true,
    FloorPlanRemoved: true,
    GalleryPictureAdded: true,
    GalleryPictureReplaced: true,
    GalleryPictureRemoved: true,
    VideoSet: true,
    VideoRemoved: true,
    FloorPlatesSet: true,
  }),
  apply(event, ctx) {
    try {
      let changed: Change | undefined;
      let owner: string;
      if (event.type === 'ProjectDeleted') {
        owner = ownerId('project', event.data.project_id);
      } else {
        changed = change(event);
        if (!changed) return APPLIED;
        owner = changed.owner;
      }
      const current = ctx.peek<MediaAddressesDoc>(MEDIA_ADDRESSES, owner);
      if (current === undefined) return applyAfterReading(event, owner, changed, ctx);
      applyTo(event, owner, changed, current, ctx);
      return APPLIED;
    } catch (error) {
      return Promise.reject(error);
    }
  },
};
