import { z } from 'zod';
import { checkpointNameOf } from '../src/projectionEngine/projection.js';
import type { Filter, FindOptions, ReadStore } from '../src/readStore/readStore.js';
import {
  changeFeedProjection,
  PROJECT_CHANGE_SUMMARIES,
  PROJECT_CHANGES,
  type ChangeKind,
  type ChangeTimes,
  type ProjectChangeDoc,
  type ProjectChangeSummaryDoc,
} from '../projections/changeFeed.js';
import { PROJECTS, projectsProjection, type ProjectDoc } from '../projections/projects.js';
import { changesCursorParameter, encodeChangesCursor, START_CURSOR } from './changeFeedCursor.js';
import { catalogueScopeOf, projectInScope, projectVisibleIn, type CatalogueScope } from './catalogueScope.js';
import { DEFAULT_PER_PAGE, pageParameter, pagination, paginationSchema, perPageParameter, updatedSinceSchema } from './queryParameters.js';
import { SerializedJsonArray, type QueryResult, type QueryRoute } from './queryRoute.js';
import { projectReferences, projectSummarySchema, serializedSummaries } from './representations.js';
import { mapInSlices } from './slicedMap.js';

const changeKinds = ['project', 'payment_plans', 'media', 'floor_plans', 'amenities', 'faqs'] as const satisfies readonly ChangeKind[];

const projectChangeSchema = z
  .object({
    project_id: z.number().int(),
    changed_at: z.iso.datetime().meta({
      description: 'The latest change this page reports of the project (of a removed project: its removal).',
    }),
    changes: z
      .array(z.enum(changeKinds))
      .meta({ description: 'What changed: the project itself and/or its payment_plans, media (gallery), floor_plans, amenities, faqs.' }),
    removed: z.boolean().meta({
      description:
        'True when the project, once visible to this client, was removed from its view by a change this page reports (unpublished, deleted or moved out of its restriction); project is then null.',
    }),
    project: projectSummarySchema.nullable().meta({ description: 'The project as it is now, when visible to this client.' }),
  })
  .meta({ id: 'ProjectChange' });

const changesQuery = z
  .object({
    updated_since: updatedSinceSchema
      .meta({ description: 'Report changes made after this moment. Required unless cursor is given; not with it.' })
      .optional(),
    cursor: changesCursorParameter.optional(),
    page: pageParameter.meta({ description: 'Page number, from 1 (default 1); with updated_since only.' }),
    per_page: perPageParameter.meta({
      description: 'Projects per page, 1 to 100 (default 20); more is refused with 422, never clamped.',
    }),
  })
  .strict()
  .superRefine((query, context) => {
    if (query.cursor !== undefined && query.updated_since !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['cursor'],
        message: 'cannot be combined with updated_since: a cursor already says where to resume; send one or the other',
      });
    } else if (query.cursor === undefined && query.updated_since === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['updated_since'],
        message: `is required unless cursor is given (cursor=${START_CURSOR} for a full sync)`,
      });
    }
    if (query.cursor !== undefined && query.page !== undefined) {
      context.addIssue({ code: 'custom', path: ['page'], message: 'cannot be combined with cursor: the next page is cursor=meta.cursor' });
    }
  });

/** What changed, as a set of bits: bit i stands for changeKinds[i] (a page reads one per project, not a Set). */
type KindBits = number;

const kindBit = (kind: ChangeKind): KindBits => 1 << changeKinds.indexOf(kind);

/** The `changes` array of every set of kinds, serialised in changeKinds' order. */
const changesJson = Array.from({ length: 1 << changeKinds.length }, (_, bits) =>
  JSON.stringify(changeKinds.filter((_kind, index) => (bits & (1 << index)) !== 0)),
);

interface ChangeSummary {
  changedAt: string;
  kinds: KindBits;
}

interface ChangedProject extends ChangeSummary {
  projectId: number;
  /** Each removal from a community where the project was published, with the changes up to and including it. */
  withdrawals: Array<ChangeSummary & { communityId: number }>;
}

/** Every project with a change among a cursor page's `changes` (in log order), ordered by its first one. */
function changedProjects(changes: readonly ProjectChangeDoc[]): ChangedProject[] {
  const byProject = new Map<number, ChangedProject>();
  for (const change of changes) {
    let changed = byProject.get(change.project_id);
    if (!changed) {
      changed = { projectId: change.project_id, changedAt: change.changed_at, kinds: 0, withdrawals: [] };
      byProject.set(change.project_id, changed);
    }
    if (change.changed_at > changed.changedAt) changed.changedAt = change.changed_at;
    changed.kinds |= kindBit(change.kind);
    if (change.withdrawn_from_community_id !== null) {
      changed.withdrawals.push({
        communityId: change.withdrawn_from_community_id,
        changedAt: changed.changedAt,
        kinds: changed.kinds,
      });
    }
  }
  return [...byProject.values()];
}

interface ReportedChange extends ChangeSummary {
  projectId: number;
  /** Visible to the client now; null = removed from its view. */
  project: ProjectDoc | null;
}

const visibleNow = (project: ProjectDoc | undefined, scope: CatalogueScope): project is ProjectDoc =>
  project?.published === true && projectInScope(scope, project);

/** Whether the change took the project out of a community where this client would see it. */
const withdrewFromView = (change: ProjectChangeDoc, scope: CatalogueScope): boolean =>
  change.withdrawn_from_community_id !== null && projectVisibleIn(scope, change.project_id, change.withdrawn_from_community_id);

/**
 * The feed's rule: a project visible to the client now (published, in its restriction and sample) is
 * reported with what changed; one not visible now is reported removed only when one of the changes read
 * withdrew it (unpublished, deleted or moved away while published) from a community where this client
 * could see it, as far as that change; any other project, never published or never visible to this client,
 * is not reported at all.
 */
function reportedChange(changed: ChangedProject, project: ProjectDoc | undefined, scope: CatalogueScope): ReportedChange | null {
  if (visibleNow(project, scope)) return { ...changed, project };
  const seen = changed.withdrawals.findLast((withdrawal) => projectVisibleIn(scope, changed.projectId, withdrawal.communityId));
  return seen ? { projectId: changed.projectId, changedAt: seen.changedAt, kinds: seen.kinds, project: null } : null;
}

/**
 * How far the feed may report: the lower of the change feed's and the projects' checkpoints. A checkpoint is
 * stored with its batch's documents (MongoDB: after them), so every entry up to it can be read, and every
 * project it names is at least as new as the entry: a change is never reported with an older summary, after
 * which a cursor would have moved past it.
 */
async function projectedPosition(readStore: ReadStore): Promise<number> {
  const [changes, projects] = await Promise.all([
    readStore.getCheckpoint(checkpointNameOf(changeFeedProjection)),
    readStore.getCheckpoint(checkpointNameOf(projectsProjection)),
  ]);
  if (changes === null || projects === null) return 0;
  return Number(changes < projects ? changes : projects);
}

/** Entries read per query while a cursor page is cut. */
const SCAN_CHUNK = 500;
/**
 * Entries one cursor page reads at most, which bounds a request's work when few of the changes are this
 * client's to see; a page cut there may hold fewer items than per_page, even none, and says has_more.
 */
const MAX_SCANNED_ENTRIES = 10_000;

interface CursorCut {
  /** The entries the page covers, in log order: all of (after, last]. */
  entries: ProjectChangeDoc[];
  projects: Map<number, ProjectDoc>;
  /** The position of the last entry covered; `after` itself when none was. */
  last: number;
  hasMore: boolean;
}

/**
 * The longest run of entries after `after` (up to `until`) that reports at most `perPage` projects. A project
 * becomes reported by the first entry of the run that makes reportedChange report it, and stays so as the run
 * grows, so the run ends right before the entry that would report one project too many.
 */
async function cutCursorPage(
  readStore: ReadStore,
  scope: CatalogueScope,
  after: number,
  until: number,
  perPage: number,
): Promise<CursorCut> {
  const entries: ProjectChangeDoc[] = [];
  const projects = new Map<number, ProjectDoc>();
  const looked = new Set<number>();
  const reported = new Set<number>();
  let last = after;
  while (entries.length < MAX_SCANNED_ENTRIES) {
    const limit = Math.min(SCAN_CHUNK, MAX_SCANNED_ENTRIES - entries.length);
    const items = await readStore.readSequence<ProjectChangeDoc>(PROJECT_CHANGES, { after: last, until, limit });
    const unseen = [...new Set(items.map((entry) => entry.project_id))].filter((id) => !looked.has(id));
    for (const id of unseen) looked.add(id);
    for (const project of await readStore.getMany<ProjectDoc>(PROJECTS, unseen)) projects.set(project.id, project);
    for (const entry of items) {
      const id = entry.project_id;
      if (!reported.has(id) && (visibleNow(projects.get(id), scope) || withdrewFromView(entry, scope))) {
        if (reported.size === perPage) return { entries, projects, last, hasMore: true };
        reported.add(id);
      }
      entries.push(entry);
      last = entry.position;
    }
    if (items.length < limit) return { entries, projects, last, hasMore: false };
  }
  return { entries, projects, last, hasMore: true };
}

const ITEM_CLOSING = Buffer.from('}');
const NO_PROJECT = Buffer.from('null');

/** An item's bytes before its project (`{"project_id":...,"project":`), and the item's digest, for the summary it was made with. */
interface ItemHead {
  changedAt: string;
  kinds: KindBits;
  /** The digest of the project's summary; null when the item reports it removed. */
  summaryDigest: string | null;
  opening: Buffer;
  digest: string;
}

/**
 * Each project's last item head, kept while it reports the same change with the same summary: a client
 * syncing the whole feed page after page reads the same items again, and a page then builds and encodes
 * nothing but its body (issue 19). Keyed by project, so it holds one head (about 110 bytes) per project.
 */
const itemHeads = new Map<number, ItemHead>();

function itemHead(entry: ReportedChange, summaryDigest: string | null): ItemHead {
  const cached = itemHeads.get(entry.projectId);
  if (cached?.changedAt === entry.changedAt && cached.kinds === entry.kinds && cached.summaryDigest === summaryDigest) return cached;
  // JSON.stringify's bytes of {project_id, changed_at, changes, removed, project}, up to the project.
  const opening =
    `{"project_id":${entry.projectId},"changed_at":${JSON.stringify(entry.changedAt)},"changes":${changesJson[entry.kinds]!},` +
    `"removed":${summaryDigest === null},"project":`;
  const head = {
    changedAt: entry.changedAt,
    kinds: entry.kinds,
    summaryDigest,
    opening: Buffer.from(opening),
    digest: `${opening}${summaryDigest ?? 'null'}}`,
  };
  itemHeads.set(entry.projectId, head);
  return head;
}

/**
 * The page's items as UTF-8 bytes in parts, joined by the response (SerializedJsonArray): each item is its
 * head (itemHeads), its project's summary (the serialised one lists reuse while the project and what it names
 * are unchanged) and a closing brace. They are built in slices (queries/slicedMap.ts) so that a page of
 * summaries not cached yet does not hold up other clients' requests. The digest stands for the page in the
 * ETag, so the whole body is not hashed.
 */
async function representChanges(readStore: ReadStore, reported: readonly ReportedChange[], baseUrl: string): Promise<SerializedJsonArray> {
  const references = await projectReferences(
    readStore,
    reported.flatMap((entry) => (entry.project ? [entry.project] : [])),
  );
  const audience = { baseUrl, detailFields: null };
  const digests: string[] = [];
  const items = await mapInSlices(reported, (entry) => {
    const summary = entry.project ? serializedSummaries.one(entry.project, references, audience) : null;
    const head = itemHead(entry, summary?.digest ?? null);
    digests.push(head.digest);
    return [head.opening, summary?.bytes ?? NO_PROJECT, ITEM_CLOSING];
  });
  return new SerializedJsonArray(items, `[${digests.join(',')}]`);
}

async function cursorPage(
  readStore: ReadStore,
  scope: CatalogueScope,
  after: number,
  perPage: number,
  baseUrl: string,
): Promise<QueryResult> {
  const cut = await cutCursorPage(readStore, scope, after, await projectedPosition(readStore), perPage);
  const reported = changedProjects(cut.entries).flatMap(
    (changed) => reportedChange(changed, cut.projects.get(changed.projectId), scope) ?? [],
  );
  return {
    data: await representChanges(readStore, reported, baseUrl),
    meta: { cursor: encodeChangesCursor(cut.last), has_more: cut.hasMore },
  };
}

/** A project an updated_since page reports; `visible` = with its summary, otherwise removed. */
interface SinceReport extends ChangeSummary {
  projectId: number;
  visible: boolean;
}

const kindsAfter = (times: ChangeTimes, since: string): KindBits =>
  changeKinds.reduce((bits, kind, index) => ((times[kind] ?? '') > since ? bits | (1 << index) : bits), 0);

/**
 * The feed's rule on a project's summary: visible to the client now (published, in its restriction and
 * sample), it is reported when its latest change came after `since`, with the kinds changed after it; not
 * visible now, it is reported removed when its latest removal from a community where this client would see
 * it has a changed_at after `since`, as far as that removal.
 */
function sinceReport(summary: ProjectChangeSummaryDoc, scope: CatalogueScope, since: string): SinceReport | null {
  const projectId = summary._id;
  if (summary.published && projectInScope(scope, { id: projectId, community_id: summary.community_id })) {
    return summary.changed_at > since
      ? { projectId, changedAt: summary.changed_at, kinds: kindsAfter(summary.kinds, since), visible: true }
      : null;
  }
  const seen = summary.withdrawals.findLast((withdrawal) => projectVisibleIn(scope, projectId, withdrawal.community_id));
  return seen && seen.changed_at > since
    ? { projectId, changedAt: seen.changed_at, kinds: kindsAfter(seen.kinds, since), visible: false }
    : null;
}

/** The order of updated_since pages: newest first, then the higher project_id, as the summaries' feed index walked backwards. */
const reportedBefore = (left: SinceReport, right: SinceReport): boolean =>
  left.changedAt > right.changedAt || (left.changedAt === right.changedAt && left.projectId > right.projectId);

const newestFirst: FindOptions['sort'] = [
  ['feed_at', -1],
  ['_id', -1],
];

/**
 * Where a client's reports come from. `indexed`: the summaries a filter on the feed index selects, each
 * reported, in page order (a client without an evaluation sample: every project whose feed community it sees).
 * `loose`: the few judged one by one: an evaluation sample's (at most 100 projects), or a restricted client's
 * projects that left its communities for others (feed_community_id outside them), each removed at most once.
 */
async function sinceSources(
  readStore: ReadStore,
  scope: CatalogueScope,
  since: string,
): Promise<{ indexed: Filter | null; loose: SinceReport[] }> {
  const judged = (summaries: readonly ProjectChangeSummaryDoc[]) =>
    summaries.flatMap((summary) => sinceReport(summary, scope, since) ?? []);
  if (scope.projectIds !== null) {
    return {
      indexed: null,
      loose: judged(await readStore.getMany<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, [...scope.projectIds])),
    };
  }
  const communities = scope.restrictionCommunityIds;
  if (communities === null) return { indexed: { feed_at: { $gt: since } }, loose: [] };
  const ids = [...communities];
  const { items: departed } = await readStore.find<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, {
    filter: { left_community_ids: { $in: ids } },
  });
  return {
    indexed: { feed_community_id: { $in: ids }, feed_at: { $gt: since } },
    loose: judged(departed.filter((summary) => summary.feed_community_id === null || !communities.has(summary.feed_community_id))),
  };
}

/**
 * One page of the indexed reports merged with the loose ones. The loose reports take at most all their
 * places before the page, so the index is read from `offset - loose.length` to the page's end: per_page plus
 * the loose reports at most, at any page number; its total comes from the same index walk.
 */
async function mergedPage(
  readStore: ReadStore,
  scope: CatalogueScope,
  since: string,
  offset: number,
  perPage: number,
): Promise<{ reports: SinceReport[]; total: number }> {
  const { indexed, loose } = await sinceSources(readStore, scope, since);
  loose.sort((left, right) => (reportedBefore(left, right) ? -1 : 1));
  if (indexed === null) return { reports: loose.slice(offset, offset + perPage), total: loose.length };
  const skip = Math.max(0, offset - loose.length);
  const { items, total } = await readStore.find<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, {
    filter: indexed,
    sort: newestFirst,
    skip,
    limit: offset + perPage - skip,
  });
  const window = items.flatMap((summary) => sinceReport(summary, scope, since) ?? []);
  const reports: SinceReport[] = [];
  // Past the end of the indexed reports, the page lies beyond the loose ones too.
  if (window.length > 0 || skip === 0) {
    let nextLoose = skip === 0 ? 0 : loose.filter((report) => reportedBefore(report, window[0]!)).length;
    let nextIndexed = 0;
    for (let position = skip + nextLoose; position < offset + perPage; position++) {
      const takeLoose =
        nextLoose < loose.length && (nextIndexed === window.length || reportedBefore(loose[nextLoose]!, window[nextIndexed]!));
      if (!takeLoose && nextIndexed === window.length) break;
      const report = takeLoose ? loose[nextLoose++]! : window[nextIndexed++]!;
      if (position >= offset) reports.push(report);
    }
  }
  return { reports, total: total + loose.length };
}

/**
 * An updated_since page, as the spec has it, read from the summaries' indexes newest first, with the cursor
 * to read on from: the projected position when the page was read (a position, not an entry: looking up the
 * last entry at or before it sorted the whole change log again after every write).
 */
async function updatedSincePage(
  readStore: ReadStore,
  scope: CatalogueScope,
  since: string,
  page: number,
  perPage: number,
  baseUrl: string,
): Promise<QueryResult> {
  // Read before the page: a cursor never passes changes the page could not show (reading on repeats, never misses).
  const projected = await projectedPosition(readStore);
  const { reports, total } = await mergedPage(readStore, scope, since, (page - 1) * perPage, perPage);
  const projects = new Map(
    (
      await readStore.getMany<ProjectDoc>(
        PROJECTS,
        reports.filter((report) => report.visible).map((report) => report.projectId),
      )
    ).map((project) => [project.id, project]),
  );
  const reported = reports.flatMap((report): ReportedChange[] => {
    if (!report.visible) return [{ projectId: report.projectId, changedAt: report.changedAt, kinds: report.kinds, project: null }];
    const project = projects.get(report.projectId);
    // The projects read model is projected apart from the summaries, a moment behind or ahead of them: a
    // project it does not serve this client yet is left to the next read rather than shown as it is not served.
    return visibleNow(project, scope) ? [{ projectId: report.projectId, changedAt: report.changedAt, kinds: report.kinds, project }] : [];
  });
  return {
    data: await representChanges(readStore, reported, baseUrl),
    meta: { pagination: pagination(page, perPage, total), cursor: encodeChangesCursor(projected) },
  };
}

export const listProjectChanges: QueryRoute<z.ZodObject, typeof changesQuery> = {
  path: '/projects/changes',
  operationId: 'listProjectChanges',
  summary: 'Projects changed after a moment or a cursor (change feed)',
  description: [
    'Projects whose own fields, payment plans, gallery, floor plans, amenities or FAQs changed (image-only changes are not reported), ' +
      'read in one of two ways.',
    "**With `cursor` (lossless sync).** Start with `cursor=start` and send back each page's `meta.cursor` as it came. Each page reports " +
      'the changes after its cursor in log (commit) order, at most `per_page` projects, each once, with what changed and the project as it ' +
      'is now. `meta.has_more` says whether more changes are there now; when false, read again later with the same cursor. Guarantee: ' +
      "reading with cursors never misses and never repeats a change, whatever the editors' clocks say: every change is reported by " +
      'exactly one page, a page reports only changes whose project data is already served, and a reader that applies the pages in order ' +
      '(replace the project, or drop it when removed) ends with exactly the projects this client sees. A project changed again later is ' +
      'reported again on a later page. A page may hold fewer than per_page projects, even none, while has_more is true (it skipped changes ' +
      'this client may not see). Cursors stay valid across restarts of the service and rebuilds of its read models.',
    '**With `updated_since`.** Projects changed after that moment, paginated with `page`. A project changed only through its related ' +
      'collections keeps its own older updated_at, so read every page for one updated_since. Order: newest first, by changed_at, then ' +
      'by project_id from the highest. While edits arrive, an edited project moves to the first page and pushes the projects it passes ' +
      'one place on, never back (unless the restriction or sample of this client changes): a project may come twice (apply the pages ' +
      'in order) but none is skipped, and the edited project itself is reported by reading on with a cursor. So to sync while editors ' +
      'work, keep `meta.cursor` of the first page, read every page, then read on with that cursor: it reports every change made ' +
      'meanwhile, whatever the wall-clock times of the edits, which updated_since compares. `meta.cursor` is where the feed stood ' +
      'when the page was read.',
    'Either way, only what this client could have seen is reported: a project visible to it now (published, and within its catalogue ' +
      'restriction and evaluation sample) comes with its summary; a project no longer visible to it comes with removed=true and ' +
      'project=null only when a reported change unpublished, deleted or moved it to another community while published in a community ' +
      "where this client would see it (judged by the client's restriction and sample now); its changed_at and changes then stop at that " +
      'removal (with updated_since: its latest such removal, reported when it came after updated_since). A project never published, ' +
      'or never published where this client would see it, never appears.',
  ].join('\n\n'),
  tag: 'Projects',
  scopes: ['projects:sync'],
  entitlements: [],
  params: z.object({}).strict(),
  query: changesQuery,
  response: z.array(projectChangeSchema),
  meta: z.object({
    pagination: paginationSchema.optional().meta({ description: 'With updated_since only.' }),
    cursor: z.string().meta({ description: 'Opaque: send it back as `cursor` to read the changes after the ones this page covers.' }),
    has_more: z
      .boolean()
      .optional()
      .meta({ description: 'With cursor only: true when more changes are there now (read on at once), false when caught up.' }),
  }),
  errors: [],
  async handle({ query, baseUrl, access }, { readStore }) {
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const scope = await catalogueScopeOf(readStore, access);
    if (query.cursor !== undefined) return cursorPage(readStore, scope, query.cursor, perPage, baseUrl);
    // The query schema lets no request through with neither.
    return updatedSincePage(readStore, scope, query.updated_since!, query.page ?? 1, perPage, baseUrl);
  },
};
