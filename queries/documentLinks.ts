import { ApiError } from '../src/domain/errors.js';

/**
 * The files behind signed links (spec: Signed document links), named in the link so that the route knows
 * which 404 to answer and a link to one kind of file can never be turned into a link to another. `pdf` is
 * reserved for generated project PDFs.
 */
export const DOCUMENT_KINDS = ['brochure', 'master-plan', 'video', 'pdf'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const isDocumentKind = (value: string): value is DocumentKind => (DOCUMENT_KINDS as readonly string[]).includes(value);

/**
 * The signed path (below `{base_url}`) of a file the service stores: `/documents/{kind}/{key}/{file_name}`.
 * The file name is the record's, so the saved file is named as the editor named it; the key is the blob's
 * SHA-256. The route rebuilds this path from the decoded segments, so any percent-encoding of them verifies.
 */
export const storedDocumentPath = (kind: DocumentKind, key: string, fileName: string): string =>
  `/documents/${kind}/${encodeURIComponent(key)}/${encodeURIComponent(fileName)}`;

/** The signed path of a legacy document on another host, whose link answers 302 to `url`. */
export const externalDocumentPath = (kind: DocumentKind, url: string, fileName: string): string =>
  `/documents/${kind}/external/${Buffer.from(url, 'utf8').toString('base64url')}/${encodeURIComponent(fileName)}`;

export class VideoNotAvailable extends ApiError {
  constructor(message = 'This project has no video.') {
    super(404, 'VIDEO_NOT_AVAILABLE', message);
  }
}

export class DocumentUnavailable extends ApiError {
  constructor(message = 'The document is not available.') {
    super(404, 'DOCUMENT_UNAVAILABLE', message);
  }
}

/** The 404 of a file that cannot be located: the video's own code for a video. */
export const fileUnavailable = (kind: DocumentKind): ApiError =>
  kind === 'video' ? new VideoNotAvailable('The video file cannot be located.') : new DocumentUnavailable('The file cannot be located.');

/** 403: not a link this service minted for this path and expiry (or not a link at all). */
export class LinkInvalid extends ApiError {
  constructor(details: Record<string, unknown> = {}) {
    super(403, 'LINK_INVALID', 'This link is not valid: use the link exactly as the API handed it out.', details);
  }
}

/** 403: a link this service minted, whose expiry has passed; links cannot be extended, so ask the API for a new one. */
export class LinkExpired extends ApiError {
  constructor(expiredAt: Date) {
    super(403, 'LINK_EXPIRED', 'This link has expired; request the resource again for a new link.', {
      expired_at: expiredAt.toISOString(),
    });
  }
}
