/** What an upload field holds; each kind has its own size limit (UPLOAD_MAX_*_BYTES). */
export const UPLOAD_KINDS = ['image', 'document', 'video'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/** The content types each kind takes: those its stored-file schema allows (ImageRef, PdfDocument, VideoFile). */
export const ACCEPTED_TYPES = {
  image: ['image/jpeg', 'image/png', 'image/webp'],
  document: ['application/pdf'],
  video: ['video/mp4', 'video/webm', 'video/quicktime'],
} as const satisfies Record<UploadKind, readonly string[]>;

/** The name a file gets when the request names none (extension added from its content type). */
export const DEFAULT_FILE_STEMS: Record<UploadKind, string> = { image: 'image', document: 'document', video: 'video' };

export const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

/**
 * A field of an admin command that takes an uploaded file: the bytes are stored and the field gets the
 * stored-file ref (ImageRef, PdfDocument or VideoFile). `field` is a dotted path in the body: `image`,
 * `items.*.image` (any index of a list; multipart only), or '' for a body that is the ref itself.
 */
export interface UploadField {
  field: string;
  kind: UploadKind;
}

export type UploadLimits = Record<UploadKind, number>;

export const isAcceptedType = (kind: UploadKind, contentType: string): boolean =>
  (ACCEPTED_TYPES[kind] as readonly string[]).includes(contentType);

/** `body.image`, `body.items.2.image`, `body` for the whole body: how validation problems name a field. */
export const fieldPath = (path: string): string => (path === '' ? 'body' : `body.${path}`);
