import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { CONSISTENT_AFTER_HEADER, LOG_POSITION_HEADER, LOG_POSITION_PROBLEM } from './consistency.js';
import { errorResponse } from './openApiCommon.js';

// How both OpenAPI documents describe reading your own writes (src/http/consistency.ts).

const POSITION_FORMAT = 'A log position: decimal digits, sent as a string since it can exceed what a JSON number holds exactly.';

/** `meta.position` of an admin write's answer. */
export const logPositionMeta = z.string().meta({
  description: `${POSITION_FORMAT} The position of the last event this write appended; for a write that appended nothing (it changed nothing), the head of the log after it. Send it as ${CONSISTENT_AFTER_HEADER} to read what it wrote.`,
  example: '48213',
});

export const logPositionHeader = z.string().meta({
  description: `Same value as meta.position: send it back as ${CONSISTENT_AFTER_HEADER} on a GET to read this write's effects.`,
  header: { id: 'XLogPosition' },
});

const consistentAfterParameter = z
  .string()
  .optional()
  .meta({
    description:
      `The ${LOG_POSITION_HEADER} (meta.position) an admin write answered: the request is answered only once every read model has applied the log up to it, ` +
      'waiting up to CONSISTENCY_WAIT_MS (2 s by default), else 503 PROJECTION_BEHIND and nothing is read. It then sees that write and everything before it. ' +
      `Malformed, or past the end of the log (no write answered it): 422 VALIDATION_FAILED naming header.${CONSISTENT_AFTER_HEADER} (it ${LOG_POSITION_PROBLEM}).`,
    param: { id: 'XConsistentAfter' },
  });

export const projectionBehindResponse = errorResponse(
  'ProjectionBehind',
  `The read models had not applied the log up to ${CONSISTENT_AFTER_HEADER} within CONSISTENCY_WAIT_MS; nothing was read (and, on /v1, no quota spent). Retry after Retry-After seconds.`,
  ['PROJECTION_BEHIND'],
  'PROJECTION_BEHIND: details.position (the position asked for), details.waited_ms, details.retry_after_seconds.',
  { 'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Seconds after which the read may succeed.' }) },
);

/**
 * A GET behind authentication: it takes X-Consistent-After, and may answer 503 PROJECTION_BEHIND (and 422
 * for a bad header, which every such operation documents already).
 */
export function acceptingConsistentAfter(operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const header = operation.requestParams?.header;
  return {
    ...operation,
    requestParams: {
      ...operation.requestParams,
      header: (header instanceof z.ZodObject ? header : z.object({})).extend({ [CONSISTENT_AFTER_HEADER]: consistentAfterParameter }),
    },
    responses: { ...operation.responses, '503': projectionBehindResponse },
  };
}

/** The same for every GET of a set of paths (all behind authentication). */
export function getsAcceptingConsistentAfter(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [path, item.get ? { ...item, get: acceptingConsistentAfter(item.get) } : item]),
  );
}
