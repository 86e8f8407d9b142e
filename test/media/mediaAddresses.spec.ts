import { describe, expect, it } from 'vitest';
import {
  MEDIA_ADDRESS_OWNERS,
  MEDIA_ADDRESSES,
  mediaAddressesProjection,
  mediaAddressOf,
  resolveKey,
  type MediaAddressesDoc,
} from '../../projections/mediaAddresses.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import {
  communityEvent,
  developerEvent,
  imageRef,
  minute,
  projectCreated,
  projectEvent,
  referenceCatalogue,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

async function projected(events: StreamEvent[]) {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, mediaAddressesProjection, await recorded([...referenceCatalogue(), projectCreated(1), ...events]), 3);
  return readStore;
}

async function addresses(events: StreamEvent[]) {
  const readStore = await projected(events);
  return (mediaId: string) => mediaAddressOf(readStore, mediaId);
}

const png = (key: string): ImageRef => ({ ...imageRef(key), content_type: 'image/png', width: 300, height: 200 });
const picture = (mediaId: number, key: string) =>
  projectEvent('GalleryPictureAdded', 1, { picture: { media_id: mediaId, caption: null, position: 0, image: imageRef(key) } });

describe('media addresses read model', () => {
  it('when a gallery picture is added, then its media id shows its key, type and size', async () => {
    const doc = await (await addresses([picture(5, 'k1')]))('5');
    expect(doc).toEqual({ current: [{ slot: '', key: 'k1', content_type: 'image/jpeg', width: 1600, height: 1200 }], earlier: [] });
  });

  it("when a project's pictures are added, then one document of the project holds every media id of them", async () => {
    const readStore = await projected([
      picture(5, 'g5'),
      picture(6, 'g6'),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 3, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('fp') },
      }),
      projectCreated(2),
      projectEvent('GalleryPictureAdded', 2, { picture: { media_id: 7, caption: null, position: 0, image: imageRef('g7') } }),
    ]);
    const docs = (await readStore.find<MediaAddressesDoc>(MEDIA_ADDRESSES, { filter: { _id: { $in: ['project-1', 'project-2'] } } })).items;
    expect(docs.map(({ _id, media_ids }) => [_id, media_ids])).toEqual([
      ['project-1', ['5', '6', 'floor-plan-3']],
      ['project-2', ['7']],
    ]);
    expect((await mediaAddressOf(readStore, '6'))?.current.map((image) => image.key)).toEqual(['g6']);
    expect((await mediaAddressOf(readStore, 'floor-plan-3'))?.current.map((image) => image.key)).toEqual(['fp']);
    expect(await mediaAddressOf(readStore, '8')).toBeNull();
  });

  it("when media ids are first recorded, then each names its owner's document, read by id, and keeps it after removal", async () => {
    const readStore = await projected([
      picture(5, 'g5'),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 3, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('fp') },
      }),
      projectEvent('GalleryPictureRemoved', 1, { media_id: 5 }),
    ]);

    expect(await readStore.getMany(MEDIA_ADDRESS_OWNERS, ['5', 'floor-plan-3', 'developer-1', '8'])).toEqual([
      { _id: '5', owner: 'project-1' },
      { _id: 'floor-plan-3', owner: 'project-1' },
      { _id: 'developer-1', owner: 'developer-1' },
    ]);
    expect(await mediaAddressOf(readStore, '5')).toEqual({ current: [], earlier: [{ slot: '', key: 'g5', content_type: 'image/jpeg' }] });
  });

  it('when a picture is replaced twice, then both earlier keys lead to the current one', async () => {
    const doc = await (
      await addresses([
        picture(5, 'k1'),
        projectEvent('GalleryPictureReplaced', 1, { media_id: 5, image: png('k2') }),
        projectEvent('GalleryPictureReplaced', 1, { media_id: 5, image: imageRef('k3') }),
      ])
    )('5');
    expect(doc?.current.map((image) => image.key)).toEqual(['k3']);
    expect(doc?.earlier).toEqual([
      { slot: '', key: 'k1', content_type: 'image/jpeg' },
      { slot: '', key: 'k2', content_type: 'image/png' },
    ]);
    expect(resolveKey(doc, 'k1')).toMatchObject({ kind: 'earlier', current: { key: 'k3' } });
    expect(resolveKey(doc, 'k2')).toMatchObject({ kind: 'earlier', earlier: { content_type: 'image/png' }, current: { key: 'k3' } });
    expect(resolveKey(doc, 'k3')).toMatchObject({ kind: 'current', image: { key: 'k3' } });
    expect(resolveKey(doc, 'k4')).toEqual({ kind: 'unknown' });
  });

  it('when a picture is replaced by an earlier one, then that key is current again and no longer earlier', async () => {
    const doc = await (
      await addresses([
        picture(5, 'k1'),
        projectEvent('GalleryPictureReplaced', 1, { media_id: 5, image: imageRef('k2') }),
        projectEvent('GalleryPictureReplaced', 1, { media_id: 5, image: imageRef('k1') }),
      ])
    )('5');
    expect(doc?.current.map((image) => image.key)).toEqual(['k1']);
    expect(doc?.earlier.map((image) => image.key)).toEqual(['k2']);
  });

  it('when a picture is removed, then neither its key nor its earlier keys resolve', async () => {
    const doc = await (
      await addresses([
        picture(5, 'k1'),
        projectEvent('GalleryPictureReplaced', 1, { media_id: 5, image: imageRef('k2') }),
        projectEvent('GalleryPictureRemoved', 1, { media_id: 5 }),
      ])
    )('5');
    expect(doc?.current).toEqual([]);
    expect(resolveKey(doc, 'k1')).toEqual({ kind: 'unknown' });
    expect(resolveKey(doc, 'k2')).toEqual({ kind: 'unknown' });
  });

  it('when a picture that was never added is replaced or removed, then nothing is recorded for it', async () => {
    const find = await addresses([
      projectEvent('GalleryPictureReplaced', 1, { media_id: 9, image: imageRef('k1') }),
      projectEvent('FloorPlanImageReplaced', 1, { floor_plan_id: 9, image: imageRef('k2') }),
      projectEvent('FloorPlanRemoved', 1, { floor_plan_id: 9 }),
    ]);
    expect(await find('9')).toBeNull();
    expect(await find('floor-plan-9')).toBeNull();
  });

  it('when a project is deleted, then none of its pictures resolve and other projects keep theirs', async () => {
    const find = await addresses([
      picture(5, 'g'),
      projectEvent('FloorPlanAdded', 1, {
        floor_plan: { floor_plan_id: 3, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('fp') },
      }),
      projectEvent('VideoSet', 1, {
        video: { title: 'Tour', description: null, external_url: null, file: null, thumbnail: imageRef('v') },
      }),
      projectEvent('FloorPlatesSet', 1, { items: [{ title: 'Typical', floors: null, image: imageRef('plate') }] }),
      projectCreated(2),
      projectEvent('GalleryPictureAdded', 2, { picture: { media_id: 6, caption: null, position: 0, image: imageRef('other') } }),
      projectEvent('ProjectDeleted', 1, {}),
    ]);
    for (const [mediaId, key] of [
      ['5', 'g'],
      ['floor-plan-3', 'fp'],
      ['video-1', 'v'],
      ['floor-plate-1', 'plate'],
    ] as const) {
      const doc = await find(mediaId);
      expect(doc?.current).toEqual([]);
      expect(doc?.earlier.map((image) => image.key)).toEqual([key]);
    }
    expect(resolveKey(await find('6'), 'other')).toMatchObject({ kind: 'current' });
  });

  it('when floor plates are set again, then a plate keeps its slot by title and a dropped plate resolves no more', async () => {
    const doc = await (
      await addresses([
        projectEvent('FloorPlatesSet', 1, {
          items: [
            { title: 'Podium', floors: '1-4', image: imageRef('p1') },
            { title: 'Typical', floors: '5-12', image: imageRef('t1') },
            { title: 'Roof', floors: null, image: null },
          ],
        }),
        projectEvent('FloorPlatesSet', 1, {
          items: [
            { title: 'Typical', floors: '5-14', image: imageRef('t2') },
            { title: 'Roof', floors: null, image: imageRef('r1') },
          ],
        }),
      ])
    )('floor-plate-1');
    expect(doc?.current.map(({ slot, key }) => [slot, key])).toEqual([
      ['Typical', 't2'],
      ['Roof', 'r1'],
    ]);
    expect(resolveKey(doc, 't1')).toMatchObject({ kind: 'earlier', current: { key: 't2' } });
    expect(resolveKey(doc, 'p1')).toEqual({ kind: 'unknown' });
  });

  it('when a video loses its thumbnail, then the thumbnail key no longer resolves', async () => {
    const video = (thumbnail: ImageRef | null) =>
      projectEvent('VideoSet', 1, { video: { title: 'Tour', description: null, external_url: null, file: null, thumbnail } });
    const find = await addresses([video(imageRef('v1')), video(null)]);
    expect(resolveKey(await find('video-1'), 'v1')).toEqual({ kind: 'unknown' });
  });

  it('when a developer logo and a community banner are set, replaced and removed, then their owner media ids follow', async () => {
    const find = await addresses([
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { logo: imageRef('logo1') }, at: minute(1) } }),
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { name: 'Renamed' }, at: minute(2) } }),
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { logo: imageRef('logo2') }, at: minute(3) } }),
      communityEvent({ type: 'CommunityRevised', data: { community_id: 2, changes: { banner: imageRef('banner') }, at: minute(1) } }),
      communityEvent({ type: 'CommunityRevised', data: { community_id: 2, changes: { banner: null }, at: minute(2) } }),
    ]);
    const logo = await find('developer-1');
    expect(logo).toMatchObject({ current: [{ key: 'logo2' }] });
    expect(resolveKey(logo, 'logo1')).toMatchObject({ kind: 'earlier', current: { key: 'logo2' } });
    expect(await find('community-2')).toMatchObject({ current: [], earlier: [{ key: 'banner' }] });
    // Created without a picture: recorded, showing nothing.
    expect(await find('developer-2')).toMatchObject({ current: [], earlier: [] });
  });
});
