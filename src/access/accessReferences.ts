import {
  catalogueFacts,
  noCatalogueFacts,
  readCatalogueFacts,
  type CatalogueFacts,
  type CatalogueLookup,
  type CatalogueReferences,
} from '../catalogue/catalogueReferences.js';
import { staleRevision } from '../domain/commandHandler.js';
import type { CommandSlice } from '../domain/commandSlice.js';
import { NotFound, ValidationFailed } from '../domain/errors.js';

export interface PlanReference {
  id: number;
  key: string;
  active: boolean;
}

export interface ClientReference {
  /** The revision of the client's stream. */
  revision: number;
  plan_id: number;
}

/**
 * The port through which an access command (clients, keys, subscriptions, plan changes) learns what lies
 * outside its aggregate. Only handlers use it; deciders get its answers as AccessFacts (plain values).
 */
export interface AccessReferences {
  planByKey(key: string): Promise<PlanReference | null>;
  planById(id: number): Promise<PlanReference | null>;
  client(id: number): Promise<ClientReference | null>;
  /** Ids of the published projects, ascending. */
  publishedProjectIds(): Promise<number[]>;
  catalogue: CatalogueReferences;
}

/** What an access slice looks up; its `references(command, state)` names it. */
export interface AccessLookup {
  planKeys?: readonly string[];
  planIds?: readonly number[];
  clients?: readonly number[];
  publishedProjects?: boolean;
  catalogue?: CatalogueLookup;
}

/** The answers to a lookup: the plans, clients and catalogue resources that exist, by what named them. */
export interface AccessFacts {
  plansByKey: ReadonlyMap<string, PlanReference>;
  plansById: ReadonlyMap<number, PlanReference>;
  clients: ReadonlyMap<number, ClientReference>;
  /** Empty unless the lookup asked for them. */
  publishedProjectIds: readonly number[];
  catalogue: CatalogueFacts;
}

export type AccessSlice<Command, State, Event> = CommandSlice<Command, State, Event, AccessLookup, AccessFacts>;

/** Builds facts from plain values (deciders' tests use it to state what exists). */
export function accessFacts(known: {
  plans?: PlanReference[];
  clients?: Record<number, ClientReference>;
  publishedProjectIds?: number[];
  catalogue?: CatalogueFacts;
}): AccessFacts {
  const plans = known.plans ?? [];
  return {
    plansByKey: new Map(plans.map((plan) => [plan.key, plan])),
    plansById: new Map(plans.map((plan) => [plan.id, plan])),
    clients: new Map(Object.entries(known.clients ?? {}).map(([id, client]) => [Number(id), client])),
    publishedProjectIds: known.publishedProjectIds ?? [],
    catalogue: known.catalogue ?? catalogueFacts({}),
  };
}

export const noAccessFacts: AccessFacts = accessFacts({});

/** Asks the port about everything the lookup names, at once. */
export async function readAccessFacts(port: AccessReferences, lookup: AccessLookup): Promise<AccessFacts> {
  const [byKey, byId, clients, publishedProjectIds, catalogue] = await Promise.all([
    Promise.all((lookup.planKeys ?? []).map((key) => port.planByKey(key))),
    Promise.all((lookup.planIds ?? []).map((id) => port.planById(id))),
    Promise.all((lookup.clients ?? []).map(async (id) => [id, await port.client(id)] as const)),
    lookup.publishedProjects ? port.publishedProjectIds() : [],
    lookup.catalogue ? readCatalogueFacts(port.catalogue, lookup.catalogue) : noCatalogueFacts,
  ]);
  const plans = [...byKey, ...byId].filter((plan): plan is PlanReference => plan !== null);
  return {
    plansByKey: new Map(byKey.filter((plan): plan is PlanReference => plan !== null).map((plan) => [plan.key, plan])),
    plansById: new Map(plans.map((plan) => [plan.id, plan])),
    clients: new Map(clients.flatMap(([id, client]) => (client === null ? [] : [[id, client] as const]))),
    publishedProjectIds,
    catalogue,
  };
}

/** The plan a body names by key, if it exists and takes clients; otherwise 422 naming body.plan. */
export function activePlanId(key: string, facts: AccessFacts): number {
  const plan = facts.plansByKey.get(key);
  if (!plan) throw new ValidationFailed({ 'body.plan': `no plan has the key '${key}'` });
  if (!plan.active) throw new ValidationFailed({ 'body.plan': `plan '${key}' is not active` });
  return plan.id;
}

/** The client a command belongs to must exist (404 naming it). */
export function existingClient(clientId: number, facts: AccessFacts): ClientReference {
  const client = facts.clients.get(clientId);
  if (!client) throw new NotFound(`Client ${clientId} does not exist.`);
  return client;
}

/**
 * A command on another aggregate that If-Match pins to the client as the caller saw it (e.g. a key is issued
 * only to the client the caller read): 409 when the client has changed since.
 */
export function clientAsSeen(clientId: number, expectedRevision: number | undefined, facts: AccessFacts): ClientReference {
  const client = existingClient(clientId, facts);
  if (expectedRevision !== undefined && expectedRevision !== client.revision) throw staleRevision(expectedRevision, client.revision);
  return client;
}
