import { createReadStream } from 'node:fs';
import { Router, type Request, type Response } from 'express';
import { appendingAs } from '../../access/editorActor.js';
import type { StoredFiles } from '../../catalogue/storedFiles.js';
import { ApiError, Conflict, ValidationFailed } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import { importCatalogue, ImportInterrupted, type ImportRefusal } from '../../import/catalogueImport.js';
import { ndjsonLines } from '../../import/ndjsonLines.js';
import { UploadAborted, UploadTooLarge, type StagedFile, type UploadStaging } from '../../uploads/staging.js';
import { adminCallerOf, requireRole } from '../adminAuth.js';
import { LOG_POSITION_HEADER, recordAppends } from '../consistency.js';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from '../httpErrors.js';
import { rejectOtherMethods } from '../methodNotAllowed.js';
import { requestContextOf } from '../requestContext.js';
import { sendData } from '../responses.js';
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
  const unknown = Object.keys(req.query);
  if (unknown.length > 0) throw new ValidationFailed(Object.fromEntries(unknown.map((name) => [`query.${name}`, 'is not a known field'])));
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
