import type { EventStore } from '../eventStore/eventStore.js';

/** One id sequence per resource type, e.g. `idSequence-project`. */
export const idSequenceStream = (resourceType: string): string => `idSequence-${resourceType}`;

/**
 * Allocates the next numeric id of a resource type. Each allocation appends one event to the type's
 * sequence stream; the store assigns revisions atomically, so the revision (+1) is a unique id even
 * under concurrent writers, with no read-modify-write race. Ids skipped by failed commands are never reused.
 */
export async function allocateId(eventStore: EventStore, resourceType: string): Promise<number> {
  const result = await eventStore.appendToStream(
    idSequenceStream(resourceType),
    [{ type: 'IdAllocated', data: { resourceType } }],
    { expectedRevision: 'any' },
  );
  return result.nextExpectedRevision + 1;
}
