import { WrongExpectedRevisionError, type EventStore } from '../eventStore/eventStore.js';

/** One id sequence per resource type, e.g. `idSequence-project`. */
export const idSequenceStream = (resourceType: string): string => `idSequence-${resourceType}`;

/**
 * The next id of a resource type as its sequence stands, read but not yet claimed. Each allocation is one
 * IdAllocated event in the type's sequence stream, and the one at revision r allocated id r + 1, so the
 * next id is the sequence's revision + 2 (1 for a sequence that does not exist yet).
 */
export interface PeekedId {
  resourceType: string;
  id: number;
  /** The sequence's revision when it was read; null when it did not exist. */
  sequenceRevision: number | null;
}

export async function peekNextId(eventStore: EventStore, resourceType: string): Promise<PeekedId> {
  const sequenceRevision = await eventStore.streamRevision(idSequenceStream(resourceType));
  return { resourceType, id: (sequenceRevision ?? -1) + 2, sequenceRevision };
}

/**
 * Claims a peeked id by appending its IdAllocated where the peek found the end of the sequence: of
 * commands that peeked the same id, exactly one claims it and the others are told false (the store
 * checks the expected revision atomically). An id claimed by a command that then fails is never reused.
 */
export async function claimId(eventStore: EventStore, peeked: PeekedId): Promise<boolean> {
  try {
    await eventStore.appendToStream(
      idSequenceStream(peeked.resourceType),
      [{ type: 'IdAllocated', data: { resourceType: peeked.resourceType } }],
      { expectedRevision: peeked.sequenceRevision ?? 'no_stream' },
    );
    return true;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return false;
    throw error;
  }
}
