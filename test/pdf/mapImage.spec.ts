import nock from 'nock';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMapImages, MAP_VIEW, TILE_OUTAGE_WARNING_INTERVAL_MS, tilesAround, type MapImages } from '../../workers/pdf/mapImage.js';
import { capturingLogger, silentLogger } from '../support/projectionHarness.js';
import { brochureCatalogue, PROJECT_LOCATION, type BrochureCatalogue } from './builders.js';

const TILE_HOST = 'https://tiles.example.test';
const USER_AGENT = 'PropertyCatalogue/1.0 (+https://catalogue.example.test/contact)';
const TILE_PATH = /^\/15\/\d+\/\d+\.png$/;

const tilePng = () =>
  sharp({ create: { width: 256, height: 256, channels: 3, background: '#a3c9a8' } })
    .png()
    .toBuffer();

describe('location map from raster tiles', () => {
  let catalogue: BrochureCatalogue;
  let tile: Buffer;

  const mapImages = (timeoutMs = 2_000): MapImages =>
    createMapImages({
      blobStore: catalogue.blobStore,
      tiles: { urlTemplate: `${TILE_HOST}/{z}/{x}/{y}.png`, userAgent: USER_AGENT, timeoutMs },
      logger: silentLogger(),
    });

  beforeAll(async () => {
    catalogue = await brochureCatalogue();
    tile = await tilePng();
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => catalogue.close());

  it('when every tile arrives, then one PNG of the view is drawn, the tiles asked for with the User-Agent', async () => {
    const tiles = tilesAround(PROJECT_LOCATION).length;
    const server = nock(TILE_HOST, { reqheaders: { 'user-agent': USER_AGENT } })
      .get(TILE_PATH)
      .times(tiles)
      .reply(200, tile, { 'Content-Type': 'image/png' });

    const png = await mapImages().mapAround(PROJECT_LOCATION);

    expect(png).not.toBeNull();
    const metadata = await sharp(png!).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', MAP_VIEW.width, MAP_VIEW.height]);
    expect(server.isDone()).toBe(true);
  });

  it('when the same place is drawn again, then the kept map is used and no tile is fetched', async () => {
    const maps = mapImages();

    const png = await maps.mapAround(PROJECT_LOCATION);

    expect(png).not.toBeNull();
    expect(maps.tilesFetched).toBe(0);
  });

  it('when the tile server answers with an error status, then no map is drawn and none is kept', async () => {
    const place = { latitude: 24.4539, longitude: 54.3773 };
    nock(TILE_HOST).get(TILE_PATH).times(50).reply(503, 'busy');

    expect(await mapImages().mapAround(place)).toBeNull();

    nock.cleanAll();
    nock(TILE_HOST).get(TILE_PATH).times(50).reply(200, tile, { 'Content-Type': 'image/png' });
    expect(await mapImages().mapAround(place)).not.toBeNull();
  });

  it('when tiles do not arrive in time, then no map is drawn', async () => {
    nock(TILE_HOST).get(TILE_PATH).times(50).delay(1_000).reply(200, tile, { 'Content-Type': 'image/png' });

    const started = Date.now();
    expect(await mapImages(100).mapAround({ latitude: 51.5072, longitude: -0.1276 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('when the network is unreachable, then no map is drawn', async () => {
    expect(await mapImages().mapAround({ latitude: 48.8566, longitude: 2.3522 })).toBeNull();
  });

  it('when tiles stay unavailable over many maps, then one warning per interval counts them, without a stack, and their return is logged', async () => {
    const { logger, lines } = capturingLogger();
    let clock = Date.parse('2025-03-01T09:00:00.000Z');
    const maps = createMapImages({
      blobStore: catalogue.blobStore,
      tiles: { urlTemplate: `${TILE_HOST}/{z}/{x}/{y}.png`, userAgent: USER_AGENT, timeoutMs: 2_000 },
      logger,
      now: () => clock,
    });
    const place = (index: number) => ({ latitude: 40 + index / 100, longitude: 10 });
    const warnings = () => lines.filter((line) => line.msg === 'location map not drawn: tiles unavailable');

    for (let index = 0; index < 5; index++) expect(await maps.mapAround(place(index))).toBeNull();
    clock += TILE_OUTAGE_WARNING_INTERVAL_MS;
    expect(await maps.mapAround(place(5))).toBeNull();

    expect(warnings().map((line) => line.notDrawn)).toEqual([1, 5]);
    expect(warnings().every((line) => line.err === undefined && typeof line.reason === 'string')).toBe(true);
    expect(JSON.stringify(warnings())).not.toContain('    at ');

    nock(TILE_HOST).get(TILE_PATH).times(50).reply(200, tile, { 'Content-Type': 'image/png' });
    expect(await maps.mapAround(place(6))).not.toBeNull();
    expect(lines.filter((line) => line.msg === 'map tiles available again')).toHaveLength(1);
  });
});
