import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { MEDIA_ADDRESSES, resolveKey, type MediaAddressDoc } from '../projections/mediaAddresses.js';
import type { BlobInfo, BlobStore } from '../src/blobStore/blobStore.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import { NotFound } from '../src/domain/errors.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { requestContextOf } from '../src/http/requestContext.js';
import { DEFAULT_IMAGE_WIDTH, SourceUnreadable, type ImageDerivatives, type ImageWidth } from '../src/media/imageDerivatives.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { sendBlob } from './blobResponses.js';

export interface MediaFilesDeps {
  readStore: ReadStore;
  blobs: BlobStore;
  derivatives: ImageDerivatives;
  /** Whether an account has this `account_token` (the `/media/c/{account_token}/...` addresses). */
  accountTokenExists(token: string): Promise<boolean>;
}

/** The exact address is immutable: its key is the bytes' SHA-256, and its width never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** An earlier key's redirect lasts only until the picture changes again. */
const REDIRECT = 'public, max-age=300';

const ORIGINAL_EXTENSIONS: Record<ImageRef['content_type'], string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

const mediaIdSchema = z.string().regex(/^(?:[1-9]\d{0,15}|(?:developer|community|floor-plan|floor-plate|video)-[1-9]\d{0,15})$/);
const fileSchema = z.string().regex(/^[0-9a-f]{64}(?:-(?:400|800|1600))?\.webp$|^[0-9a-f]{64}-original\.(?:jpg|png|webp)$/);
const addressSchema = z.object({ mediaId: mediaIdSchema, file: fileSchema }).strict();
const accountAddressSchema = z
  .object({ accountToken: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/), mediaId: mediaIdSchema, file: fileSchema })
  .strict();

/** What the last segment of an address asks for: a key and either a width or the original in a given format. */
type Requested = { key: string } & ({ width: ImageWidth } | { original: string });

function requestedFile(file: string): Requested {
  const key = file.slice(0, 64);
  const suffix = file.slice(64);
  if (suffix.startsWith('-original.')) return { key, original: suffix.slice('-original.'.length) };
  const width = /^-(\d+)\.webp$/.exec(suffix)?.[1];
  return { key, width: width === undefined ? DEFAULT_IMAGE_WIDTH : (Number(width) as ImageWidth) };
}

/** The same width of another key; the original in that key's own format. */
function fileFor(key: string, contentType: ImageRef['content_type'], requested: Requested): string {
  if ('original' in requested) return `${key}-original.${ORIGINAL_EXTENSIONS[contentType]}`;
  return requested.width === DEFAULT_IMAGE_WIDTH ? `${key}.webp` : `${key}-${requested.width}.webp`;
}

const unavailable = () => new NotFound('No picture is available at this address.');

/**
 * The blob to send for a current key, or null when its bytes are not stored (an address recorded before
 * files were stored, or bytes since lost): that is a missing picture, never a server error.
 */
async function servedBlob(res: Response, requested: Requested, deps: MediaFilesDeps): Promise<BlobInfo | null> {
  if ('original' in requested) return deps.blobs.stat(requested.key);
  try {
    return await deps.derivatives.derivative(requested.key, requested.width);
  } catch (error) {
    if (!(error instanceof SourceUnreadable)) throw error;
    requestContextOf(res).logger.error({ err: error, blob: requested.key }, 'a stored picture could not be rendered');
    return null;
  }
}

async function answer(req: Request, res: Response, mediaId: string, file: string, deps: MediaFilesDeps): Promise<void> {
  const requested = requestedFile(file);
  const doc = await deps.readStore.get<MediaAddressDoc>(MEDIA_ADDRESSES, mediaId);
  const resolution = resolveKey(doc, requested.key);
  if (resolution.kind === 'unknown') throw unavailable();
  const shown = resolution.kind === 'current' ? resolution.image : resolution.earlier;
  // An original is addressed in its own format only.
  if ('original' in requested && requested.original !== ORIGINAL_EXTENSIONS[shown.content_type]) throw unavailable();
  if (resolution.kind === 'earlier') {
    const { current } = resolution;
    // Relative to the request's own path (only the last segment changes), so it holds behind any proxy prefix.
    res.writeHead(307, { Location: fileFor(current.key, current.content_type, requested), 'Cache-Control': REDIRECT, 'Content-Length': 0 });
    res.end();
    return;
  }
  const info = await servedBlob(res, requested, deps);
  if (!info) throw unavailable();
  await sendBlob(req, res, deps.blobs, { info, cacheControl: IMMUTABLE, unavailable });
}

/**
 * The image addresses (spec, Image addresses): GET and HEAD `/media/{media_id}/{key}{suffix}` and the
 * account-specific `/media/c/{account_token}/{media_id}/{key}{suffix}`, where the suffix is `.webp` (at most
 * 2560 px wide), `-1600.webp`, `-800.webp`, `-400.webp` or `-original.{jpg|png|webp}`. Public: mounted before
 * authentication, a key sent along plays no part, and nothing is counted toward rate limits or quotas.
 *
 * A current key is served (immutable caching, strong ETag, If-None-Match, ranges); an earlier key of the media
 * id answers 307 to the address of the picture now in its place; any other media id, key, width, format or
 * token is 404, and so is a picture whose bytes are not stored.
 */
export function createMediaFilesRouter(deps: MediaFilesDeps): Router {
  const router = Router();
  router.get('/media/c/:accountToken/:mediaId/:file', async (req, res) => {
    const address = accountAddressSchema.safeParse({ ...req.params });
    if (!address.success || !(await deps.accountTokenExists(address.data.accountToken))) throw unavailable();
    await answer(req, res, address.data.mediaId, address.data.file, deps);
  });
  router.get('/media/:mediaId/:file', async (req, res) => {
    const address = addressSchema.safeParse({ ...req.params });
    if (!address.success) throw unavailable();
    await answer(req, res, address.data.mediaId, address.data.file, deps);
  });
  rejectOtherMethods(router, [
    { method: 'get', path: '/media/c/:accountToken/:mediaId/:file' },
    { method: 'get', path: '/media/:mediaId/:file' },
  ]);
  return router;
}
