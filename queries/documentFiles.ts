import { create as contentDisposition } from 'content-disposition';
import { Router, type Request, type Response } from 'express';
import { SHA256_PATTERN, type BlobStore } from '../src/blobStore/blobStore.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import type { LinkSigner } from '../src/http/signedLinks.js';
import { sendBlob } from './blobResponses.js';
import {
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

const STORED = '/documents/:kind/:key/:fileName';
const EXTERNAL = '/documents/:kind/external/:url/:fileName';

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
const segment = (req: Request, name: 'kind' | 'key' | 'url' | 'fileName'): string => String(req.params[name]);

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
  const fileName = segment(req, 'fileName');
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
  const expiresAt = verifiedExpiry(req, externalDocumentPath(kind, url, segment(req, 'fileName')), deps);
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
  router.use('/documents', () => {
    throw new LinkInvalid();
  });
  return router;
}
