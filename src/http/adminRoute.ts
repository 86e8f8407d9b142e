import type { z } from 'zod';
import type { StoredFiles } from '../catalogue/storedFiles.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { UploadField } from '../uploads/uploadKinds.js';

/** What an admin route handler may use. The clock comes in here so tests and the seed control time. */
export interface AdminDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  clock: () => Date;
  /** What the blob store holds: a stored-file ref a command names must match a stored file. */
  storedFiles: StoredFiles;
  /**
   * This process's usage not yet written to the read store; flushed before a usage report so the report
   * includes the process's own latest requests. Absent where no API is served (the seed, route tests).
   */
  pendingUsage?: { flush(): Promise<void> };
}

export interface AdminRouteInput<Params, Body, Query = Record<string, never>> {
  params: Params;
  body: Body;
  /** Query parameters, for the routes that declare them (filters of a list); absent where a route is called directly (the seed). */
  query?: Query;
  /** From `If-Match: "<revision>"`; absent = no concurrency precondition beyond the read-then-append check. */
  expectedRevision?: number;
  /** Who issued the request (recorded in event metadata). */
  actor: string;
}

/**
 * What a handler returns; `revision` becomes the `ETag: "<revision>"` of the response (a GET without one,
 * a list, gets an ETag of its content).
 */
export interface AdminRouteResult {
  data: unknown;
  revision?: number;
  /** Added to `meta` (a list's pagination). */
  meta?: Record<string, unknown>;
}

/**
 * One admin API operation. The route table (src/http/adminCommandRoutes.ts) lists them; the admin router
 * mounts them (parsing params/body with these zod `.strict()` schemas) and the admin OpenAPI document is
 * generated from the same table.
 */
export interface AdminRoute<Params extends z.ZodType = z.ZodType, Body extends z.ZodType = z.ZodType, Query extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path below /admin/v1, e.g. `/projects/:projectId/publish`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params: Params;
  /** Omitted for routes without a body (GET, DELETE, bodiless actions). */
  body?: Body;
  /** The query parameters a route takes (strict); omitted = none. */
  query?: Query;
  /**
   * Body fields that take a stored file: besides JSON (a ref naming a stored file), the route then takes the
   * file's bytes as the body (Content-Type of the field's kind) or as a multipart/form-data part, and the
   * admin router stores them and puts the stored-file ref in the field before the body is parsed. The
   * first field is the one a raw body or a part named `file` fills.
   */
  uploads?: readonly UploadField[];
  successStatus: 200 | 201;
  /** Schema of `data` in the success body (documentation and response tests). */
  response: z.ZodType;
  /** Schema of the fields the route adds to `meta` (a list's pagination); omitted = none. */
  meta?: z.ZodObject;
  handle(input: AdminRouteInput<z.infer<Params>, z.infer<Body>, z.infer<Query>>, deps: AdminDeps): Promise<AdminRouteResult>;
}
