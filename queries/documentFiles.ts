import { create as contentDisposition } from 'content-disposition';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { SHA256_PATTERN, type BlobStore } from '../src/blobStore/blobStore.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { errorResponse, requestIdHeader, requestIdParameter, toOpenApiPath } from '../src/http/openApiCommon.js';
import type { LinkSigner } from '../src/http/signedLinks.js';
import { ACCEPTED_TYPES } from '../src/uploads/uploadKinds.js';
import { rangeNotSatisfiableResponse, sendBlob } from './blobResponses.js';
import {
  DOCUMENT_KINDS,
  externalDocumentPath,
  fileUnavailable,
  isDocumentKind,
  LinkExpired,
  LinkInvalid,
  storedDocumentPath,
  type DocumentKind,
} from './documentLinks.js';

export interface DocumentFilesDeps {
  blobs: BlobStore;
  linkSigner: LinkSigner;
  clock: () => Date;
}

// Below the router's mount point, DOCUMENT_FILES_MOUNT: express then never enters this router for other paths.
export const DOCUMENT_FILES_MOUNT = '/documents';
const STORED = '/:kind/:key/:file_name';
const EXTERNAL = '/:kind/external/:url/:file_name';

/**
 * The link's own authorization: `expires` and `signature`, once each and nothing else (a link is used
 * exactly as handed out, so anything added to it is refused rather than silently ignored). The signature
 * covers the path rebuilt from its decoded segments, so a link whose kind, key, URL or file name was
 * changed, or whose expiry was moved (a link cannot be extended), is LINK_INVALID; only a genuine link
 * past its expiry is LINK_EXPIRED. Answers when the link stops working.
 */
function verifiedExpiry(req: Request, path: string, deps: DocumentFilesDeps): Date {
  const { expires, signature, ...others } = req.query;
  const unexpected = Object.keys(others);
  if (unexpected.length > 0) throw new LinkInvalid({ unexpected_parameters: unexpected });
  if (typeof expires !== 'string' || typeof signature !== 'string') throw new LinkInvalid();
  const verdict = deps.linkSigner.verify(path, expires, signature, deps.clock());
  if (verdict === 'invalid') throw new LinkInvalid();
  const expiresAt = new Date(Number(expires) * 1000);
  if (verdict === 'expired') throw new LinkExpired(expiresAt);
  return expiresAt;
}

/** A named segment of the two routes below (never a wildcard's list). */
const segment = (req: Request, name: 'kind' | 'key' | 'url' | 'file_name'): string => String(req.params[name]);

function kindOf(req: Request): DocumentKind {
  const kind = segment(req, 'kind');
  // No link is ever signed for another kind.
  if (!isDocumentKind(kind)) throw new LinkInvalid();
  return kind;
}

/**
 * The bytes behind one key never change, but the link is the only authorization to them: a browser may
 * keep them until the link expires and no shared cache may keep them at all.
 */
const cacheControl = (expiresAt: Date, now: Date): string =>
  `private, max-age=${Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000))}`;

/** RFC 6266: the name as given in `filename*` (UTF-8), and an ASCII `filename` for older clients (accents dropped, the rest `_`). */
function attachment(fileName: string): string {
  const ascii = fileName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_');
  return ascii === fileName ? contentDisposition(fileName) : contentDisposition(fileName, { fallback: ascii });
}

async function serveStored(req: Request, res: Response, deps: DocumentFilesDeps): Promise<void> {
  const kind = kindOf(req);
  const key = segment(req, 'key');
  const fileName = segment(req, 'file_name');
  const expiresAt = verifiedExpiry(req, storedDocumentPath(kind, key, fileName), deps);
  // A key recorded before files were stored (not a SHA-256) names no blob, like a blob that is gone.
  const info = SHA256_PATTERN.test(key) ? await deps.blobs.stat(key) : null;
  if (!info) throw fileUnavailable(kind);
  await sendBlob(req, res, deps.blobs, {
    info,
    cacheControl: cacheControl(expiresAt, deps.clock()),
    headers: { 'Content-Disposition': attachment(fileName) },
    unavailable: () => fileUnavailable(kind),
  });
}

function redirectExternal(req: Request, res: Response, deps: DocumentFilesDeps): void {
  const kind = kindOf(req);
  const url = Buffer.from(segment(req, 'url'), 'base64url').toString('utf8');
  const expiresAt = verifiedExpiry(req, externalDocumentPath(kind, url, segment(req, 'file_name')), deps);
  // The URL was checked (http or https) when it was recorded; its normalised form is ASCII, as a header must be.
  res.writeHead(302, { Location: new URL(url).href, 'Cache-Control': cacheControl(expiresAt, deps.clock()), 'Content-Length': 0 });
  res.end();
}

/**
 * GET and HEAD of signed document links (spec: Signed document links), mounted before authentication:
 * the link is the whole authorization, and an Authorization header sent along plays no part (it is
 * neither needed nor refused). Anything else below /documents is not a link this service made.
 */
export function documentFilesRouter(deps: DocumentFilesDeps): Router {
  const router = Router();
  router.get(EXTERNAL, (req, res) => redirectExternal(req, res, deps));
  router.get(STORED, (req, res) => serveStored(req, res, deps));
  rejectOtherMethods(router, [
    { method: 'get', path: EXTERNAL },
    { method: 'get', path: STORED },
  ]);
  router.use(() => {
    throw new LinkInvalid();
  });
  return router;
}

// The contract of these links, for /v1/openapi.yaml (queries/openApi.ts adds these paths).

const header = (id: string, description: string) => z.string().meta({ description, header: { id } });
const cacheControlHeader = header(
  'DocumentCacheControl',
  '`private, max-age=<seconds until the link expires>`: a browser may keep the bytes while the link is valid; no shared cache may keep them.',
);

const linkParams = {
  query: z.object({
    expires: z.string().regex(/^\d+$/).meta({ description: 'Unix seconds when the link stops working, as handed out.' }),
    signature: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'As handed out. Together with expires, the whole authorization.' }),
  }),
  header: z.object({ 'X-Request-Id': requestIdParameter }),
};
const kindParam = z.enum(DOCUMENT_KINDS).meta({ description: 'brochure, master-plan, video, or pdf (generated project PDFs).' });
const fileNameParam = z.string().meta({ description: 'The file name of the record (percent-encoded); also the name of the saved file.' });

const linkRefused = errorResponse(
  'LinkRefused',
  'The link does not authorize this request.',
  ['LINK_INVALID', 'LINK_EXPIRED'],
  'LINK_INVALID: not a link the API handed out as it is: its path, expiry or signature was altered, a parameter is missing or repeated, ' +
    'or one was added (details.unexpected_parameters). LINK_EXPIRED: a genuine link past its expiry (details.expired_at); links cannot ' +
    'be extended: request the resource again (/brochure, /video, /media, the resource batch) for a new link.',
);

const fileUnavailableResponse = errorResponse(
  'DocumentFileUnavailable',
  'The file behind the link cannot be located.',
  ['DOCUMENT_UNAVAILABLE', 'VIDEO_NOT_AVAILABLE'],
  'VIDEO_NOT_AVAILABLE for a video file, DOCUMENT_UNAVAILABLE for any other document.',
);

const fileHeaders = {
  'X-Request-Id': requestIdHeader,
  'Content-Type': header('DocumentContentType', 'As stored: application/pdf, video/mp4, ...'),
  'Content-Length': header('DocumentContentLength', 'Bytes in this response.'),
  'Content-Disposition': header(
    'DocumentContentDisposition',
    '`attachment` with the file name as `filename*` (UTF-8, RFC 6266) and an ASCII `filename` for older clients.',
  ),
  ETag: header('DocumentETag', 'Strong: the SHA-256 of the whole file, which never changes for a key.'),
  'Last-Modified': header('DocumentLastModified', 'When the file was stored.'),
  'Accept-Ranges': header('DocumentAcceptRanges', '`bytes`.'),
  'Cache-Control': cacheControlHeader,
};

/** The bytes as stored, under the types a linked file is stored as: PDFs (brochures, master plans, generated PDFs) and videos. */
const fileContent = (description: string) =>
  Object.fromEntries(
    [...ACCEPTED_TYPES.document, ...ACCEPTED_TYPES.video].map((type) => [
      type,
      { schema: z.string().meta({ format: 'binary', description }) },
    ]),
  );

const fileResponses: Record<string, ZodOpenApiResponseObject> = {
  '200': {
    description: 'The whole file.',
    headers: z.object(fileHeaders),
    content: fileContent('The stored bytes.'),
  },
  '206': {
    description: 'One byte range (Range: bytes=...; honoured when If-Range, if sent, names this file). Several ranges get the whole file.',
    headers: z.object({ ...fileHeaders, 'Content-Range': header('DocumentContentRange', '`bytes <first>-<last>/<size>`.') }),
    content: fileContent('The bytes of the range.'),
  },
  '304': {
    description: 'If-None-Match matched the ETag (or If-Modified-Since is not older than the file). Empty body.',
    headers: z.object({ 'X-Request-Id': requestIdHeader, ETag: fileHeaders.ETag, 'Cache-Control': cacheControlHeader }),
  },
  '403': linkRefused,
  '404': fileUnavailableResponse,
  '416': rangeNotSatisfiableResponse,
};

const fileRequestHeaders = linkParams.header.extend({
  Range: z
    .string()
    .optional()
    .meta({ description: 'One byte range, e.g. `bytes=0-1048575` (video players).', param: { id: 'Range' } }),
  'If-Range': z
    .string()
    .optional()
    .meta({ description: 'The ETag or Last-Modified of the copy a range continues.', param: { id: 'IfRange' } }),
  'If-None-Match': z
    .string()
    .optional()
    .meta({ description: 'The ETag of a copy held; a match answers 304.', param: { id: 'DocumentIfNoneMatch' } }),
});
const storedPathParams = z.object({
  kind: kindParam,
  key: z.string().meta({ description: 'The SHA-256 of the file.' }),
  file_name: fileNameParam,
});
const externalPathParams = z.object({
  kind: kindParam,
  url: z.string().meta({ description: 'The document URL, base64url-encoded.' }),
  file_name: fileNameParam,
});

const storedFileOperation = (method: 'get' | 'head'): ZodOpenApiOperationObject => ({
  operationId: method === 'get' ? 'downloadDocument' : 'headDocument',
  summary: method === 'get' ? 'A signed link: the file itself' : 'A signed link: the headers of the file, without it',
  description:
    'Links come from /projects/{project}/brochure (download_url), /video (file_url), /media and the resource batch ' +
    '(master_plan_document.download_url). Public: no API key, X-Client-Domain or request signature, and no quota; an Authorization header ' +
    'sent along is ignored, never refused.',
  tags: ['Documents'],
  security: [],
  requestParams: {
    ...linkParams,
    path: storedPathParams,
    header: fileRequestHeaders,
  },
  responses: fileResponses,
});

const externalOperation = (method: 'get' | 'head'): ZodOpenApiOperationObject => ({
  operationId: method === 'get' ? 'followExternalDocument' : 'headExternalDocument',
  summary: 'A signed link to a legacy document kept on another host: a redirect there',
  description:
    'Follow the redirect; the other host answers for the file. Public, like every signed link; an Authorization header sent along is ignored.',
  tags: ['Documents'],
  security: [],
  requestParams: {
    ...linkParams,
    path: externalPathParams,
  },
  responses: {
    '302': {
      description: 'The document is on another host.',
      headers: z.object({
        'X-Request-Id': requestIdHeader,
        Location: header('DocumentLocation', 'The document on the other host.'),
        'Cache-Control': cacheControlHeader,
      }),
    },
    '403': linkRefused,
  },
});

export const documentFilesPaths: ZodOpenApiPathsObject = {
  [toOpenApiPath(DOCUMENT_FILES_MOUNT + STORED)]: { get: storedFileOperation('get'), head: storedFileOperation('head') },
  [toOpenApiPath(DOCUMENT_FILES_MOUNT + EXTERNAL)]: { get: externalOperation('get'), head: externalOperation('head') },
};
