import { z } from 'zod';
import { SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM } from '../catalogue/text.js';

// The filter and sort parameters every list takes alike, /v1's (queries/, which re-exports them) and the
// admin API's (src/http/adminRoutes/), so both parse and document them the same way.

export const qParameter = z
  .string()
  .max(200)
  .regex(SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM)
  .meta({ description: 'Free text on one line, matched case-insensitively against names and slugs.' })
  .optional();

export const updatedSinceSchema = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value).toISOString());

/** `{id-or-slug}`: digits are an id (slugs always contain a letter), anything else a slug. */
export const idOrSlugSchema = z
  .string()
  .max(120)
  .regex(/^(\d{1,15}|[a-z0-9]+(?:-[a-z0-9]+)*)$/, 'must be a numeric id or a lowercase slug')
  .meta({ description: 'Numeric id or slug.' });

export type IdOrSlug = z.infer<typeof idOrSlugSchema>;

/** `sort=name` / `sort=-name` for the fields a list allows. */
export function sortParameter<const Field extends string>(fields: readonly [Field, ...Field[]], fallback: string) {
  const values = fields.flatMap((field) => [field, `-${field}`]) as [string, ...string[]];
  return z
    .enum(values, { error: `must be one of ${values.join(', ')}` })
    .meta({ description: `Sort field; a leading - sorts descending (default ${fallback}).` })
    .optional();
}

export function sortSpec(sort: string): Array<[string, 1 | -1]> {
  return sort.startsWith('-') ? [[sort.slice(1), -1]] : [[sort, 1]];
}
