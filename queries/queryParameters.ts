import { z } from 'zod';
import { SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM } from '../src/catalogue/text.js';
import { NotFound } from '../src/domain/errors.js';
import type { Doc, ReadStore } from '../src/readStore/readStore.js';

export {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  pageParameter,
  perPageParameter,
  pagination,
  paginationSchema,
  type Pagination,
} from '../src/http/pagination.js';
export const MAX_IDS = 100;

export const qParameter = z
  .string()
  .max(200)
  .regex(SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM)
  .meta({ description: 'Free text on one line, matched case-insensitively against names and slugs.' })
  .optional();

export const updatedSinceSchema = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value).toISOString());

/** A comma-separated list of unique positive ids, at most `max`. */
export const idListParameter = (max: number, description: string) =>
  z
    .string()
    .regex(/^\d{1,15}(,\d{1,15})*$/, 'must be comma-separated numeric ids')
    .transform((value) => value.split(',').map(Number))
    .pipe(
      z
        .array(z.number().int().positive('ids must be positive'))
        .max(max, `at most ${max} ids`)
        .refine((ids) => new Set(ids).size === ids.length, 'ids must be unique'),
    )
    .meta({ description });

/** `{id-or-slug}`: digits are an id (slugs always contain a letter), anything else a slug. */
export const idOrSlugSchema = z
  .string()
  .max(120)
  .regex(/^(\d{1,15}|[a-z0-9]+(?:-[a-z0-9]+)*)$/, 'must be a numeric id or a lowercase slug')
  .meta({ description: 'Numeric id or slug.' });

export type IdOrSlug = z.infer<typeof idOrSlugSchema>;

/** A published document by id or slug; anything else (missing, unpublished) is the one 404. */
export async function findPublished<T extends Doc & { published: boolean }>(
  readStore: ReadStore,
  collection: string,
  idOrSlug: string,
): Promise<T | null> {
  const doc = /^\d+$/.test(idOrSlug)
    ? await readStore.get<T>(collection, Number(idOrSlug))
    : await readStore.findOne<T>(collection, { slug: idOrSlug });
  return doc?.published ? doc : null;
}

export async function getPublished<T extends Doc & { published: boolean }>(
  readStore: ReadStore,
  collection: string,
  idOrSlug: string,
): Promise<T> {
  const doc = await findPublished<T>(readStore, collection, idOrSlug);
  if (!doc) throw new NotFound();
  return doc;
}

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
