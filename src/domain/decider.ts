import type { DomainEvent } from '../eventStore/eventStore.js';

/**
 * Everything a decider may not produce itself comes in here, so deciders stay pure:
 * the clock, service-allocated ids and the acting editor.
 */
export interface CommandMeta {
  /** ISO timestamp of the command. */
  now: string;
  /** Who issued the command (admin token holder, seed, ...). */
  actor: string;
  /** Ids allocated by the service for things the command creates, by purpose (e.g. `floorPlan`). */
  allocatedIds?: Record<string, number>;
}

/** An aggregate module: stream naming, initial state and the fold over its events. */
export interface Aggregate<State, Event extends DomainEvent> {
  /** Stream category; no dash (EventStoreDB splits the category at the first dash). */
  readonly category: string;
  streamName(id: number): string;
  initialState(): State;
  evolve(state: State, event: Event): State;
  /**
   * Present for aggregates with a slug that must be unique per resource type; the command handler
   * reserves a new slug before appending and releases the old one after.
   */
  slug?: {
    resourceType: string;
    of(state: State): string | undefined;
    /** The request field that carries it, named by a 409 SLUG_TAKEN; `body.slug` unless given. */
    field?: string;
  };
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled variant: ${JSON.stringify(value)}`);
}
