import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import type { Logger } from '../../src/logger.js';

/** Where the map's raster tiles come from and how they are asked for (OSM tile usage policy: a real User-Agent). */
export interface TileSource {
  /** `{z}`, `{x}` and `{y}` are replaced; the default is the OpenStreetMap tile server. */
  urlTemplate: string;
  userAgent: string;
  /** For the whole map: every tile it needs must have arrived by then. */
  timeoutMs: number;
}

export const OSM_TILE_URL_TEMPLATE = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
export const MAP_ATTRIBUTION = '© OpenStreetMap contributors';

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** The size and zoom every brochure's location map is drawn at: a street-level view, 2x for print. */
export const MAP_VIEW = { zoom: 15, width: 1400, height: 900 } as const;
const TILE_SIZE = 256;
/** Raised when the drawing changes (marker, size), so maps cached under the previous drawing are drawn again. */
const MAP_DRAWING_VERSION = 1;
const MAP_VARIANT = `location-map-v${MAP_DRAWING_VERSION}`;

export interface MapImages {
  /** The PNG of the map centred on `at` with its marker, or null when it cannot be drawn (tiles missing). */
  mapAround(at: Coordinates): Promise<Buffer | null>;
  /** Tile requests sent, for tests. */
  readonly tilesFetched: number;
}

interface TilePlacement {
  x: number;
  y: number;
  left: number;
  top: number;
}

/** Web Mercator: the pixel of the whole world's map at `zoom` that `at` falls on. */
function worldPixel(at: Coordinates, zoom: number): { x: number; y: number } {
  const scale = TILE_SIZE * 2 ** zoom;
  const latitude = Math.max(-85.05112878, Math.min(85.05112878, at.latitude));
  const sine = Math.sin((latitude * Math.PI) / 180);
  return {
    x: ((at.longitude + 180) / 360) * scale,
    y: (0.5 - Math.log((1 + sine) / (1 - sine)) / (4 * Math.PI)) * scale,
  };
}

/** The tiles covering the view centred on `at`, each with where its top-left corner lands on the view. */
export function tilesAround(at: Coordinates, view: { zoom: number; width: number; height: number } = MAP_VIEW): TilePlacement[] {
  const centre = worldPixel(at, view.zoom);
  const left = centre.x - view.width / 2;
  const top = centre.y - view.height / 2;
  const tilesPerSide = 2 ** view.zoom;
  const placements: TilePlacement[] = [];
  for (let y = Math.floor(top / TILE_SIZE); y * TILE_SIZE < top + view.height; y++) {
    if (y < 0 || y >= tilesPerSide) continue;
    for (let x = Math.floor(left / TILE_SIZE); x * TILE_SIZE < left + view.width; x++) {
      const wrapped = ((x % tilesPerSide) + tilesPerSide) % tilesPerSide;
      placements.push({ x: wrapped, y, left: Math.round(x * TILE_SIZE - left), top: Math.round(y * TILE_SIZE - top) });
    }
  }
  return placements;
}

export const tileUrl = (template: string, z: number, x: number, y: number): string =>
  template.replaceAll('{z}', String(z)).replaceAll('{x}', String(x)).replaceAll('{y}', String(y));

const MARKER_SVG = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="84" viewBox="0 0 64 84">
    <ellipse cx="32" cy="80" rx="12" ry="4" fill="rgba(0,0,0,0.25)"/>
    <path d="M32 2C16 2 4 14 4 30c0 21 28 50 28 50s28-29 28-50C60 14 48 2 32 2z" fill="#c8102e" stroke="#ffffff" stroke-width="4"/>
    <circle cx="32" cy="30" r="10" fill="#ffffff"/>
  </svg>`,
);

class TileUnavailable extends Error {}

/** While tiles stay unavailable, one warning per this long, with how many maps were not drawn since the last. */
export const TILE_OUTAGE_WARNING_INTERVAL_MS = 60_000;

/** A run of maps not drawn for want of tiles, from the first failure to the next map drawn. */
interface TileOutage {
  since: Date;
  warnedAt: number;
  notDrawnSinceWarning: number;
}

/**
 * Location maps from raster tiles, composed with sharp into one PNG with a marker at the centre. A composed
 * map is kept in the blob store, linked as a variant of a small blob that names what was drawn (tile source,
 * zoom, size, centre): the same place is drawn once, by any worker. A map with a tile missing (no network,
 * a timeout, an error status) is not drawn and not kept; the brochure prints the coordinates instead.
 */
export function createMapImages(options: { blobStore: BlobStore; tiles: TileSource; logger: Logger; now?: () => number }): MapImages {
  const { blobStore, tiles, logger } = options;
  const now = options.now ?? Date.now;
  let tilesFetched = 0;
  let outage: TileOutage | null = null;

  /** Without a network every render fails the same way: a warning (no stack) when an outage starts, then once per interval. */
  const tilesFailed = (error: unknown, at: Coordinates): void => {
    const time = now();
    if (outage && time - outage.warnedAt < TILE_OUTAGE_WARNING_INTERVAL_MS) {
      outage.notDrawnSinceWarning++;
      return;
    }
    const notDrawn = (outage?.notDrawnSinceWarning ?? 0) + 1;
    outage = { since: outage?.since ?? new Date(time), warnedAt: time, notDrawnSinceWarning: 0 };
    logger.warn(
      {
        reason: error instanceof Error ? error.message : String(error),
        latitude: at.latitude,
        longitude: at.longitude,
        notDrawn,
        since: outage.since.toISOString(),
      },
      'location map not drawn: tiles unavailable',
    );
  };

  const tilesBack = (): void => {
    if (!outage) return;
    logger.info({ notDrawnSinceWarning: outage.notDrawnSinceWarning, since: outage.since.toISOString() }, 'map tiles available again');
    outage = null;
  };

  const fetchTile = async (placement: TilePlacement, signal: AbortSignal): Promise<Buffer> => {
    tilesFetched++;
    const url = tileUrl(tiles.urlTemplate, MAP_VIEW.zoom, placement.x, placement.y);
    const response = await fetch(url, { headers: { 'User-Agent': tiles.userAgent, Accept: 'image/png,image/*' }, signal });
    if (!response.ok) throw new TileUnavailable(`tile ${url} answered ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  };

  const draw = async (at: Coordinates): Promise<Buffer> => {
    const signal = AbortSignal.timeout(tiles.timeoutMs);
    const placements = tilesAround(at);
    const images = await Promise.all(placements.map((placement) => fetchTile(placement, signal)));
    const layers = placements.map((placement, index) => ({ input: images[index]!, left: placement.left, top: placement.top }));
    // Tiles hang over the view's edges: composed on a canvas one tile larger on every side, then cut to the view.
    const margin = TILE_SIZE;
    const composed = await sharp({
      create: { width: MAP_VIEW.width + 2 * margin, height: MAP_VIEW.height + 2 * margin, channels: 3, background: '#e8e4dc' },
    })
      .composite(layers.map((layer) => ({ ...layer, left: layer.left + margin, top: layer.top + margin })))
      .png()
      .toBuffer();
    return sharp(composed)
      .extract({ left: margin, top: margin, width: MAP_VIEW.width, height: MAP_VIEW.height })
      .composite([{ input: MARKER_SVG, left: MAP_VIEW.width / 2 - 32, top: MAP_VIEW.height / 2 - 80 }])
      .png()
      .toBuffer();
  };

  const drawingName = (at: Coordinates): Buffer =>
    Buffer.from(
      JSON.stringify({
        map: MAP_VARIANT,
        tiles: tiles.urlTemplate,
        zoom: MAP_VIEW.zoom,
        width: MAP_VIEW.width,
        height: MAP_VIEW.height,
        latitude: Number(at.latitude.toFixed(6)),
        longitude: Number(at.longitude.toFixed(6)),
      }),
    );

  const readAll = async (sha256: string): Promise<Buffer | null> => {
    const stream = await blobStore.open(sha256);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  return {
    async mapAround(at) {
      const name = await blobStore.put(Readable.from([drawingName(at)]), { contentType: 'application/json' });
      const kept = await blobStore.findVariant(name.sha256, MAP_VARIANT);
      const keptPng = kept && (await readAll(kept.sha256));
      if (keptPng) return keptPng;
      let png: Buffer;
      try {
        png = await draw(at);
      } catch (error) {
        tilesFailed(error, at);
        return null;
      }
      tilesBack();
      const stored = await blobStore.put(Readable.from([png]), { contentType: 'image/png' });
      await blobStore.linkVariant(name.sha256, MAP_VARIANT, stored.sha256);
      return png;
    },
    get tilesFetched() {
      return tilesFetched;
    },
  };
}
