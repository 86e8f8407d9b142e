import { createReadStream } from 'node:fs';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { appendingAs } from '../../access/editorActor.js';
import type { StoredFiles } from '../../catalogue/storedFiles.js';
import { ApiError, Conflict, ValidationFailed } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import { importCatalogue, ImportInterrupted, type ImportRefusal } from '../../import/catalogueImport.js';
import { ndjsonLines } from '../../import/ndjsonLines.js';
import { UploadAborted, UploadTooLarge, type StagedFile, type UploadStaging } from '../../uploads/staging.js';
import { adminCallerOf, requireRole } from '../adminAuth.js';
import { LOG_POSITION_HEADER, recordAppends } from '../consistency.js';
import { logPositionHeader, logPositionMeta } from '../consistencyOpenApi.js';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from '../httpErrors.js';
import { rejectOtherMethods } from '../methodNotAllowed.js';
import { errorResponse, meta, requestIdHeader, requestIdParameter } from '../openApiCommon.js';
import { requestContextOf } from '../requestContext.js';
import { sendData } from '../responses.js';
import { IF_MATCH_PROBLEM, parseIfMatch, refuseQueryParameters } from '../validation.js';
import { refuseRevisionOfNewResource } from './adminSchemas.js';
import { allowedRolesOf } from './editorRoles.js';

/** The operation's id in the role table (src/http/adminRoutes/editorRoles.ts). */
export const IMPORT_OPERATION_ID = 'importCatalogue';
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';
/** Largest import file the admin API takes; larger catalogues go through `npm run import`, or several requests. */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;
/** Refusals the answer lists (in line order); `refused` counts them all. */
export const LISTED_REFUSALS = 1_000;

export interface ImportRouteDeps {
  eventStore: EventStore;
  storedFiles: StoredFiles;
  clock: () => Date;
  /** Where the body is staged before the import reads it (src/uploads/staging.ts). */
  staging: UploadStaging;
}

/** 409: this process is importing another file; imports run one at a time so the API keeps answering. */
class ImportInProgress extends ApiError {
  constructor() {
    super(409, 'IMPORT_IN_PROGRESS', 'Another import is running in this process; send the file again once it has finished.');
  }
}

function refuseUnreadableBody(req: Request): void {
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== NDJSON_CONTENT_TYPE) {
    throw new UnsupportedMediaType(
      `An import is sent as NDJSON (Content-Type: ${NDJSON_CONTENT_TYPE}; charset utf-8), one record per line.`,
    );
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new UnsupportedMediaType('An import is sent without a Content-Encoding.');
  }
  refuseQueryParameters(req);
  const ifMatch = parseIfMatch(req.get('if-match'));
  if (!ifMatch.ok) throw new ValidationFailed({ 'header.if-match': IF_MATCH_PROBLEM });
  // An import writes many records and has no revision of its own: like a create, any revision it names is stale.
  if (ifMatch.ok) refuseRevisionOfNewResource(ifMatch.expectedRevision);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > IMPORT_MAX_BYTES) throw new PayloadTooLarge(IMPORT_MAX_BYTES);
}

/** The body in a staging file, at most IMPORT_MAX_BYTES of it. */
async function stageBody(req: Request, staging: UploadStaging): Promise<StagedFile> {
  try {
    return await staging.stage(req, IMPORT_MAX_BYTES);
  } catch (error) {
    if (error instanceof UploadTooLarge) throw new PayloadTooLarge(IMPORT_MAX_BYTES);
    if (error instanceof UploadAborted) throw new BadRequest('The request body could not be read.');
    throw error;
  }
}

/** Each event the import appends records who sent it, as every admin write does (src/access/editorActor.ts). */
function appendingAsCaller(eventStore: EventStore, res: Response): EventStore {
  const caller = adminCallerOf(res);
  return appendingAs(eventStore, {
    actor: caller.actor,
    editor_id: caller.editorId,
    token_id: caller.tokenId,
    request_id: requestContextOf(res).requestId,
    client_address: caller.clientAddress,
  });
}

/**
 * `POST /imports`: a catalogue as NDJSON (src/import/importLines.ts), imported as `npm run import` does. The
 * body is staged to a file first (so the import's time does not count against the request's receive timeout),
 * then imported; the answer is the report with the refused lines. A file refused as a whole (its type, its
 * size) writes nothing.
 */
export function importRouter(deps: ImportRouteDeps): Router {
  const router = Router();
  const allowed = allowedRolesOf(IMPORT_OPERATION_ID);
  let running = false;
  router.post('/imports', async (req, res) => {
    requireRole(adminCallerOf(res), allowed);
    let staged: StagedFile;
    try {
      refuseUnreadableBody(req);
      if (running) throw new ImportInProgress();
      running = true;
      staged = await stageBody(req, deps.staging).catch((error: unknown) => {
        running = false;
        throw error;
      });
    } catch (error) {
      // Refused before the whole body arrived: answer at once, then drop the connection rather than read on.
      if (!req.complete) {
        res.setHeader('Connection', 'close');
        req.unpipe();
        req.resume();
      }
      throw error;
    }
    try {
      const appends = recordAppends(appendingAsCaller(deps.eventStore, res));
      const refusals: ImportRefusal[] = [];
      const report = await importCatalogue(
        { eventStore: appends.eventStore, storedFiles: deps.storedFiles, clock: deps.clock },
        ndjsonLines(createReadStream(staged.path)),
        {
          actor: adminCallerOf(res).actor,
          onRefusal: (refusal) => {
            if (refusals.length < LISTED_REFUSALS) refusals.push(refusal);
          },
        },
      ).catch((error: unknown) => {
        if (!(error instanceof ImportInterrupted)) throw error;
        throw new Conflict(`${error.message}: the lines before it are imported, and sending the file again resumes the import.`, {
          first_line: error.firstLine,
        });
      });
      const position = await appends.position();
      res.setHeader(LOG_POSITION_HEADER, position);
      sendData(res, { ...report, refusals }, { meta: { position } });
    } finally {
      running = false;
      await staged.remove();
    }
  });
  rejectOtherMethods(router, [{ method: 'post', path: '/imports' }]);
  return router;
}

// The operation in the admin OpenAPI document (src/http/adminOpenApi.ts adds it to the routes' operations).

const count = (description: string) => z.number().int().nonnegative().meta({ description });

const importRefusalSchema = z
  .object({
    line: z.number().int().positive().meta({ description: 'The line number, counting from 1 (blank lines included).' }),
    type: z.string().nullable().meta({ description: "The line's `type`, when it has one." }),
    key: z.string().nullable().meta({ description: "The line's `key`, when it has one." }),
    error: z
      .object({
        code: z
          .string()
          .meta({ description: 'As the single command would answer: VALIDATION_FAILED, SLUG_TAKEN, PROJECT_DELETED, NOT_FOUND, ...' }),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).meta({
          description:
            '`fields` names each problem by its path in the line: `data.slug`, `data.amenities.2.name`, `type`, or `line` (not JSON, too long, not UTF-8).',
        }),
      })
      .meta({ description: "The spec's error object." }),
  })
  .meta({ id: 'ImportRefusal', description: 'A refused line: nothing of it was written.' });

export const importReportSchema = z
  .object({
    lines: count('Lines read, blank ones included.'),
    bytes: count('Bytes read.'),
    accepted: count('Lines accepted: created + revised + unchanged.'),
    refused: count('Lines refused (all of them; `refusals` lists the first ones).'),
    created: count('Records the import created.'),
    revised: count('Records whose line changed since they were imported, revised to match it.'),
    unchanged: count('Records already as their line states them: nothing written.'),
    events: count("Events appended: the records' own, without id claims, key bindings and slug reservations."),
    seconds: z.number().nonnegative().meta({ description: 'How long the import took, once the body was received.' }),
    refusals: z.array(importRefusalSchema).meta({ description: `The first ${LISTED_REFUSALS} refused lines, in line order.` }),
  })
  .meta({ id: 'ImportReport' });

const lineExample = [
  '{"type":"state","key":"st-dubai","data":{"name":"Dubai","slug":"dubai","country_code":"AE","published":true}}',
  '{"type":"community","key":"c-marina","data":{"state":"st-dubai","name":"Dubai Marina","slug":"dubai-marina","published":true}}',
].join('\n');

/** What the admin OpenAPI document says of `POST /imports`; the responses every operation shares are handed in. */
export function importOperation(shared: {
  ifMatchParameter: z.ZodType;
  unauthenticated: ZodOpenApiResponseObject;
  insufficientRole: ZodOpenApiResponseObject;
  unprocessable: ZodOpenApiResponseObject;
}): ZodOpenApiOperationObject {
  const allowed = allowedRolesOf(IMPORT_OPERATION_ID);
  return {
    operationId: IMPORT_OPERATION_ID,
    summary: 'Import a catalogue: NDJSON records of reference data, projects and their parts',
    description:
      `Roles: ${allowed.join(', ')}. One record per line, \`{ type, key, data }\`: \`data\` is the body of the record's create command, ` +
      'with the records it names given by their keys (see README, Bulk import). Each line is decided by the same schemas and commands ' +
      'as the single operations; a refused line writes nothing and is listed with its line number. Idempotent by key: sending the ' +
      'file again appends nothing for the lines already imported, and a changed line revises its record; after a failure, sending it ' +
      `again resumes the import. The body (at most ${IMPORT_MAX_BYTES} bytes) is staged before it is imported. One import at a time per process.`,
    'x-allowed-roles': allowed,
    'x-required-role': allowed[0],
    tags: ['Imports'],
    requestParams: { header: z.object({ 'X-Request-Id': requestIdParameter, 'If-Match': shared.ifMatchParameter }) },
    requestBody: {
      required: true,
      content: {
        [NDJSON_CONTENT_TYPE]: {
          schema: z.string().meta({ description: 'UTF-8, one JSON record per line (at most 1 MiB each).', example: lineExample }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The import ran: every line is accepted (written) or refused (listed).',
        headers: z.object({ 'X-Request-Id': requestIdHeader, [LOG_POSITION_HEADER]: logPositionHeader }),
        content: {
          'application/json': { schema: z.object({ data: importReportSchema, meta: meta.extend({ position: logPositionMeta }) }) },
        },
      },
      '401': shared.unauthenticated,
      '403': shared.insufficientRole,
      '409': errorResponse(
        'ImportConflict',
        'Another import runs in this process, If-Match names a revision, or concurrent writes kept refusing a batch.',
        ['IMPORT_IN_PROGRESS', 'CONFLICT'],
        'IMPORT_IN_PROGRESS: nothing was read; send the file again later. CONFLICT: If-Match named a revision (an import, like a create, has none to match: ' +
          'send `*` or no If-Match), nothing was read; or the lines before `details.first_line` are imported, and sending the file again resumes the import.',
      ),
      '413': errorResponse(
        'ImportTooLarge',
        `The body exceeds ${IMPORT_MAX_BYTES} bytes; nothing was imported.`,
        ['PAYLOAD_TOO_LARGE'],
        'PAYLOAD_TOO_LARGE: `details.limit_bytes`. Answered as soon as the limit is passed (at once when Content-Length says so), with `Connection: close`.',
      ),
      '415': errorResponse(
        'ImportUnsupportedMediaType',
        `The body is not ${NDJSON_CONTENT_TYPE}, or has a Content-Encoding; nothing was imported.`,
        ['UNSUPPORTED_MEDIA_TYPE'],
        'UNSUPPORTED_MEDIA_TYPE.',
      ),
      '422': shared.unprocessable,
    },
  };
}
