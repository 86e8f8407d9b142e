import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { z } from 'zod';
import type { BlobStore } from '../blobStore/blobStore.js';
import type { StoredFileRef } from '../catalogue/storedFiles.js';
import { ApiError, ValidationFailed } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { BlobStoredFiles } from './blobStoredFiles.js';
import { dispositionFileName, storedFileName } from './fileName.js';
import { inspectFile, type InspectedFile } from './inspectFile.js';
import { UploadAborted, UploadTooLarge, type StagedFile, type UploadStaging } from './staging.js';
import { FileTooLarge, UnsupportedFileType } from './uploadErrors.js';
import { ACCEPTED_TYPES, fieldPath, isAcceptedType, type UploadField, type UploadKind, type UploadLimits } from './uploadKinds.js';

/** Form fields of a multipart upload: as much as a JSON body may hold. */
const FORM_FIELD_BYTES = 1024 * 1024;
const MAX_FORM_FIELDS = 100;
/** Files one multipart request may carry (a list of floor plates with a picture each at most). */
const MAX_FILE_PARTS = 200;

export const MULTIPART_TYPE = 'multipart/form-data';

export interface UploadReceiverOptions {
  staging: UploadStaging;
  blobStore: BlobStore;
  storedFiles: BlobStoredFiles;
  limits: UploadLimits;
  /** MEDIA_PREGENERATE=on: derives a stored picture's widths before its command is sent. */
  pregenerate?: (key: string) => Promise<void>;
  logger?: Logger;
}

export interface ReceiveOptions {
  /** The command's body schema: multipart form fields are read as JSON where it takes the parsed value. */
  bodySchema?: z.ZodType;
  /** The `file_name` query parameter (raw bodies only). */
  fileName?: string;
}

/**
 * Turns an upload request into the body of its command: the file's bytes are staged, checked, stored in the
 * blob store, and the body gets the stored-file ref in the file's field. Either a raw body (Content-Type one
 * of the field's types) or multipart/form-data (a `file` part, or parts named by their fields, plus the
 * command's other fields as form fields). Bytes are stored before the command is sent, so no event ever
 * names missing bytes; a command refused afterwards leaves an unreferenced blob that the garbage collector
 * removes.
 */
export interface UploadReceiver {
  receive(req: IncomingMessage, res: ServerResponse, fields: readonly UploadField[], options?: ReceiveOptions): Promise<unknown>;
}

/** A file part's destination: the concrete body path (`items.2.image`) and its field's kind. */
interface Target {
  path: string;
  kind: UploadKind;
}

interface ReceivedFile {
  target: Target;
  declared: string;
  sentName: string | undefined;
  staged: StagedFile;
}

export function createUploadReceiver(options: UploadReceiverOptions): UploadReceiver {
  const { staging, blobStore, storedFiles, limits } = options;

  const rawFieldFor = (fields: readonly UploadField[], contentType: string) =>
    fields.find((field) => !field.field.includes('*') && isAcceptedType(field.kind, contentType));

  const acceptedBodyTypes = (fields: readonly UploadField[]) => [
    'application/json',
    MULTIPART_TYPE,
    ...new Set(fields.filter((field) => !field.field.includes('*')).flatMap((field) => ACCEPTED_TYPES[field.kind])),
  ];

  const stage = async (source: Readable, target: Target) => {
    try {
      return await staging.stage(source, limits[target.kind]);
    } catch (error) {
      throw error instanceof UploadTooLarge ? new FileTooLarge(fieldPath(target.path), error.limitBytes) : error;
    }
  };

  /** What a staged file is, read from its bytes; refuses one that is empty or not what it is declared to be. */
  const inspect = async ({ target, declared, staged }: ReceivedFile): Promise<InspectedFile> => {
    const field = fieldPath(target.path);
    if (staged.size === 0) throw new ValidationFailed({ [field]: 'the file is empty' });
    return inspectFile(staged.path, target.kind, declared, field);
  };

  /** Stores an inspected file and answers its ref; the staged file stays for the caller to remove. */
  const store = async (file: ReceivedFile, inspected: InspectedFile): Promise<StoredFileRef> => {
    const { target, staged } = file;
    const info = await blobStore.put(createReadStream(staged.path), { contentType: inspected.contentType });
    storedFiles.remember(info.sha256, {
      content_type: inspected.contentType,
      size_bytes: info.size,
      width: inspected.width,
      height: inspected.height,
    });
    if (target.kind === 'image' && options.pregenerate) {
      // The widths are derived on first request anyway: a failure here only loses the head start.
      await options
        .pregenerate(info.sha256)
        .catch((error: unknown) =>
          options.logger?.warn({ err: error, key: info.sha256 }, 'pre-generating the widths of an uploaded picture failed'),
        );
    }
    const base = { key: info.sha256, file_name: storedFileName(file.sentName, target.kind, inspected.contentType), size_bytes: info.size };
    return target.kind === 'image'
      ? { ...base, content_type: inspected.contentType, width: inspected.width!, height: inspected.height! }
      : { ...base, content_type: inspected.contentType };
  };

  /** Inspects every file before storing any, so a refused upload stores nothing. */
  const storeAll = async (files: readonly ReceivedFile[]): Promise<StoredFileRef[]> => {
    const inspected: InspectedFile[] = [];
    for (const file of files) inspected.push(await inspect(file));
    const refs: StoredFileRef[] = [];
    for (const [index, file] of files.entries()) refs.push(await store(file, inspected[index]!));
    return refs;
  };

  const receiveRaw = async (req: IncomingMessage, fields: readonly UploadField[], contentType: string | null, fileName?: string) => {
    const field = contentType === null ? undefined : rawFieldFor(fields, contentType);
    if (contentType === null || !field) throw new UnsupportedFileType('body', acceptedBodyTypes(fields), contentType);
    const target = { path: field.field, kind: field.kind };
    refuseKnownOversize(req, limits[field.kind], fieldPath(field.field));
    const staged = await stage(req, target);
    try {
      const sentName = fileName ?? dispositionFileName(req.headers['content-disposition']);
      const [ref] = await storeAll([{ target, declared: contentType, sentName, staged }]);
      return withFile({}, target.path, ref!);
    } finally {
      await staged.remove();
    }
  };

  const receiveMultipart = async (req: IncomingMessage, fields: readonly UploadField[], bodySchema?: z.ZodType) => {
    if (!fields.some((field) => field.field.includes('*'))) {
      const allowance = fields.reduce((sum, field) => sum + limits[field.kind], FORM_FIELD_BYTES);
      refuseKnownOversize(req, allowance, 'body');
    }
    const { formFields, files } = await readMultipart(req, fields, stage);
    try {
      const refs = await storeAll(files);
      let body: unknown = formBody(formFields, bodySchema);
      files.forEach((file, index) => (body = withFile(body, file.target.path, refs[index]!)));
      return body;
    } finally {
      await Promise.all(files.map((file) => file.staged.remove()));
    }
  };

  return {
    async receive(req, res, fields, receiveOptions = {}) {
      try {
        const contentType = mediaType(req.headers['content-type']);
        const encoding = req.headers['content-encoding'];
        if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
          throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Files are uploaded without a Content-Encoding.', {
            header: 'Content-Encoding',
          });
        }
        if (contentType !== MULTIPART_TYPE) return await receiveRaw(req, fields, contentType, receiveOptions.fileName);
        if (receiveOptions.fileName !== undefined) {
          throw new ValidationFailed({ 'query.file_name': 'is for a file sent as the body; a multipart part names its own file' });
        }
        return await receiveMultipart(req, fields, receiveOptions.bodySchema);
      } catch (error) {
        // Refused before the whole body arrived: answer at once, then drop the connection rather than read on.
        if (!req.complete) {
          res.setHeader('Connection', 'close');
          req.unpipe();
          req.resume();
        }
        throw error;
      }
    },
  };
}

/** `image/png` of `image/png; charset=binary`, lower-cased; null when there is no Content-Type. */
function mediaType(header: string | undefined): string | null {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type ? type : null;
}

/** A Content-Length already over the limit is refused before a byte is read. */
function refuseKnownOversize(req: IncomingMessage, limitBytes: number, field: string): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new FileTooLarge(field, limitBytes);
}

/**
 * Reads a multipart body: form fields as text, file parts staged as they arrive. A file part is named `file`
 * (the route's first upload field) or by its field's path (`thumbnail`, `items.0.image`). The first problem
 * stops reading; files staged so far are removed.
 */
async function readMultipart(
  req: IncomingMessage,
  fields: readonly UploadField[],
  stage: (source: Readable, target: Target) => Promise<StagedFile>,
): Promise<{ formFields: Map<string, string>; files: ReceivedFile[] }> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { fieldSize: FORM_FIELD_BYTES, fields: MAX_FORM_FIELDS, files: MAX_FILE_PARTS },
    });
  } catch {
    throw new ValidationFailed({ 'header.content-type': 'multipart/form-data needs a boundary parameter' });
  }
  const formFields = new Map<string, string>();
  const files: ReceivedFile[] = [];
  const pending: Array<Promise<unknown>> = [];
  const taken = new Set<string>();

  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {});
      // Destroying the parser fails the part stream being staged, if any, which removes its file; the files
      // staged before are removed once every staging has settled.
      parser.destroy();
      void Promise.allSettled(pending)
        .then(() => Promise.all(files.map((file) => file.staged.remove())))
        .finally(() => reject(error));
    };
    const claim = (path: string) => {
      if (taken.has(path)) throw new ValidationFailed({ [fieldPath(path)]: 'is given more than once' });
      taken.add(path);
    };

    parser.on('field', (name, value, info) => {
      try {
        if (info.valueTruncated) throw new ValidationFailed({ [fieldPath(name)]: `is longer than ${FORM_FIELD_BYTES} bytes` });
        claim(name);
        formFields.set(name, value);
      } catch (error) {
        fail(error);
      }
    });
    parser.on('file', (name, stream, info) => {
      // Destroying the parser fails the open part stream; the staging of a part listens for that itself.
      stream.on('error', () => {});
      try {
        const target = targetOf(name, fields);
        claim(target.path);
        const declared = info.mimeType.toLowerCase();
        if (!isAcceptedType(target.kind, declared))
          throw new UnsupportedFileType(fieldPath(target.path), ACCEPTED_TYPES[target.kind], declared);
        const staging = stage(stream, target).then((staged) => {
          files.push({ target, declared, sentName: info.filename, staged });
        });
        pending.push(staging);
        staging.catch(fail);
      } catch (error) {
        stream.resume();
        fail(error);
      }
    });
    parser.on('fieldsLimit', () => fail(new ValidationFailed({ body: `has more than ${MAX_FORM_FIELDS} form fields` })));
    parser.on('filesLimit', () => fail(new ValidationFailed({ body: `has more than ${MAX_FILE_PARTS} files` })));
    parser.on('error', () => fail(new ValidationFailed({ body: 'is not a well-formed multipart/form-data body' })));
    parser.on('close', () => {
      void Promise.all(pending).then(
        () => {
          if (!failed) resolve({ formFields, files: files.sort((a, b) => a.target.path.localeCompare(b.target.path)) });
        },
        () => {},
      );
    });
    req.on('error', fail);
    req.once('close', () => {
      if (!req.complete) fail(new UploadAborted());
    });
    req.pipe(parser);
  });
}

/** Where a file part goes: `file` is the route's first upload field; otherwise the part names its field's path. */
function targetOf(name: string, fields: readonly UploadField[]): Target {
  const primary = fields[0];
  if (name === 'file' && primary && !primary.field.includes('*')) return { path: primary.field, kind: primary.kind };
  const field = fields.find((candidate) => pathPattern(candidate.field).test(name));
  if (!field) {
    const names = fields.map((candidate) => candidate.field.replaceAll('*', '<index>') || 'file');
    throw new ValidationFailed({ [fieldPath(name)]: `is not a file field of this operation (file parts: ${names.join(', ')})` });
  }
  return { path: name, kind: field.kind };
}

const pathPattern = (field: string) => new RegExp(`^${field.split('*').map(escapeRegExp).join('(?:0|[1-9]\\d{0,5})')}$`);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The command's body from the form fields: a value is read as JSON where that is what the field takes
 * (`true`, `12`, `null`, `[...]`), and as text otherwise, so a title `2025` stays text and `position=3` is
 * a number.
 */
function formBody(formFields: ReadonlyMap<string, string>, bodySchema: z.ZodType | undefined): Record<string, unknown> {
  const shape = bodySchema instanceof z.ZodObject ? (bodySchema.shape as Record<string, z.ZodType>) : {};
  return Object.fromEntries([...formFields].map(([name, text]) => [name, formValue(shape[name], text)]));
}

function formValue(schema: z.ZodType | undefined, text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text;
  }
  if (schema === undefined) return text;
  return schema.safeParse(json).success || !schema.safeParse(text).success ? json : text;
}

/** The body with `ref` at `path` ('' for a body that is the ref). A list item the path names must exist. */
function withFile(body: unknown, path: string, ref: StoredFileRef): unknown {
  if (path === '') {
    if (body !== null && typeof body === 'object' && Object.keys(body).length > 0) {
      const problems = Object.fromEntries(
        Object.keys(body).map((name) => [fieldPath(name), 'the body of this operation is the file alone']),
      );
      throw new ValidationFailed(problems);
    }
    return ref;
  }
  const segments = path.split('.');
  const root = { ...(body as Record<string, unknown>) };
  let node: Record<string, unknown> = root;
  for (const [index, segment] of segments.slice(0, -1).entries()) {
    const next = node[segment];
    if (next === null || typeof next !== 'object') {
      throw new ValidationFailed({ [fieldPath(segments.slice(0, index + 1).join('.'))]: `has no item for the file part ${path}` });
    }
    node = next as Record<string, unknown>;
  }
  node[segments.at(-1)!] = ref;
  return root;
}
