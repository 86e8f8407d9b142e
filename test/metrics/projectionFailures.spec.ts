import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { recordProjectionFailures } from '../../src/metrics/projectionFailures.js';
import type { Projection } from '../../src/projectionEngine/projection.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const at = new Date('2026-11-30T08:00:00.000Z');

function projection(name: string, version: number, apply: Projection['apply']): Projection {
  return { name, version, collections: [name], indexes: {}, handles: ['StateCreated'], apply };
}

const event = { type: 'StateCreated', data: {}, position: 1n } as unknown as RecordedEvent;

describe('projection failures', () => {
  it("when a projection's apply fails, then the failure is noted under its name, scrubbed, and thrown on to the runtime", async () => {
    const readStore = createEmbeddedReadStore({});
    closers.push(() => readStore.close());
    const failing = projection('projects', 1, () =>
      Promise.reject(new Error('cannot reach mongodb://editor:hunter2secret@db.internal:27017 for document 42')),
    );
    const fine = projection('developers', 1, () => Promise.resolve());
    const failures = recordProjectionFailures([failing, fine], readStore, () => at);
    const [wrappedFailing, wrappedFine] = failures.projections;
    expect(wrappedFailing).toMatchObject({ name: 'projects', version: 1, collections: ['projects'], handles: ['StateCreated'] });

    await expect(wrappedFailing!.apply(event as never, {} as never)).rejects.toThrow('document 42');
    await wrappedFine!.apply(event as never, {} as never);
    const noted = failures.last();
    expect(Object.keys(noted)).toEqual(['projects']);
    expect(noted.projects!.at).toBe(at.toISOString());
    expect(noted.projects!.message).toMatch(/document 42$/);
    expect(noted.projects!.message).not.toContain('hunter2secret');
  });

  it('when a write carrying checkpoints fails, then the failure is noted for the projections whose checkpoints it carried', async () => {
    const inner = createEmbeddedReadStore({});
    const failures = recordProjectionFailures(
      [projection('projects', 2, () => Promise.resolve()), projection('developers', 1, () => Promise.resolve())],
      inner,
      () => at,
    );
    await failures.readStore.write([{ op: 'put', collection: 'projects', doc: { _id: 1 } }], [{ name: 'projects@v2', position: 1n }]);
    expect(failures.last()).toEqual({});
    await inner.close();
    await expect(failures.readStore.write([], [{ name: 'projects@v2', position: 2n }])).rejects.toThrow();
    expect(Object.keys(failures.last())).toEqual(['projects']);
  });
});
