import { z } from 'zod';
import * as createCommunity from '../../../commands/communities/createCommunity.js';
import * as publishCommunity from '../../../commands/communities/publishCommunity.js';
import * as reviseCommunity from '../../../commands/communities/reviseCommunity.js';
import * as unpublishCommunity from '../../../commands/communities/unpublishCommunity.js';
import * as createDeveloper from '../../../commands/developers/createDeveloper.js';
import * as publishDeveloper from '../../../commands/developers/publishDeveloper.js';
import * as reviseDeveloper from '../../../commands/developers/reviseDeveloper.js';
import * as unpublishDeveloper from '../../../commands/developers/unpublishDeveloper.js';
import * as createState from '../../../commands/states/createState.js';
import * as publishState from '../../../commands/states/publishState.js';
import * as reviseState from '../../../commands/states/reviseState.js';
import * as unpublishState from '../../../commands/states/unpublishState.js';
import * as createSubCommunity from '../../../commands/subCommunities/createSubCommunity.js';
import * as publishSubCommunity from '../../../commands/subCommunities/publishSubCommunity.js';
import * as reviseSubCommunity from '../../../commands/subCommunities/reviseSubCommunity.js';
import * as unpublishSubCommunity from '../../../commands/subCommunities/unpublishSubCommunity.js';
import * as createUnitType from '../../../commands/unitTypes/createUnitType.js';
import * as reviseUnitType from '../../../commands/unitTypes/reviseUnitType.js';
import { communityAggregate, type Community, type CommunityEvent } from '../../catalogue/community.js';
import { developerAggregate, type Developer, type DeveloperEvent } from '../../catalogue/developer.js';
import { stateAggregate, type StateEvent, type StateRegion } from '../../catalogue/state.js';
import { subCommunityAggregate, type SubCommunity, type SubCommunityEvent } from '../../catalogue/subCommunity.js';
import { unitTypeAggregate, type UnitType, type UnitTypeEvent } from '../../catalogue/unitType.js';
import { createCatalogueResource, updateCatalogueResource, type CatalogueSlice } from '../../catalogue/catalogueCommands.js';
import { loadAggregate, type CommandResult } from '../../domain/commandHandler.js';
import type { Aggregate } from '../../domain/decider.js';
import { NotFound } from '../../domain/errors.js';
import type { DomainEvent } from '../../eventStore/eventStore.js';
import type { UploadField } from '../../uploads/uploadKinds.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { noParams, refuseRevisionOfNewResource } from './adminSchemas.js';

type Slice<Command, Entity, Event> = CatalogueSlice<Command, Entity | null, Event>;

/** One reference-data resource as the admin API exposes it. */
interface Resource<Key extends string, Entity extends object, Event extends DomainEvent> {
  aggregate: Aggregate<Entity | null, Event>;
  /** Collection path, e.g. `/states`. */
  path: string;
  /** Name of the id path parameter, e.g. `stateId`. */
  idParam: Key;
  /** Parses `{ [idParam]: id }`; declared per resource so zod infers the key. */
  params: IdParams<Key>;
  /** Singular, for operation ids (`createState.decide`) and summaries. */
  noun: string;
  label: string;
  tag: string;
  response: z.ZodType;
}

const writeSideFields = {
  id: z.number().int().positive().meta({ description: 'Allocated by the service.' }),
  revision: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: "Revision of the resource's event stream; also sent as ETag, send it back as If-Match." }),
};
const published = z.boolean().meta({ description: 'Visible to API clients; starts false.' });

/** Path parameters arrive as strings. */
const idParam = z.coerce.number().int().positive();

type IdParams<Key extends string> = z.ZodType<Record<Key, number>>;

function representation<Entity extends object>(id: number, revision: number, entity: Entity | null): AdminRouteResult {
  if (!entity) throw new NotFound();
  return { data: { id, revision, ...entity }, revision };
}

const answer = <Entity extends object>(result: CommandResult<Entity | null, unknown>) =>
  representation(result.id, result.revision, result.state);

function createRoute<Key extends string, Entity extends object, Event extends DomainEvent, Body extends z.ZodType>(
  resource: Resource<Key, Entity, Event>,
  command: { body: Body; slice: Slice<z.infer<Body>, Entity, Event>; uploads?: readonly UploadField[] },
): AdminRoute<typeof noParams, Body> {
  return {
    method: 'post',
    path: resource.path,
    operationId: `create${resource.noun}`,
    summary: `Create a ${resource.label} (its id is allocated by the service)`,
    tag: resource.tag,
    params: noParams,
    body: command.body,
    ...(command.uploads ? { uploads: command.uploads } : {}),
    successStatus: 201,
    response: resource.response,
    async handle({ body, actor, expectedRevision }, deps: AdminDeps) {
      refuseRevisionOfNewResource(expectedRevision);
      const result = await createCatalogueResource(deps, { aggregate: resource.aggregate, actor, command: body, slice: command.slice });
      return answer(result);
    },
  };
}

function readRoute<Key extends string, Entity extends object, Event extends DomainEvent>(
  resource: Resource<Key, Entity, Event>,
): AdminRoute<IdParams<Key>> {
  return {
    method: 'get',
    path: `${resource.path}/:${resource.idParam}`,
    operationId: `get${resource.noun}`,
    summary: `Read a ${resource.label} as the write side holds it, with its revision`,
    tag: resource.tag,
    params: resource.params,
    successStatus: 200,
    response: resource.response,
    async handle({ params }, deps) {
      const id = params[resource.idParam];
      const loaded = await loadAggregate(deps.eventStore, resource.aggregate, id);
      if (!loaded) throw new NotFound();
      return representation(id, loaded.revision, loaded.state);
    },
  };
}

/**
 * Runs a command on an existing resource. A command that changes nothing answers the current state and
 * revision, so retrying an edit is harmless.
 */
function updateRoute<Key extends string, Entity extends object, Event extends DomainEvent, Body extends z.ZodType>(
  resource: Resource<Key, Entity, Event>,
  command: {
    method: 'patch' | 'post';
    action?: string;
    operationId: string;
    summary: string;
    body?: Body;
    uploads?: readonly UploadField[];
    slice: Slice<z.infer<Body>, Entity, Event>;
  },
): AdminRoute<IdParams<Key>, Body> {
  return {
    method: command.method,
    path: `${resource.path}/:${resource.idParam}${command.action ? `/${command.action}` : ''}`,
    operationId: command.operationId,
    summary: command.summary,
    tag: resource.tag,
    params: resource.params,
    ...(command.body ? { body: command.body } : {}),
    ...(command.uploads ? { uploads: command.uploads } : {}),
    successStatus: 200,
    response: resource.response,
    async handle({ params, body, expectedRevision, actor }, deps) {
      const result = await updateCatalogueResource(deps, {
        aggregate: resource.aggregate,
        id: params[resource.idParam],
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        actor,
        command: body,
        slice: command.slice,
      });
      return answer(result);
    },
  };
}

/** Publish and unpublish take no body; repeating either is a no-op that answers the current revision. */
function publicationRoutes<Key extends string, Entity extends object, Event extends DomainEvent>(
  resource: Resource<Key, Entity, Event>,
  decide: {
    publish: Slice<Record<string, never>, Entity, Event>['decide'];
    unpublish: Slice<Record<string, never>, Entity, Event>['decide'];
  },
): AdminRoute[] {
  return [
    updateRoute(resource, {
      method: 'post',
      action: 'publish',
      operationId: `publish${resource.noun}`,
      summary: `Publish a ${resource.label} (no-op when already published)`,
      slice: { decide: (_command, current, meta) => decide.publish({}, current, meta) },
    }),
    updateRoute(resource, {
      method: 'post',
      action: 'unpublish',
      operationId: `unpublish${resource.noun}`,
      summary: `Unpublish a ${resource.label} (no-op when not published)`,
      slice: { decide: (_command, current, meta) => decide.unpublish({}, current, meta) },
    }),
  ];
}

/** The representation of each resource: the write side's fields with its id and revision. */
export const adminStateSchema = createState.createStateSchema.extend({ ...writeSideFields, published }).meta({ id: 'AdminState' });
export const adminCommunitySchema = createCommunity.createCommunitySchema
  .extend({ ...writeSideFields, published })
  .meta({ id: 'AdminCommunity' });
export const adminSubCommunitySchema = createSubCommunity.createSubCommunitySchema
  .extend({ ...writeSideFields, published })
  .meta({ id: 'AdminSubCommunity' });
export const adminDeveloperSchema = createDeveloper.createDeveloperSchema
  .extend({ ...writeSideFields, published })
  .meta({ id: 'AdminDeveloper' });
export const adminUnitTypeSchema = createUnitType.createUnitTypeSchema.extend(writeSideFields).meta({ id: 'AdminUnitType' });

const stateResource: Resource<'stateId', StateRegion, StateEvent> = {
  aggregate: stateAggregate,
  path: '/states',
  idParam: 'stateId',
  params: z.object({ stateId: idParam }).strict(),
  noun: 'State',
  label: 'state',
  tag: 'States',
  response: adminStateSchema,
};

const communityResource: Resource<'communityId', Community, CommunityEvent> = {
  aggregate: communityAggregate,
  path: '/communities',
  idParam: 'communityId',
  params: z.object({ communityId: idParam }).strict(),
  noun: 'Community',
  label: 'community',
  tag: 'Communities',
  response: adminCommunitySchema,
};

const subCommunityResource: Resource<'subCommunityId', SubCommunity, SubCommunityEvent> = {
  aggregate: subCommunityAggregate,
  path: '/sub-communities',
  idParam: 'subCommunityId',
  params: z.object({ subCommunityId: idParam }).strict(),
  noun: 'SubCommunity',
  label: 'sub-community',
  tag: 'Sub-communities',
  response: adminSubCommunitySchema,
};

const developerResource: Resource<'developerId', Developer, DeveloperEvent> = {
  aggregate: developerAggregate,
  path: '/developers',
  idParam: 'developerId',
  params: z.object({ developerId: idParam }).strict(),
  noun: 'Developer',
  label: 'developer',
  tag: 'Developers',
  response: adminDeveloperSchema,
};

const unitTypeResource: Resource<'unitTypeId', UnitType, UnitTypeEvent> = {
  aggregate: unitTypeAggregate,
  path: '/unit-types',
  idParam: 'unitTypeId',
  params: z.object({ unitTypeId: idParam }).strict(),
  noun: 'UnitType',
  label: 'unit type',
  tag: 'Unit types',
  response: adminUnitTypeSchema,
};

const communityBanner: readonly UploadField[] = [{ field: 'banner', kind: 'image' }];
const developerLogo: readonly UploadField[] = [{ field: 'logo', kind: 'image' }];

/** Admin operations on the editor-managed reference data: states, communities, sub-communities, developers, unit types. */
export const referenceDataRoutes: AdminRoute[] = [
  createRoute(stateResource, { body: createState.createStateSchema, slice: createState }),
  readRoute(stateResource),
  updateRoute(stateResource, {
    method: 'patch',
    operationId: 'reviseState',
    summary: 'Revise some fields of a state',
    body: reviseState.reviseStateSchema,
    slice: reviseState,
  }),
  ...publicationRoutes(stateResource, { publish: publishState.decide, unpublish: unpublishState.decide }),

  createRoute(communityResource, { body: createCommunity.createCommunitySchema, slice: createCommunity, uploads: communityBanner }),
  readRoute(communityResource),
  updateRoute(communityResource, {
    method: 'patch',
    operationId: 'reviseCommunity',
    summary: 'Revise some fields of a community',
    body: reviseCommunity.reviseCommunitySchema,
    uploads: communityBanner,
    slice: reviseCommunity,
  }),
  ...publicationRoutes(communityResource, { publish: publishCommunity.decide, unpublish: unpublishCommunity.decide }),

  createRoute(subCommunityResource, { body: createSubCommunity.createSubCommunitySchema, slice: createSubCommunity }),
  readRoute(subCommunityResource),
  updateRoute(subCommunityResource, {
    method: 'patch',
    operationId: 'reviseSubCommunity',
    summary: 'Revise some fields of a sub-community',
    body: reviseSubCommunity.reviseSubCommunitySchema,
    slice: reviseSubCommunity,
  }),
  ...publicationRoutes(subCommunityResource, { publish: publishSubCommunity.decide, unpublish: unpublishSubCommunity.decide }),

  createRoute(developerResource, { body: createDeveloper.createDeveloperSchema, slice: createDeveloper, uploads: developerLogo }),
  readRoute(developerResource),
  updateRoute(developerResource, {
    method: 'patch',
    operationId: 'reviseDeveloper',
    summary: 'Revise some fields of a developer',
    body: reviseDeveloper.reviseDeveloperSchema,
    uploads: developerLogo,
    slice: reviseDeveloper,
  }),
  ...publicationRoutes(developerResource, { publish: publishDeveloper.decide, unpublish: unpublishDeveloper.decide }),

  createRoute(unitTypeResource, { body: createUnitType.createUnitTypeSchema, slice: createUnitType }),
  readRoute(unitTypeResource),
  updateRoute(unitTypeResource, {
    method: 'patch',
    operationId: 'reviseUnitType',
    summary: 'Revise some fields of a unit type (kind and bedrooms must still fit together)',
    body: reviseUnitType.reviseUnitTypeSchema,
    slice: reviseUnitType,
  }),
];
