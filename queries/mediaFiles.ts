import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { mediaAddressOf, resolveKey } from '../projections/mediaAddresses.js';
import type { BlobInfo, BlobStore } from '../src/blobStore/blobStore.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import { NotFound } from '../src/domain/errors.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { errorResponse, requestIdHeader, requestIdParameter, toOpenApiPath } from '../src/http/openApiCommon.js';
import { requestContextOf } from '../src/http/requestContext.js';
import { DEFAULT_IMAGE_WIDTH, SourceUnreadable, type ImageDerivatives, type ImageWidth } from '../src/media/imageDerivatives.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { rangeNotSatisfiableResponse, sendBlob } from './blobResponses.js';
import { ORIGINAL_EXTENSIONS } from './representations.js';

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

// Below the router's mount point, MEDIA_FILES_MOUNT: express then never enters this router for other paths.
export const MEDIA_FILES_MOUNT = '/media';
const PLAIN = '/:media_id/:file';
const ACCOUNT = '/c/:account_token/:media_id/:file';

const mediaIdSchema = z
  .string()
  .regex(/^(?:[1-9]\d{0,15}|(?:developer|community|floor-plan|floor-plate|video|agent-profile)-[1-9]\d{0,15})$/);
const fileSchema = z.string().regex(/^[0-9a-f]{64}(?:-(?:400|800|1600))?\.webp$|^[0-9a-f]{64}-original\.(?:jpg|png|webp)$/);
const accountTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const addressSchema = z.object({ media_id: mediaIdSchema, file: fileSchema }).strict();
const accountAddressSchema = z.object({ account_token: accountTokenSchema, media_id: mediaIdSchema, file: fileSchema }).strict();

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
  const resolution = resolveKey(await mediaAddressOf(deps.readStore, mediaId), requested.key);
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
  router.get(ACCOUNT, async (req, res) => {
    const address = accountAddressSchema.safeParse({ ...req.params });
    if (!address.success || !(await deps.accountTokenExists(address.data.account_token))) throw unavailable();
    await answer(req, res, address.data.media_id, address.data.file, deps);
  });
  router.get(PLAIN, async (req, res) => {
    const address = addressSchema.safeParse({ ...req.params });
    if (!address.success) throw unavailable();
    await answer(req, res, address.data.media_id, address.data.file, deps);
  });
  rejectOtherMethods(router, [
    { method: 'get', path: ACCOUNT },
    { method: 'get', path: PLAIN },
  ]);
  return router;
}

// The contract of these addresses, for /v1/openapi.yaml (queries/openApi.ts adds these paths).

const header = (id: string, description: string) => z.string().meta({ description, header: { id } });
const immutableHeader = header('ImageCacheControl', `\`${IMMUTABLE}\`: the bytes at an exact address never change.`);
const etagHeader = header('ImageETag', 'Strong: `"<SHA-256 of the bytes served>"` (of that width\'s WebP, or of the original).');
const lastModifiedHeader = header('ImageLastModified', 'When the bytes served were stored (a width: when it was first made).');

const imageHeaders = {
  'X-Request-Id': requestIdHeader,
  'Content-Type': header('ImageContentType', "`image/webp` for a width; the original's own type for `-original.{ext}`."),
  'Content-Length': header('ImageContentLength', 'Bytes in this response.'),
  ETag: etagHeader,
  'Last-Modified': lastModifiedHeader,
  'Accept-Ranges': header('ImageAcceptRanges', '`bytes`.'),
  'Cache-Control': immutableHeader,
};

const picture = (description: string) => z.string().meta({ format: 'binary', description });
const pictureContent = {
  'image/webp': { schema: picture('A width (`.webp`, `-1600.webp`, `-800.webp`, `-400.webp`), or an original stored as WebP.') },
  'image/jpeg': { schema: picture('`-original.jpg`: the stored JPEG, byte for byte.') },
  'image/png': { schema: picture('`-original.png`: the stored PNG, byte for byte.') },
};

const imageNotFound = errorResponse(
  'ImageNotFound',
  'No picture at this address: an unknown media id, key or account token, a key the media id never showed, another width or ' +
    "format than those listed (the original only in its own format), a removed picture or a deleted project's, or bytes that are not stored.",
  ['NOT_FOUND'],
  'NOT_FOUND.',
);

const undecodable = errorResponse(
  'ImageAddressUndecodable',
  'The address cannot be decoded (a malformed percent-encoding).',
  ['BAD_REQUEST'],
  'BAD_REQUEST.',
);

const imageResponses: Record<string, ZodOpenApiResponseObject> = {
  '200': { description: 'The picture.', headers: z.object(imageHeaders), content: pictureContent },
  '206': {
    description:
      'One byte range (Range: bytes=...; honoured when If-Range, if sent, names these bytes). Several ranges get the whole file.',
    headers: z.object({ ...imageHeaders, 'Content-Range': header('ImageContentRange', '`bytes <first>-<last>/<size>`.') }),
    content: pictureContent,
  },
  '304': {
    description:
      'If-None-Match matched the ETag (strong or weak, in a list, or `*`), or If-Modified-Since is not older than the bytes. Empty body.',
    headers: z.object({
      'X-Request-Id': requestIdHeader,
      ETag: etagHeader,
      'Last-Modified': lastModifiedHeader,
      'Cache-Control': immutableHeader,
    }),
  },
  '307': {
    description:
      "The key is one this media id showed before the picture was replaced: the same width (or the original, in the current picture's " +
      'own format) of the picture now in its place. Empty body.',
    headers: z.object({
      'X-Request-Id': requestIdHeader,
      Location: header('ImageLocation', 'The current address, relative to this one: only the last segment changes (`<key><suffix>`).'),
      'Cache-Control': header(
        'ImageRedirectCacheControl',
        `\`${REDIRECT}\`: the redirect lasts only until the picture changes again, while every exact address stays immutable.`,
      ),
    }),
  },
  '400': undecodable,
  '404': imageNotFound,
  '416': rangeNotSatisfiableResponse,
};

const pathParams = {
  media_id: mediaIdSchema.meta({
    description:
      "As in the addresses the API hands out: a gallery picture's media id (`42`), or its owner's: `developer-{id}` (logo), " +
      '`community-{id}` (banner), `floor-plan-{id}`, `floor-plate-{project}`, `video-{project}` (thumbnail), `agent-profile-{id}` (portrait).',
  }),
  file: fileSchema.meta({
    description:
      "`{key}{suffix}`; key is the picture's SHA-256 (64 lower-case hex), suffix one of `.webp` (WebP, at most 2560 px wide), " +
      "`-1600.webp`, `-800.webp`, `-400.webp` (WebP of that width, or of the picture's own width when narrower: never enlarged), " +
      '`-original.jpg|png|webp` (the stored master, untouched, in its own format only). Any other width is 404.',
  }),
};

const requestHeaders = z.object({
  'X-Request-Id': requestIdParameter,
  'If-None-Match': z
    .string()
    .optional()
    .meta({ description: 'ETags held (strong or weak, a list, or `*`); a match answers 304.', param: { id: 'ImageIfNoneMatch' } }),
  Range: z
    .string()
    .optional()
    .meta({ description: 'One byte range, e.g. `bytes=0-65535`.', param: { id: 'ImageRange' } }),
  'If-Range': z
    .string()
    .optional()
    .meta({ description: 'The ETag or Last-Modified of the copy a range continues.', param: { id: 'ImageIfRange' } }),
});

const PUBLIC =
  'Public and unmetered: no API key, X-Client-Domain or request signature (an Authorization header sent along plays no part), ' +
  'and nothing is counted toward rate limits or quotas. Widths are WebP at quality 92, turned upright by the EXIF orientation, ' +
  'with the colour profile kept and other metadata dropped; each is made on its first request and stored.';

const imageOperation = (form: 'plain' | 'account', method: 'get' | 'head'): ZodOpenApiOperationObject => {
  const name = form === 'plain' ? 'Image' : 'AccountImage';
  return {
    operationId: `${method}${name}`,
    summary:
      (form === 'plain' ? 'An image address' : 'An account-specific image address') +
      (method === 'get' ? ': the picture at one width, or its original' : ': the headers of the picture, without it'),
    description:
      (form === 'plain'
        ? 'The addresses in `url`, `url_1600`, `url_800`, `url_400` and `original_url` of media items, floor plans, floor plates, ' +
          'developer logos, community banners, video thumbnails and the resource batch. '
        : 'The same pictures, widths and behaviour under an account token an operator gave the client; an unknown or removed token is 404. ') +
      PUBLIC,
    tags: ['Images'],
    security: [],
    requestParams: {
      path:
        form === 'plain'
          ? z.object(pathParams)
          : z.object({ account_token: accountTokenSchema.meta({ description: "The client's account token." }), ...pathParams }),
      header: requestHeaders,
    },
    responses: imageResponses,
  };
};

export const mediaFilesPaths: ZodOpenApiPathsObject = {
  [toOpenApiPath(MEDIA_FILES_MOUNT + PLAIN)]: { get: imageOperation('plain', 'get'), head: imageOperation('plain', 'head') },
  [toOpenApiPath(MEDIA_FILES_MOUNT + ACCOUNT)]: { get: imageOperation('account', 'get'), head: imageOperation('account', 'head') },
};
