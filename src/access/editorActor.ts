import type { EventMetadata, EventStore } from '../eventStore/eventStore.js';
import { rewritingAppendedEvents } from '../metrics/forwardingStores.js';

/**
 * Who an admin request's events are recorded as, in each event's metadata next to the command's `at`:
 * the actor id (`editor:<id>`, or `bootstrap` for ADMIN_TOKEN), the account and token (null for the
 * bootstrap token), the request id (X-Request-Id) and the client address (see clientAddress in
 * src/http/networkControls.ts; null when the socket had no peer any more).
 */
export interface ActorMetadata {
  actor: string;
  editor_id: number | null;
  token_id: number | null;
  request_id: string;
  client_address: string | null;
}

/** The actor of a recorded event as the history shows it; fields events do not carry (older events, the seed, /v1) are null. */
export interface RecordedActor {
  id: string | null;
  editor_id: number | null;
  token_id: number | null;
  request_id: string | null;
  client_address: string | null;
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

export function recordedActorOf(metadata: EventMetadata): RecordedActor {
  return {
    id: stringOrNull(metadata.actor),
    editor_id: numberOrNull(metadata.editor_id),
    token_id: numberOrNull(metadata.token_id),
    request_id: stringOrNull(metadata.request_id),
    client_address: stringOrNull(metadata.client_address),
  };
}

/**
 * The event store a request's handler appends through: every event it appends (the command's, and the id
 * claims and slug reservations it makes) records the actor. Added here, once, rather than by each handler
 * that builds metadata, so no command of the admin API can append an event that does not say who asked.
 */
export function appendingAs(eventStore: EventStore, actor: ActorMetadata): EventStore {
  return rewritingAppendedEvents(eventStore, (event) => ({ ...event, metadata: { ...event.metadata, ...actor } }));
}
