import type { DomainEvent, RecordedEvent } from '../src/eventStore/eventStore.js';
import { alreadyApplied, positionNumber, type PositionedDoc, type ProjectionContext } from '../src/projectionEngine/projection.js';

/**
 * What every record of the admin lists carries besides its aggregate's state: the id, the revision of its
 * stream (what a GET of the record sends as ETag and an edit takes back as If-Match), the times of its first
 * and latest events, and the text `q` matches.
 */
export interface AdminRecordFields extends PositionedDoc {
  _id: number;
  id: number;
  revision: number;
  created_at: string;
  updated_at: string;
  /** Lower-cased; see ReadStore FindOptions.text. */
  _search: string;
}

export type AdminRecord<State extends object> = AdminRecordFields & State;

/** Every event of the aggregates the admin lists fold carries the command's time. */
type StampedEvent = DomainEvent & { data: { at: string } };

/**
 * One kind of admin record: the collection it lives in, and how one event of its aggregate changes it. The
 * fold is the aggregate's own `evolve` wherever its state is what the admin API shows, so a list shows a
 * record exactly as a GET of it folds it from the stream; a projection folding one raises its version when
 * that evolve starts to write a different shape.
 */
export interface AdminRecordKind<State extends object, Event extends StampedEvent> {
  collection: string;
  /** The id of the record (its stream's id) an event belongs to. */
  idOf(event: Event): number;
  evolve(state: State | null, event: Event): State | null;
  search(state: State): string;
}

/** The record's aggregate state: the document without the fields the fold adds. */
function stateOf<State extends object>(record: AdminRecord<State>): State {
  const { _id, id, revision, created_at, updated_at, _search, _position, ...state } = record;
  return state as unknown as State;
}

/**
 * Folds one event into its record (idempotent: an event at or before the record's position changes
 * nothing) and answers the record as written, or null when nothing was.
 */
export async function foldRecord<State extends object, Event extends StampedEvent>(
  kind: AdminRecordKind<State, Event>,
  event: Event & RecordedEvent,
  ctx: ProjectionContext,
): Promise<AdminRecord<State> | null> {
  const id = kind.idOf(event);
  const current = await ctx.get<AdminRecord<State>>(kind.collection, id);
  if (alreadyApplied(current, event)) return null;
  const next = kind.evolve(current ? stateOf(current) : null, event);
  if (!next) return null;
  const record: AdminRecord<State> = {
    ...next,
    _id: id,
    id,
    revision: event.revision,
    created_at: current?.created_at ?? event.data.at,
    updated_at: event.data.at,
    _search: kind.search(next),
    _position: positionNumber(event),
  };
  ctx.put(kind.collection, record);
  return record;
}
