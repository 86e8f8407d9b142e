import { WrongExpectedRevisionError, type EventStore } from '../eventStore/eventStore.js';
import { ApiError } from './errors.js';

/** One stream per (resource type, slug): `projectSlug-marina-heights`. */
export const slugStream = (resourceType: string, slug: string): string => `${resourceType}Slug-${slug}`;

type SlugEvent =
  | { type: 'SlugReserved'; data: { resourceType: string; slug: string; resourceId: number } }
  | { type: 'SlugReleased'; data: { resourceType: string; slug: string; resourceId: number } };

export class SlugTaken extends ApiError {
  constructor(resourceType: string, slug: string, field = 'body.slug') {
    super(409, 'SLUG_TAKEN', `The slug '${slug}' is already used by another ${resourceType}.`, {
      fields: { [field]: 'already in use' },
    });
  }
}

/**
 * Makes slug uniqueness a write-side guarantee: the first append to the slug's stream wins (expected
 * revision), so two editors can never both claim one slug. A reservation left behind by a command that
 * crashed before appending its own events points at a resource whose stream does not exist; such an
 * orphan may be taken over.
 */
export async function reserveSlug(
  eventStore: EventStore,
  reservation: { resourceType: string; slug: string; resourceId: number },
  ownerExists: (resourceId: number) => Promise<boolean>,
  field?: string,
): Promise<void> {
  const stream = slugStream(reservation.resourceType, reservation.slug);
  const reserved: SlugEvent = { type: 'SlugReserved', data: reservation };
  for (let attempt = 0; attempt < 3; attempt++) {
    const history = (await eventStore.readStream(stream)) as unknown as Array<SlugEvent & { revision: number }>;
    const last = history.at(-1);
    if (last?.type === 'SlugReserved') {
      if (last.data.resourceId === reservation.resourceId) return;
      if (await ownerExists(last.data.resourceId)) throw new SlugTaken(reservation.resourceType, reservation.slug, field);
    }
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

export async function releaseSlug(
  eventStore: EventStore,
  reservation: { resourceType: string; slug: string; resourceId: number },
): Promise<void> {
  const stream = slugStream(reservation.resourceType, reservation.slug);
  const history = (await eventStore.readStream(stream)) as unknown as Array<SlugEvent & { revision: number }>;
  const last = history.at(-1);
  if (last?.type !== 'SlugReserved' || last.data.resourceId !== reservation.resourceId) return;
  const released: SlugEvent = { type: 'SlugReleased', data: reservation };
  try {
    await eventStore.appendToStream(stream, [released], { expectedRevision: last.revision });
  } catch (error) {
    // Someone else took the slug in between: nothing of ours is left to release.
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}
