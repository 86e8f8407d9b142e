import { z } from 'zod';
import { agentProfileAggregate } from '../../access/agentProfile.js';
import { apiKeyAggregate } from '../../access/apiKey.js';
import { clientAggregate } from '../../access/client.js';
import { editorAggregate } from '../../access/editor.js';
import { recordedActorOf } from '../../access/editorActor.js';
import { planAggregate } from '../../access/plan.js';
import { planChangeRequestAggregate } from '../../access/planChangeRequest.js';
import { subscriptionAggregate } from '../../access/subscription.js';
import { communityAggregate } from '../../catalogue/community.js';
import { developerAggregate } from '../../catalogue/developer.js';
import { projectAggregate } from '../../catalogue/project.js';
import { stateAggregate } from '../../catalogue/state.js';
import { subCommunityAggregate } from '../../catalogue/subCommunity.js';
import { unitTypeAggregate } from '../../catalogue/unitType.js';
import { NotFound } from '../../domain/errors.js';
import type { EventStore, RecordedEvent } from '../../eventStore/eventStore.js';
import { forwardEventStore } from '../../metrics/forwardingStores.js';
import { currencyRateAggregate, currencyRateId, RATED_CURRENCIES } from '../../pdf/currencyRate.js';
import { webhookAggregate, webhookStream } from '../../webhooks/webhook.js';
import type { AdminRoute } from '../adminRoute.js';
import { DEFAULT_PER_PAGE, pageParameter, pagination, perPageParameter } from '../pagination.js';
import { webhookIdSchema } from '../webhookApi.js';
import { listMetaSchema } from './adminLists.js';
import { pathId, timestampSchema } from './adminSchemas.js';
import { fieldChanges } from './historyChanges.js';

/** A record's stream folded as its aggregate folds it. */
interface Fold {
  initialState(): unknown;
  evolve(state: unknown, event: RecordedEvent): unknown;
}

/** Each aggregate's evolve takes its own event union; a stream of the aggregate holds only those. */
const foldOf = (aggregate: { initialState(): unknown; evolve(state: never, event: never): unknown }): Fold => aggregate as unknown as Fold;

/** One resource whose records have a history: where its records are, and how to find and fold their streams. */
interface HistorySource<Params extends z.ZodType> {
  /** The record's path below /admin/v1; the history is `<recordPath>/history`. */
  recordPath: string;
  /** `Project` in getProjectHistory. */
  name: string;
  tag: string;
  params: Params;
  stream(params: z.infer<Params>): string;
  fold: Fold;
  /** Fields of the state that never leave the service: a key's hash, a webhook's sealed secrets. */
  hidden?: readonly string[];
  /** For a record under another one in the path (a client's key): whether the record is that one's. */
  belongsTo?(state: unknown, params: z.infer<Params>): boolean;
}

const ofClient = (state: unknown, params: { clientId: number }) => (state as { client_id?: number } | null)?.client_id === params.clientId;

const idParams = <Name extends string>(name: Name) => z.object({ [name]: pathId } as Record<Name, typeof pathId>).strict();
const clientRecordParams = <Name extends string>(name: Name) =>
  z.object({ clientId: pathId, [name]: pathId } as { clientId: typeof pathId } & Record<Name, typeof pathId>).strict();

const currencyParams = z
  .object({
    currencyCode: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
      .transform((code) => code.toUpperCase()),
  })
  .strict();

/** A currency without a rate of its own (AED, or one brochures do not print) has no stream: the one 404. */
function currencyRateStreamOf(code: string): string {
  const rated = RATED_CURRENCIES.find((candidate) => candidate === code);
  if (rated === undefined) throw new NotFound(`${code} has no rate history; rates are kept for ${RATED_CURRENCIES.join(', ')}.`);
  return currencyRateAggregate.streamName(currencyRateId(rated));
}

/** A record addressed by its own id, whose stream its aggregate names. */
function numberedSource(
  recordPath: string,
  name: string,
  tag: string,
  param: string,
  aggregate: { streamName(id: number): string; initialState(): unknown; evolve(state: never, event: never): unknown },
): HistorySource<z.ZodType> {
  return {
    recordPath,
    name,
    tag,
    params: idParams(param),
    stream: (parsed: Record<string, number>) => aggregate.streamName(parsed[param]!),
    fold: foldOf(aggregate),
  };
}

/** Every resource with a stream per record (a stream helper): its history is served. */
const HISTORY_SOURCES: ReadonlyArray<HistorySource<z.ZodType>> = [
  numberedSource('/projects/:projectId', 'Project', 'Projects', 'projectId', projectAggregate),
  numberedSource('/developers/:developerId', 'Developer', 'Developers', 'developerId', developerAggregate),
  numberedSource('/states/:stateId', 'State', 'States', 'stateId', stateAggregate),
  numberedSource('/communities/:communityId', 'Community', 'Communities', 'communityId', communityAggregate),
  numberedSource('/sub-communities/:subCommunityId', 'SubCommunity', 'Sub-communities', 'subCommunityId', subCommunityAggregate),
  numberedSource('/unit-types/:unitTypeId', 'UnitType', 'Unit types', 'unitTypeId', unitTypeAggregate),
  numberedSource('/plans/:planId', 'Plan', 'Plans', 'planId', planAggregate),
  numberedSource('/clients/:clientId', 'Client', 'Clients', 'clientId', clientAggregate),
  numberedSource('/agent-profiles/:agentProfileId', 'AgentProfile', 'Agent profiles', 'agentProfileId', agentProfileAggregate),
  numberedSource('/editors/:editorId', 'Editor', 'Editors', 'editorId', editorAggregate),
  {
    recordPath: '/clients/:clientId/keys/:keyId',
    name: 'ApiKey',
    tag: 'API keys',
    params: clientRecordParams('keyId'),
    stream: (params: { keyId: number }) => apiKeyAggregate.streamName(params.keyId),
    fold: foldOf(apiKeyAggregate),
    hidden: ['key_hash'],
    belongsTo: ofClient,
  },
  {
    recordPath: '/clients/:clientId/plan-changes/:requestId',
    name: 'PlanChange',
    tag: 'Plan changes',
    params: clientRecordParams('requestId'),
    stream: (params: { requestId: number }) => planChangeRequestAggregate.streamName(params.requestId),
    fold: foldOf(planChangeRequestAggregate),
    belongsTo: ofClient,
  },
  {
    recordPath: '/clients/:clientId/subscription',
    name: 'Subscription',
    tag: 'Clients',
    params: idParams('clientId'),
    stream: (params: { clientId: number }) => subscriptionAggregate.streamName(params.clientId),
    fold: foldOf(subscriptionAggregate),
  },
  {
    recordPath: '/webhooks/:webhookId',
    name: 'Webhook',
    tag: 'Webhooks',
    params: z.object({ webhookId: webhookIdSchema }).strict(),
    stream: (params: { webhookId: string }) => webhookStream(params.webhookId),
    fold: foldOf(webhookAggregate),
    hidden: ['secrets'],
  },
  {
    recordPath: '/currency-rates/:currencyCode',
    name: 'CurrencyRate',
    tag: 'Currency rates',
    params: currencyParams,
    stream: (params: { currencyCode: string }) => currencyRateStreamOf(params.currencyCode),
    fold: foldOf(currencyRateAggregate),
  },
];

const actorSchema = z
  .object({
    id: z
      .string()
      .nullable()
      .meta({ description: "`editor:<id>`, `bootstrap` (ADMIN_TOKEN), `seed`, or `client:<id>/key:<id>` for a client's own /v1 writes." }),
    editor_id: z
      .number()
      .int()
      .positive()
      .nullable()
      .meta({ description: 'The editor account; null for the bootstrap token and outside the admin API.' }),
    token_id: z.number().int().positive().nullable().meta({ description: "The account's token the request was sent with." }),
    request_id: z.string().nullable().meta({ description: 'X-Request-Id of the request that appended the event.' }),
    client_address: z
      .string()
      .nullable()
      .meta({ description: 'The address the request came from (X-Forwarded-For only from TRUSTED_PROXIES).' }),
  })
  .meta({
    id: 'HistoryActor',
    description: 'Who appended the event; fields an event does not record (events older than named editors, the seed, /v1) are null.',
  });

const historyEntrySchema = z
  .object({
    event_id: z.string(),
    type: z.string().meta({ description: 'The event type, e.g. ProjectRevised.' }),
    time: timestampSchema.meta({ description: 'When the event store recorded the event.' }),
    position: z
      .string()
      .regex(/^\d+$/)
      .meta({ description: 'Its log position (decimal digits), as `meta.position` of the write that appended it.' }),
    revision: z.number().int().nonnegative().meta({ description: "The record's revision this event made." }),
    actor: actorSchema,
    changes: z
      .array(
        z.object({
          field: z.string().meta({ description: 'Path of the changed value in the record, e.g. `name`, `floor_plans.12.title`.' }),
          before: z.unknown().meta({ description: 'null where the field did not exist.' }),
          after: z.unknown(),
        }),
      )
      .meta({
        description:
          'The fields whose values differ between the record before and after the event (both folded from its stream), down to the values that changed; a list that grew or shrank is shown whole.',
      }),
  })
  .meta({ id: 'HistoryEntry' });

const historyQuery = z.object({ page: pageParameter, per_page: perPageParameter }).strict();

function withoutHidden(state: unknown, hidden: readonly string[] | undefined): unknown {
  if (!hidden || typeof state !== 'object' || state === null) return state;
  return Object.fromEntries(Object.entries(state).filter(([field]) => !hidden.includes(field)));
}

function historyRoute(source: HistorySource<z.ZodType>): AdminRoute<z.ZodType, z.ZodType, typeof historyQuery> {
  return {
    method: 'get',
    path: `${source.recordPath}/history`,
    operationId: `get${source.name}History`,
    summary: "The record's events, newest first and paginated: type, time, position, actor and the fields each one changed",
    tag: source.tag,
    params: source.params,
    query: historyQuery,
    successStatus: 200,
    response: z.array(historyEntrySchema),
    meta: listMetaSchema,
    async handle({ params, query }, deps) {
      const events = await deps.eventStore.readStream(source.stream(params));
      let state = source.fold.initialState();
      const entries: Array<z.input<typeof historyEntrySchema>> = [];
      for (const event of events) {
        const before = state;
        state = source.fold.evolve(state, event);
        entries.push({
          event_id: event.id,
          type: event.type,
          time: event.recordedAt,
          position: String(event.position),
          revision: event.revision,
          actor: recordedActorOf(event.metadata),
          changes: fieldChanges(withoutHidden(before, source.hidden), withoutHidden(state, source.hidden)),
        });
      }
      if (entries.length === 0 || (source.belongsTo && !source.belongsTo(state, params))) throw new NotFound();
      const page = query?.page ?? 1;
      const perPage = query?.per_page ?? DEFAULT_PER_PAGE;
      const newestFirst = entries.reverse();
      return {
        data: newestFirst.slice((page - 1) * perPage, page * perPage),
        meta: { pagination: pagination(page, perPage, newestFirst.length) },
      };
    },
  };
}

/** `GET <record>/history` for every resource with a stream per record. */
export const historyRoutes: AdminRoute[] = HISTORY_SOURCES.map((source) => historyRoute(source) as AdminRoute);

// as_of: a record as it was, folded from the events its stream had then.

const AS_OF_PROBLEM =
  'must be an ISO 8601 timestamp with a time zone (e.g. 2026-01-31T12:00:00Z) or a log position (the decimal digits a write answered in meta.position)';

type AsOf = { position: bigint } | { time: string };

const asOfSchema = z
  .string()
  .transform((value, ctx): AsOf => {
    if (/^\d{1,20}$/.test(value)) return { position: BigInt(value) };
    if (z.iso.datetime({ offset: true }).safeParse(value).success) return { time: new Date(value).toISOString() };
    ctx.addIssue({ code: 'custom', message: AS_OF_PROBLEM });
    return z.NEVER;
  })
  .meta({
    description:
      'The record as it was then: folded from the events its stream had at that time (as the event store recorded them) or up to and including that log position. 404 when it did not exist yet.',
  })
  .optional();

const asOfQuery = z.object({ as_of: asOfSchema }).strict();

const recordedBy = (asOf: AsOf) => (event: RecordedEvent) =>
  'position' in asOf ? event.position <= asOf.position : event.recordedAt <= asOf.time;

/** The event store as it stood at `asOf`: a stream read through it has only the events it had then. */
function eventStoreAsOf(eventStore: EventStore, asOf: AsOf): EventStore {
  const stood = recordedBy(asOf);
  return {
    ...forwardEventStore(eventStore),
    readStream: async (streamName, options) => (await eventStore.readStream(streamName, options)).filter(stood),
  };
}

/**
 * A GET of a record folded from its stream (getProject), also answering `?as_of=`: the same handler runs
 * on the stream as it stood then, so the record comes out exactly as a GET answered it at that moment, with
 * that revision; a stream that had no event then is the route's own 404.
 */
export function readableAsOf(route: AdminRoute): AdminRoute {
  return {
    ...route,
    summary: `${route.summary}; with \`as_of\`, as it was at a time or log position`,
    query: asOfQuery,
    async handle(input, deps) {
      const asOf = (input.query as z.infer<typeof asOfQuery> | undefined)?.as_of;
      if (asOf === undefined) return route.handle(input, deps);
      return route.handle(input, { ...deps, eventStore: eventStoreAsOf(deps.eventStore, asOf) });
    },
  };
}
