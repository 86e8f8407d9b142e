import { WrongExpectedRevisionError, type EventStore } from '../eventStore/eventStore.js';
import { ApiError } from './errors.js';

/** One stream per (resource type, slug): `projectSlug-marina-heights`. */
export const slugStream = (resourceType: string, slug: string): string => `${resourceType}Slug-${slug}`;

export type SlugEvent =
  | { type: 'SlugReserved'; data: { resourceType: string; slug: string; resourceId: number } }
  | { type: 'SlugReleased'; data: { resourceType: string; slug: string; resourceId: number } };

export class SlugTaken extends ApiError {
  constructor(resourceType: string, slug: string, field = 'body.slug') {
    super(409, 'SLUG_TAKEN', `The slug '${slug}' is already used by another ${resourceType}.`, {
      fields: { [field]: 'already in use' },
    });
  }
}

type Reservation = { resourceType: string; slug: string; resourceId: number };

async function lastSlugEvent(eventStore: EventStore, reservation: Reservation): Promise<(SlugEvent & { revision: number }) | undefined> {
  const history = await eventStore.readStream(slugStream(reservation.resourceType, reservation.slug));
  return (history as unknown as Array<SlugEvent & { revision: number }>).at(-1);
}

/** Whether the slug is reserved for this resource already; SlugTaken when another resource that exists holds it. */
async function reservedForThisResource(
  last: SlugEvent | undefined,
  reservation: Reservation,
  ownerExists: (resourceId: number) => Promise<boolean>,
  field: string | undefined,
): Promise<boolean> {
  if (last?.type !== 'SlugReserved') return false;
  if (last.data.resourceId === reservation.resourceId) return true;
  if (await ownerExists(last.data.resourceId)) throw new SlugTaken(reservation.resourceType, reservation.slug, field);
  return false;
}

/**
 * Refuses with SlugTaken, appending nothing, when another resource that exists holds the slug; a command
 * checks this before it claims anything, so a taken slug leaves no trace. reserveSlug checks again when
 * it reserves.
 */
export async function assertSlugAvailable(
  eventStore: EventStore,
  reservation: Reservation,
  ownerExists: (resourceId: number) => Promise<boolean>,
  field?: string,
): Promise<void> {
  await reservedForThisResource(await lastSlugEvent(eventStore, reservation), reservation, ownerExists, field);
}

/**
 * Makes slug uniqueness a write-side guarantee: the first append to the slug's stream wins (expected
 * revision), so two editors can never both claim one slug. A reservation names an id its command has
 * claimed already (see src/domain/commandHandler.ts), so one left behind by a command that crashed
 * before appending its own events points at a resource whose stream does not exist; such an orphan may
 * be taken over.
 */
export async function reserveSlug(
  eventStore: EventStore,
  reservation: Reservation,
  ownerExists: (resourceId: number) => Promise<boolean>,
  field?: string,
): Promise<void> {
  const stream = slugStream(reservation.resourceType, reservation.slug);
  const reserved: SlugEvent = { type: 'SlugReserved', data: reservation };
  for (let attempt = 0; attempt < 3; attempt++) {
    const last = await lastSlugEvent(eventStore, reservation);
    if (await reservedForThisResource(last, reservation, ownerExists, field)) return;
    try {
      await eventStore.appendToStream(stream, [reserved], {
        expectedRevision: last ? last.revision : 'no_stream',
      });
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw new SlugTaken(reservation.resourceType, reservation.slug, field);
}

/**
 * The id the slug was last reserved for, or null. The reservation may be an orphan (see reserveSlug), so
 * the caller still checks that the resource exists.
 */
export async function slugHolder(eventStore: EventStore, resourceType: string, slug: string): Promise<number | null> {
  const last = ((await eventStore.readStream(slugStream(resourceType, slug))) as unknown as SlugEvent[]).at(-1);
  return last?.type === 'SlugReserved' ? last.data.resourceId : null;
}

export async function releaseSlug(eventStore: EventStore, reservation: Reservation): Promise<void> {
  const stream = slugStream(reservation.resourceType, reservation.slug);
  const last = await lastSlugEvent(eventStore, reservation);
  if (last?.type !== 'SlugReserved' || last.data.resourceId !== reservation.resourceId) return;
  const released: SlugEvent = { type: 'SlugReleased', data: reservation };
  try {
    await eventStore.appendToStream(stream, [released], { expectedRevision: last.revision });
  } catch (error) {
    // Someone else took the slug in between: nothing of ours is left to release.
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}
