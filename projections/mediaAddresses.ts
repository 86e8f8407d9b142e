import { assertNever } from '../src/domain/decider.js';
import type { AgentProfileEvent } from '../src/access/agentProfile.js';
import type { CommunityEvent } from '../src/catalogue/community.js';
import type { DeveloperEvent } from '../src/catalogue/developer.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import type { ProjectEventOf } from '../src/catalogue/project.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const MEDIA_ADDRESSES = 'media_addresses';
/** Per project, the media ids of its pictures: what a project's deletion empties, found without a query. */
export const PROJECT_MEDIA_IDS = 'media_addresses_by_project';

interface ProjectMediaIdsDoc extends PositionedDoc {
  _id: number;
  media_ids: string[];
}

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
export interface MediaAddressDoc extends PositionedDoc {
  /**
   * The media id as it appears in addresses: a gallery picture's media id ("42"), or its owner's form
   * (queries/representations.ts, queries/projectResources.ts): `developer-{id}`, `community-{id}`,
   * `floor-plan-{id}`, `floor-plate-{project}`, `video-{project}`, `agent-profile-{id}`.
   */
  _id: string;
  /** The project whose deletion removes these pictures; null for developer logos, community banners and agent portraits. */
  project_id: number | null;
  current: AddressedImage[];
  /** In the order the keys were left; a key is never both current and earlier. */
  earlier: EarlierImage[];
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
export function resolveKey(doc: MediaAddressDoc | null, key: string): KeyResolution {
  if (!doc) return { kind: 'unknown' };
  const image = doc.current.find((candidate) => candidate.key === key);
  if (image) return { kind: 'current', image };
  const earlier = doc.earlier.find((candidate) => candidate.key === key);
  const current = earlier && doc.current.find((candidate) => candidate.slot === earlier.slot);
  return earlier && current ? { kind: 'earlier', earlier, current } : { kind: 'unknown' };
}

type SlottedImage = { slot: string; image: ImageRef };

const SINGLE = '';
const single = (image: ImageRef | null): SlottedImage[] => (image ? [{ slot: SINGLE, image }] : []);

/** The document once `mediaId` shows `images`: the keys it stops showing become earlier keys. */
function showing(
  current: MediaAddressDoc | null,
  mediaId: string,
  projectId: number | null,
  images: readonly SlottedImage[],
  position: number,
): MediaAddressDoc {
  const next: AddressedImage[] = images.map(({ slot, image }) => ({
    slot,
    key: image.key,
    content_type: image.content_type,
    width: image.width,
    height: image.height,
  }));
  const shown = new Set(next.map((image) => image.key));
  const left = (current?.current ?? []).filter((image) => !shown.has(image.key));
  const leftKeys = new Set(left.map((image) => image.key));
  const earlier: EarlierImage[] = [
    ...(current?.earlier ?? []).filter((image) => !shown.has(image.key) && !leftKeys.has(image.key)),
    // The same picture on two plates leaves once.
    ...left
      .filter((image, index) => left.findIndex((other) => other.key === image.key) === index)
      .map(({ slot, key, content_type }) => ({ slot, key, content_type })),
  ];
  return { _id: mediaId, project_id: projectId, current: next, earlier, _position: position };
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

/** The media id an event changes and what it shows afterwards; `undefined` when the event leaves it alone. */
function change(
  event: Recorded<Exclude<MediaAddressEvent, ProjectEventOf<'ProjectDeleted'>>>,
): { mediaId: string; projectId: number | null; images: SlottedImage[]; onlyIfKnown?: boolean } | undefined {
  switch (event.type) {
    case 'DeveloperCreated':
      return { mediaId: developerMediaId(event.data.developer_id), projectId: null, images: single(event.data.logo) };
    case 'DeveloperRevised': {
      const { logo } = event.data.changes;
      return logo === undefined ? undefined : { mediaId: developerMediaId(event.data.developer_id), projectId: null, images: single(logo) };
    }
    case 'CommunityCreated':
      return { mediaId: communityMediaId(event.data.community_id), projectId: null, images: single(event.data.banner) };
    case 'CommunityRevised': {
      const { banner } = event.data.changes;
      return banner === undefined
        ? undefined
        : { mediaId: communityMediaId(event.data.community_id), projectId: null, images: single(banner) };
    }
    case 'AgentProfileCreated':
      return { mediaId: agentProfileMediaId(event.data.agent_profile_id), projectId: null, images: single(event.data.picture) };
    case 'AgentProfilePictureReplaced':
      return {
        mediaId: agentProfileMediaId(event.data.agent_profile_id),
        projectId: null,
        images: single(event.data.picture),
        onlyIfKnown: true,
      };
    // A deleted profile's portrait leaves its addresses, as a deleted project's pictures do.
    case 'AgentProfilePictureRemoved':
    case 'AgentProfileDeleted':
      return { mediaId: agentProfileMediaId(event.data.agent_profile_id), projectId: null, images: [], onlyIfKnown: true };
    case 'FloorPlanAdded': {
      const { floor_plan } = event.data;
      return { mediaId: floorPlanMediaId(floor_plan.floor_plan_id), projectId: event.data.project_id, images: single(floor_plan.image) };
    }
    // Like the aggregate, a replacement or removal of an item that was never added changes nothing.
    case 'FloorPlanImageReplaced':
      return {
        mediaId: floorPlanMediaId(event.data.floor_plan_id),
        projectId: event.data.project_id,
        images: single(event.data.image),
        onlyIfKnown: true,
      };
    case 'FloorPlanRemoved':
      return { mediaId: floorPlanMediaId(event.data.floor_plan_id), projectId: event.data.project_id, images: [], onlyIfKnown: true };
    case 'GalleryPictureAdded': {
      const { picture } = event.data;
      return { mediaId: galleryMediaId(picture.media_id), projectId: event.data.project_id, images: single(picture.image) };
    }
    case 'GalleryPictureReplaced':
      return {
        mediaId: galleryMediaId(event.data.media_id),
        projectId: event.data.project_id,
        images: single(event.data.image),
        onlyIfKnown: true,
      };
    case 'GalleryPictureRemoved':
      return { mediaId: galleryMediaId(event.data.media_id), projectId: event.data.project_id, images: [], onlyIfKnown: true };
    case 'VideoSet':
      return { mediaId: videoMediaId(event.data.project_id), projectId: event.data.project_id, images: single(event.data.video.thumbnail) };
    case 'VideoRemoved':
      return { mediaId: videoMediaId(event.data.project_id), projectId: event.data.project_id, images: [] };
    case 'FloorPlatesSet':
      return {
        mediaId: floorPlateMediaId(event.data.project_id),
        projectId: event.data.project_id,
        images: event.data.items.flatMap((plate) => (plate.image ? [{ slot: plate.title, image: plate.image }] : [])),
      };
    default:
      return assertNever(event);
  }
}

async function applyProjectDeleted(event: Recorded<ProjectEventOf<'ProjectDeleted'>>, ctx: ProjectionContext): Promise<void> {
  const position = positionNumber(event);
  const listing = await ctx.get<ProjectMediaIdsDoc>(PROJECT_MEDIA_IDS, event.data.project_id);
  // Each document is checked on its own: a write interrupted half-way may have stored some of them already.
  for (const mediaId of listing?.media_ids ?? []) {
    const doc = await ctx.get<MediaAddressDoc>(MEDIA_ADDRESSES, mediaId);
    if (!doc || alreadyApplied(doc, event)) continue;
    ctx.put(MEDIA_ADDRESSES, showing(doc, doc._id, doc.project_id, [], position));
  }
}

/** Adds `mediaId` to its project's listing (a rebuild's lookups of it are answered from memory). */
async function listUnderProject(ctx: ProjectionContext, projectId: number, mediaId: string, position: number): Promise<void> {
  const listing = await ctx.get<ProjectMediaIdsDoc>(PROJECT_MEDIA_IDS, projectId);
  if (listing?.media_ids.includes(mediaId)) return;
  ctx.put(PROJECT_MEDIA_IDS, { _id: projectId, media_ids: [...(listing?.media_ids ?? []), mediaId], _position: position });
}

/**
 * What each image address (`{base}/media/{media_id}/{key}...`, queries/mediaFiles.ts) shows: every picture the
 * catalogue holds (gallery, floor plans, floor plates, video thumbnails, developer logos, community banners,
 * agent portraits) by the media id its addresses carry. Pictures of unpublished projects keep their addresses: an address
 * never expires, and its key, the picture's SHA-256, cannot be guessed.
 */
export const mediaAddressesProjection: Projection<MediaAddressEvent> = {
  name: 'mediaAddresses',
  version: 3,
  collections: [MEDIA_ADDRESSES, PROJECT_MEDIA_IDS],
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
  async apply(event, ctx) {
    if (event.type === 'ProjectDeleted') return applyProjectDeleted(event, ctx);
    const changed = change(event);
    if (!changed) return;
    const current = await ctx.get<MediaAddressDoc>(MEDIA_ADDRESSES, changed.mediaId);
    if (alreadyApplied(current, event)) return;
    if (!current && changed.onlyIfKnown) return;
    const position = positionNumber(event);
    if (!current && changed.projectId !== null) await listUnderProject(ctx, changed.projectId, changed.mediaId, position);
    ctx.put(MEDIA_ADDRESSES, showing(current, changed.mediaId, changed.projectId, changed.images, position));
  },
};
