import { z } from 'zod';
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
export { idOrSlugSchema, qParameter, sortParameter, sortSpec, updatedSinceSchema, type IdOrSlug } from '../src/http/listParameters.js';
export const MAX_IDS = 100;

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
