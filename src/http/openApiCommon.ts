import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';

// Pieces both OpenAPI documents (/admin/openapi.yaml and /v1/openapi.yaml) describe alike.

/** Express `:param` → OpenAPI `{param}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export const meta = z
  .object({
    request_id: z.string().meta({ description: 'Same value as the X-Request-Id response header.' }),
    generated_at: z.iso.datetime().meta({ description: 'When the response was generated.' }),
  })
  .meta({ id: 'ResponseMeta' });

const errorBody = (id: string, codes: readonly [string, ...string[]], description: string) =>
  z
    .object({
      error: z.object({
        code: z.enum(codes).meta({ description }),
        message: z.string().meta({ description: 'Human-readable; may change. Branch on `code`.' }),
        details: z.record(z.string(), z.unknown()),
      }),
      meta,
    })
    .meta({ id });

const REQUEST_ID_DESCRIPTION =
  'Identifies the request in logs. An incoming X-Request-Id of 1-128 characters [A-Za-z0-9._:-] is kept; otherwise a uuid is generated.';
export const requestIdParameter = z
  .string()
  .optional()
  .meta({ description: REQUEST_ID_DESCRIPTION, param: { id: 'XRequestId' } });
export const requestIdHeader = z.string().meta({ description: REQUEST_ID_DESCRIPTION, header: { id: 'XRequestId' } });
export const errorResponse = (
  id: string,
  description: string,
  codes: readonly [string, ...string[]],
  codeDescription: string,
  extraHeaders: Record<string, z.ZodType> = {},
): ZodOpenApiResponseObject => ({
  id,
  description,
  headers: z.object({ 'X-Request-Id': requestIdHeader, ...extraHeaders }),
  content: { 'application/json': { schema: errorBody(`${id}Error`, codes, codeDescription) } },
});
