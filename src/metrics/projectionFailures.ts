import { scrubSecrets } from '../logger.js';
import { checkpointNameOf, type Projection } from '../projectionEngine/projection.js';
import type { ReadStore } from '../readStore/readStore.js';
import { forwardReadStore } from './forwardingStores.js';
import type { ProjectionFailure } from './heartbeats.js';

/** Longer messages are cut: the status shows what went wrong, the log has the whole error and its stack. */
const MAX_MESSAGE_LENGTH = 500;

export interface ProjectionFailures {
  /** The projections to run: each failure of `apply` is noted before it reaches the runtime. */
  projections: Projection[];
  /** The projector's read store: a write that fails is noted for the projections whose checkpoints it carried. */
  readStore: ReadStore;
  /** The last failure of each projection that failed in this process. */
  last(): Record<string, ProjectionFailure>;
}

/**
 * Notes the last failure of each projection run in this process, for /admin/v1/status (through the
 * heartbeat): the projection engine logs and retries failures itself, so they are seen on the way, around the
 * two things a batch runs, the projection's `apply` and the read store's write of its batch and checkpoint.
 */
export function recordProjectionFailures(projections: readonly Projection[], readStore: ReadStore, clock: () => Date): ProjectionFailures {
  const failures: Record<string, ProjectionFailure> = {};
  const note = (projection: string, error: unknown) => {
    const message = scrubSecrets(error instanceof Error ? error.message : String(error)).slice(0, MAX_MESSAGE_LENGTH);
    failures[projection] = { message, at: clock().toISOString() };
  };
  const byCheckpoint = new Map(projections.map((projection) => [checkpointNameOf(projection), projection.name]));
  return {
    projections: projections.map((projection) => ({
      ...projection,
      apply: (event, ctx) =>
        projection.apply(event, ctx).catch((error: unknown) => {
          note(projection.name, error);
          throw error;
        }),
    })),
    readStore: {
      ...forwardReadStore(readStore),
      write: (ops, checkpoints) =>
        readStore.write(ops, checkpoints).catch((error: unknown) => {
          for (const checkpoint of checkpoints ?? []) {
            const projection = byCheckpoint.get(checkpoint.name);
            if (projection !== undefined) note(projection, error);
          }
          throw error;
        }),
    },
    last: () => ({ ...failures }),
  };
}
