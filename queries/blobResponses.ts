import { pipeline } from 'node:stream';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { BlobInfo, BlobStore, ByteRange } from '../src/blobStore/blobStore.js';
import type { ApiError } from '../src/domain/errors.js';
import { ApiErrorWithHeaders } from '../src/http/httpErrors.js';
import { errorResponse } from '../src/http/openApiCommon.js';
import { requestContextOf } from '../src/http/requestContext.js';
import { ifNoneMatchMatches } from '../src/http/responses.js';

/** 416: the one range asked for starts past the last byte (`Content-Range: bytes *\/{size}`, RFC 9110 15.5.17). */
export class RangeNotSatisfiable extends ApiErrorWithHeaders {
  constructor(size: number) {
    super(
      416,
      'RANGE_NOT_SATISFIABLE',
      `The requested range is not within the file's ${size} bytes.`,
      { size_bytes: size },
      { 'Content-Range': `bytes */${size}` },
    );
  }
}

/** The 416 of every route that sends blobs, as /v1/openapi.yaml describes it (one component for all). */
export const rangeNotSatisfiableResponse = errorResponse(
  'RangeNotSatisfiable',
  'The one range asked for starts past the end of the file.',
  ['RANGE_NOT_SATISFIABLE'],
  'RANGE_NOT_SATISFIABLE: details.size_bytes is the size of the file.',
  { 'Content-Range': z.string().meta({ description: '`bytes */<size>`.', header: { id: 'UnsatisfiedContentRange' } }) },
);

export interface BlobResponse {
  info: BlobInfo;
  cacheControl: string;
  /** Sent with the bytes (and the 304), e.g. Content-Disposition. */
  headers?: Record<string, string>;
  /** The 404 when the blob is gone by the time it is opened (collected since it was looked up). */
  unavailable(): ApiError;
}

/** A strong validator: the bytes' SHA-256, which is the blob's address. */
export const blobEtag = (info: BlobInfo): string => `"${info.sha256}"`;

/** HTTP dates have whole seconds: a blob stored within a second is as new as a Last-Modified of that second. */
const lastModifiedSeconds = (info: BlobInfo): number => Math.floor(info.storedAt.getTime() / 1000);

function notModified(req: Request, info: BlobInfo): boolean {
  const ifNoneMatch = req.get('if-none-match');
  // RFC 9110 13.2.2: If-Modified-Since counts only when If-None-Match is absent.
  if (ifNoneMatch !== undefined) return ifNoneMatchMatches(ifNoneMatch, blobEtag(info));
  const since = Date.parse(req.get('if-modified-since') ?? '');
  return !Number.isNaN(since) && lastModifiedSeconds(info) <= Math.floor(since / 1000);
}

/**
 * The one byte range to send, or null for the whole blob. Several ranges, a malformed header or another
 * unit are answered with the whole blob, as RFC 9110 14.2 allows; so is a Range whose If-Range names
 * another version (a strong ETag other than ours, or another date: the client holds other bytes).
 */
function requestedRange(req: Request, info: BlobInfo): ByteRange | null {
  if (req.get('range') === undefined) return null;
  const ifRange = req.get('if-range');
  if (ifRange !== undefined) {
    const sameVersion = ifRange.startsWith('"')
      ? ifRange === blobEtag(info)
      : Math.floor(Date.parse(ifRange) / 1000) === lastModifiedSeconds(info);
    if (!sameVersion) return null;
  }
  const ranges = req.range(info.size, { combine: true });
  if (ranges === -1) throw new RangeNotSatisfiable(info.size);
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  const [range] = ranges;
  return range ? { start: range.start, end: range.end } : null;
}

/**
 * Answers GET or HEAD with a stored blob: Content-Type as stored, Content-Length, a strong ETag, Last-Modified,
 * the given Cache-Control, `Accept-Ranges: bytes`; If-None-Match (or If-Modified-Since) answers 304, one
 * byte range 206 (If-Range honoured), a range past the end 416. The bytes stream from the store, never held
 * in memory. A blob whose stored bytes fail their checksum on the way out (the whole file is checked) has
 * its connection cut before the end, so the client never keeps a silently corrupt file.
 */
export async function sendBlob(req: Request, res: Response, blobs: BlobStore, response: BlobResponse): Promise<void> {
  const { info } = response;
  const validators = {
    ETag: blobEtag(info),
    'Last-Modified': new Date(lastModifiedSeconds(info) * 1000).toUTCString(),
    'Cache-Control': response.cacheControl,
  };
  if (notModified(req, info)) {
    res.writeHead(304, validators);
    res.end();
    return;
  }
  const range = requestedRange(req, info);
  const headers: Record<string, string | number> = {
    ...response.headers,
    ...validators,
    'Content-Type': info.contentType,
    'Accept-Ranges': 'bytes',
    'Content-Length': range ? range.end - range.start + 1 : info.size,
    ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${info.size}` } : {}),
  };
  const status = range ? 206 : 200;
  if (req.method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const bytes = await blobs.open(info.sha256, range ?? undefined);
  if (!bytes) throw response.unavailable();
  res.writeHead(status, headers);
  await new Promise<void>((resolve) => {
    pipeline(bytes, res, (error) => {
      // A client that went away is no failure of ours; a corrupt or unreadable blob is (pipeline has cut the connection).
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        requestContextOf(res).logger.error({ err: error, blob: info.sha256 }, 'a stored file failed while it was being sent');
      }
      resolve();
    });
  });
}
