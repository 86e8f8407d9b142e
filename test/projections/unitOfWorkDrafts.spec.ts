import { describe, expect, it } from 'vitest';
import { FreshGenerationDocuments, UnitOfWork } from '../../src/projectionEngine/unitOfWork.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc } from '../../src/readStore/readStore.js';

type CounterDoc = Doc & { items: number[] };

const ownCopy = (doc: CounterDoc | null): CounterDoc => (doc ? { ...doc, items: [...doc.items] } : { _id: 1, items: [] });

describe('drafts of a unit of work (documents changed in place by a projection)', () => {
  it('when one document is drafted by several events of a batch, then it is copied once and written once as it ends', async () => {
    const readStore = createEmbeddedReadStore();
    await readStore.write([{ op: 'put', collection: 'counters', doc: { _id: 1, items: [0] } }]);
    const unitOfWork = new UnitOfWork(readStore);
    let copies = 0;
    const make = (doc: CounterDoc | null) => {
      copies += 1;
      return ownCopy(doc);
    };
    for (const item of [1, 2, 3]) (await unitOfWork.draft<CounterDoc>('counters', 1, make))!.items.push(item);
    unitOfWork.put('others', { _id: 1 });

    expect(copies).toBe(1);
    expect(unitOfWork.ops()).toEqual([
      { op: 'put', collection: 'counters', doc: { _id: 1, items: [0, 1, 2, 3] } },
      { op: 'put', collection: 'others', doc: { _id: 1 } },
    ]);
    expect(await readStore.get('counters', 1)).toEqual({ _id: 1, items: [0] });
  });

  it('when a batch fails after changing a draft, then the next attempt starts from the stored document', async () => {
    const readStore = createEmbeddedReadStore();
    const flushed = new FreshGenerationDocuments();
    const first = new UnitOfWork(readStore, flushed);
    (await first.draft<CounterDoc>('counters', 1, ownCopy))!.items.push(1);
    await readStore.write(first.ops());
    first.committed();

    const failed = new UnitOfWork(readStore, flushed);
    (await failed.draft<CounterDoc>('counters', 1, ownCopy))!.items.push(2);
    const retried = new UnitOfWork(readStore, flushed);

    expect(await retried.get('counters', 1)).toEqual({ _id: 1, items: [1] });
    expect((await retried.draft<CounterDoc>('counters', 1, ownCopy))!.items).toEqual([1]);
  });

  it('when a document was put rather than drafted, then a draft of it is a copy and leaves the put object alone', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore());
    const put: CounterDoc = { _id: 1, items: [1] };
    unitOfWork.put('counters', put);
    (await unitOfWork.draft<CounterDoc>('counters', 1, ownCopy))!.items.push(2);

    expect(put.items).toEqual([1]);
    expect(await unitOfWork.get('counters', 1)).toEqual({ _id: 1, items: [1, 2] });
  });

  it('when make returns null, then nothing is written', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore());
    expect(await unitOfWork.draft('counters', 1, () => null)).toBeNull();
    expect(unitOfWork.ops()).toEqual([]);
  });
});
