import { expect } from 'vitest';
import { freezeDeep } from '../../src/domain/aggregateCache.js';
import type { Aggregate, CommandMeta } from '../../src/domain/decider.js';
import { ApiError } from '../../src/domain/errors.js';
import type { DomainEvent } from '../../src/eventStore/eventStore.js';

/** The meta a command handler passes to a decider: the aggregate's id comes with it. */
export type DecideMeta = CommandMeta & { id: number };

export type Decide<Command, State, Event> = (command: Command, state: State, meta: DecideMeta) => Event[];

export const defaultMeta: DecideMeta = {
  now: '2024-05-01T10:00:00.000Z',
  actor: 'editor@test',
  allocatedIds: {},
  id: 1,
};

type ErrorClass = abstract new (...args: never[]) => Error;

export interface DeciderThen<Event> {
  then(expected: Event[]): void;
  /**
   * Expects the decider to refuse, by error class or by ApiError code; returns the error so a test can
   * look at its details.
   */
  thenThrows(expected: ErrorClass | string): Error;
}

export interface DeciderGiven<Command, Event, Extra extends object = object> {
  when(command: Command, meta?: Partial<DecideMeta & Extra>): DeciderThen<Event>;
}

/**
 * Given/when/then for pure deciders: the given events are folded with the aggregate's evolve, the command
 * is decided against the result, and the emitted events (or the refusal) are compared.
 */
export function deciderSpec<State, Event extends DomainEvent, Command, Extra extends object = object>(
  aggregate: Aggregate<State, Event>,
  decide: (command: Command, state: State, meta: DecideMeta & Extra) => Event[],
  /**
   * What a decider needs beyond DecideMeta in every case of the spec (e.g. `references`: the facts its
   * handler reads through a port); a case's own meta overrides it.
   */
  extra?: Extra,
) {
  return {
    given(events: Event[]): DeciderGiven<Command, Event, Extra> {
      return {
        when(command, meta = {}) {
          const state = events.reduce((folded, event) => aggregate.evolve(folded, event), aggregate.initialState());
          // As loadAggregate hands it over: frozen, since the next command is decided on the same state.
          freezeDeep(state);
          const run = () => decide(command, state, { ...defaultMeta, ...extra, ...meta } as DecideMeta & Extra);
          return {
            then(expected) {
              expect(run()).toEqual(expected);
            },
            thenThrows(expected) {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              if (thrown === undefined) throw new Error('Expected the decider to refuse, but it decided.');
              if (typeof expected === 'string') {
                expect(thrown).toBeInstanceOf(ApiError);
                expect((thrown as ApiError).code).toBe(expected);
              } else {
                expect(thrown).toBeInstanceOf(expected);
              }
              return thrown as Error;
            },
          };
        },
      };
    },
  };
}
