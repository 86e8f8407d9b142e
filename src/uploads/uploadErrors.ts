import { ApiError } from '../domain/errors.js';

/** 413: the file (or the whole upload) is larger than the limit of its kind; nothing was stored. */
export class FileTooLarge extends ApiError {
  constructor(field: string, limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `The file for ${field} exceeds ${limitBytes} bytes.`, { field, limit_bytes: limitBytes });
  }
}

/** 415: the declared content type is not one the field takes (or the body is neither JSON, multipart nor a file). */
export class UnsupportedFileType extends ApiError {
  constructor(field: string, acceptedTypes: readonly string[], declared: string | null) {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', `${field} takes ${acceptedTypes.join(', ')}${declared === null ? '' : `, not ${declared}`}.`, {
      field,
      accepted_types: acceptedTypes,
      content_type: declared,
    });
  }
}

/** 422: the bytes are not what the declared content type says. */
export class FileContentMismatch extends ApiError {
  constructor(field: string, declared: string, detected: string | null) {
    super(
      422,
      'FILE_CONTENT_MISMATCH',
      `The file for ${field} is declared ${declared} but its bytes are ${detected ?? 'of no type the service recognises'}.`,
      { field, content_type: declared, detected_type: detected },
    );
  }
}

/** 422: the bytes start like the declared type but cannot be decoded (truncated, damaged). */
export class FileCorrupt extends ApiError {
  constructor(field: string, contentType: string) {
    super(422, 'FILE_CORRUPT', `The file for ${field} is not a decodable ${contentType}.`, { field, content_type: contentType });
  }
}
