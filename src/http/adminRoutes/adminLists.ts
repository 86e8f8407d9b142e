import { z } from 'zod';
import type { Doc, Filter, ReadStore } from '../../readStore/readStore.js';
import type { AdminDeps, AdminRoute } from '../adminRoute.js';
import { sortParameter, sortSpec } from '../listParameters.js';
import { DEFAULT_PER_PAGE, pageParameter, pagination, paginationSchema, perPageParameter } from '../pagination.js';
import { noParams } from './adminSchemas.js';

/** What a list reads: the documents matching `filter` and, when given, the free text `text`. */
export interface ListSelection {
  filter: Filter;
  text?: string;
}

/** The page of a list: `meta.pagination`, as /v1 lists have it. */
export const listMetaSchema = z.object({ pagination: paginationSchema });

type FilterShape = Record<string, z.ZodType>;

type ListQuery<Filters extends FilterShape> = z.infer<z.ZodObject<Filters>> & { sort?: string; page?: number; per_page?: number };

interface AdminListOptions<Params extends z.ZodType, Filters extends FilterShape, Item extends Doc> {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Path parameters (a client's keys); omitted = none. */
  params?: Params;
  /** The filter parameters, each optional; page, per_page and sort are added. */
  filters: Filters;
  sortFields: readonly [string, ...string[]];
  /** A sort value of sortFields, e.g. `id` or `-updated_at`. */
  defaultSort: string;
  collection: string;
  /** Schema of one item of `data`. */
  item: z.ZodType;
  /**
   * The read-model selection the parameters ask for; null = nothing can match (a slug that names nothing).
   * May refuse the request (a path naming a client that does not exist is 404).
   */
  select(
    query: z.infer<z.ZodObject<Filters>>,
    params: z.infer<Params>,
    readStore: ReadStore,
  ): ListSelection | null | Promise<ListSelection | null>;
  /** The items of `data` made of a page of documents; in the same order. */
  represent(docs: Item[], readStore: ReadStore): unknown[] | Promise<unknown[]>;
}

/**
 * A GET list of the admin API, read from a read model: filters, sort, and page/per_page with
 * `meta.pagination` as /v1 lists have them (DESIGN.md), every parameter parsed strictly (an unknown one is
 * 422 naming it).
 */
export function adminList<Params extends z.ZodType, Filters extends FilterShape, Item extends Doc>(
  options: AdminListOptions<Params, Filters, Item>,
): AdminRoute<Params, z.ZodType, z.ZodType> {
  const query = z
    .object({
      ...options.filters,
      sort: sortParameter(options.sortFields, options.defaultSort),
      page: pageParameter,
      per_page: perPageParameter,
    })
    .strict();
  return {
    method: 'get',
    path: options.path,
    operationId: options.operationId,
    summary: options.summary,
    tag: options.tag,
    params: options.params ?? (noParams as unknown as Params),
    query,
    successStatus: 200,
    response: z.array(options.item),
    meta: listMetaSchema,
    async handle({ params, query: asked }, deps: AdminDeps) {
      // The router parsed the query with the schema above.
      const { sort, page = 1, per_page: perPage = DEFAULT_PER_PAGE, ...filters } = (asked ?? {}) as ListQuery<Filters>;
      const selection = await options.select(filters as z.infer<z.ZodObject<Filters>>, params, deps.readStore);
      const found = selection
        ? await deps.readStore.find<Item>(options.collection, {
            filter: selection.filter,
            ...(selection.text ? { text: selection.text } : {}),
            sort: sortSpec(sort ?? options.defaultSort),
            skip: (page - 1) * perPage,
            limit: perPage,
          })
        : { items: [], total: 0 };
      return {
        data: await options.represent(found.items, deps.readStore),
        meta: { pagination: pagination(page, perPage, found.total) },
      };
    },
  };
}

/** A boolean query parameter: `true` or `false`. */
export const booleanParameter = (description: string) =>
  z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((value) => value === 'true')
    .meta({ description })
    .optional();

/** A positive id as a query parameter. */
export const idParameter = (description: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a numeric id')
    .transform(Number)
    .pipe(z.number().int().positive('must be positive'))
    .meta({ description })
    .optional();

/** The read model's own fields (`_id`, `_position`, `_search`) are the store's, not the API's. */
export function withoutStoreFields<T extends Doc>(doc: T): Omit<T, '_id' | '_position' | '_search'> {
  const { _id, _position, _search, ...fields } = doc;
  return fields;
}
