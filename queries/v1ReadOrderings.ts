import type { FindOptions } from '../src/readStore/readStore.js';

/** A collection walked in a sort's order, the sort ending in `_id` as the read store's tie-breaker does. */
export interface ReadOrdering {
  collection: string;
  sort: NonNullable<FindOptions['sort']>;
}

const ascending = (field: string): ReadOrdering['sort'] => [
  [field, 1],
  ['_id', 1],
];
const descending = (field: string): ReadOrdering['sort'] => [
  [field, -1],
  ['_id', 1],
];
const orderings = (collection: string, sorts: ReadonlyArray<ReadOrdering['sort']>): ReadOrdering[] =>
  sorts.map((sort) => ({ collection, sort }));

/**
 * Every sorted order the /v1 reads walk a collection in (docs/read-indexes.md, "Embedded store"). The
 * embedded read store builds the ordering of a sort on its first use and keeps it through later writes:
 * at 200,000 projects the first `sort=name` list after a start took 0.66 s and the first change-feed page
 * 2 s. The api role reads each once before it listens (src/service.ts), so the start pays for them rather
 * than a client. test/readStore/v1ReadIndexes.spec.ts fails when a /v1 read walks an ordering not listed.
 */
export const v1ReadOrderings: readonly ReadOrdering[] = [
  ...orderings('projects', [
    [['_id', 1]],
    ascending('updated_at'),
    descending('updated_at'),
    ascending('starting_from'),
    descending('starting_from'),
    ascending('name'),
    descending('name'),
  ]),
  ...orderings('project_change_summaries', [
    [['_id', 1]],
    [
      ['feed_at', -1],
      ['_id', -1],
    ],
  ]),
  ...orderings('developers', [ascending('name'), descending('name'), ascending('updated_at'), descending('updated_at')]),
  ...orderings('communities', [[['_id', 1]], ascending('name'), descending('name'), ascending('updated_at'), descending('updated_at')]),
  ...orderings('sub_communities', [ascending('name'), descending('name'), ascending('updated_at'), descending('updated_at')]),
  ...orderings('agent_profiles', [
    ascending('agent_name'),
    descending('agent_name'),
    ascending('company_name'),
    descending('company_name'),
    ascending('updated_at'),
    descending('updated_at'),
  ]),
  ...orderings('webhooks', [ascending('created_at')]),
  ...orderings('webhook_deliveries', [descending('attempted_at')]),
];

/**
 * Collections the /v1 reads (and the PDF worker and webhooks) only read by `_id`: by id, or as sequence pages
 * (readSequence). The api role loads no mirror of them: the embedded read store answers both from its table
 * until something searches the collection. At 200,000 projects the mirrors of the project resources held
 * 1.1 GB of the heap, those of the change feed's entries 1.2 GB and the image addresses 0.9 GB, and on V8
 * every young-generation collection takes longer the larger the old generation is (about 30 ms each at a
 * 5.8 GB heap, against 8 ms at 0.3 GB). test/readStore/v1ReadIndexes.spec.ts fails when a /v1 read searches one of them.
 */
export const v1CollectionsReadById: readonly string[] = ['project_resources', 'project_changes', 'media_addresses', 'media_address_owners'];

/**
 * Large collections every search of which is on declared index fields: the embedded read store's mirrors of
 * them hold those fields only, and read the documents a query returns from the table, keeping a working set
 * (src/readStore/embedded/collectionMirror.ts, leanFields). At 200,000 projects the whole projects took 0.7 GB
 * of heap. The change feed's summaries (0.1 GB) stay whole: a full sync reads every one of them, a page of
 * 100 at a time. test/readStore/v1ReadIndexes.spec.ts fails when a /v1 read searches one of these on another field.
 */
export const v1CollectionsSearchedByIndexedFields: readonly string[] = ['projects'];
