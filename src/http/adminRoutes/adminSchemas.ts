import { z } from 'zod';
import { staleRevision } from '../../domain/commandHandler.js';

/** Representation fields every admin resource shares, described once for the admin OpenAPI document. */
export const idSchema = z.number().int().positive().meta({ description: 'Allocated by the service.' });

export const revisionSchema = z
  .number()
  .int()
  .nonnegative()
  .meta({ description: "Revision of the resource's event stream; also sent as ETag, send it back as If-Match." });

export const timestampSchema = z.iso.datetime({ offset: true });

/** Path parameters arrive as strings. */
export const pathId = z.coerce.number().int().positive();
export const noParams = z.object({}).strict();
export const clientParams = z.object({ clientId: pathId }).strict();

/**
 * If-Match on a create: the resource has no revision yet, so whatever revision it names is stale (as RFC 9110
 * has it, the precondition fails without a current representation); 409 CONFLICT before anything is claimed.
 */
export function refuseRevisionOfNewResource(expectedRevision: number | undefined): void {
  if (expectedRevision !== undefined) throw staleRevision(expectedRevision, -1);
}
