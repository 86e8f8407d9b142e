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

  it('when a document is not yet known to the unit of work, then peek and draftKnown answer undefined and make nothing', async () => {
    const readStore = createEmbeddedReadStore();
    await readStore.write([{ op: 'put', collection: 'counters', doc: { _id: 1, items: [0] } }]);
    const unitOfWork = new UnitOfWork(readStore);
    let copies = 0;
    const make = (doc: CounterDoc | null) => {
      copies += 1;
      return ownCopy(doc);
    };

    expect(unitOfWork.peek('counters', 1)).toBeUndefined();
    expect(unitOfWork.draftKnown<CounterDoc>('counters', 1, make)).toBeUndefined();
    expect(copies).toBe(0);
    expect(unitOfWork.ops()).toEqual([]);

    expect(await unitOfWork.get('counters', 1)).toEqual({ _id: 1, items: [0] });
    expect(unitOfWork.peek('counters', 1)).toEqual({ _id: 1, items: [0] });
    expect(unitOfWork.peek('counters', 2)).toBeUndefined();
  });

  it('when a known document is drafted without waiting, then it is copied once and the drafts are one object', async () => {
    const readStore = createEmbeddedReadStore();
    const flushed = new FreshGenerationDocuments();
    const unitOfWork = new UnitOfWork(readStore, flushed);
    expect(await unitOfWork.get('counters', 1)).toBeNull();
    let copies = 0;
    const make = (doc: CounterDoc | null) => {
      copies += 1;
      return ownCopy(doc);
    };

    const first = unitOfWork.draftKnown<CounterDoc>('counters', 1, make)!;
    first.items.push(1);
    const second = unitOfWork.draftKnown<CounterDoc>('counters', 1, make)!;
    second.items.push(2);
    const third = (await unitOfWork.draft<CounterDoc>('counters', 1, make))!;

    expect(copies).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(unitOfWork.peek('counters', 1)).toBe(first);
    expect(unitOfWork.ops()).toEqual([{ op: 'put', collection: 'counters', doc: { _id: 1, items: [1, 2] } }]);
  });

  it('when a draft is drafted again after another write, then it is written after that write', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore(), new FreshGenerationDocuments());
    await unitOfWork.get('counters', 1);
    unitOfWork.draftKnown<CounterDoc>('counters', 1, ownCopy);
    unitOfWork.draftKnown<CounterDoc>('counters', 1, ownCopy);
    unitOfWork.put('others', { _id: 1 });
    unitOfWork.draftKnown<CounterDoc>('counters', 1, ownCopy)!.items.push(3);

    expect(unitOfWork.ops()).toEqual([
      { op: 'put', collection: 'others', doc: { _id: 1 } },
      { op: 'put', collection: 'counters', doc: { _id: 1, items: [3] } },
    ]);
  });

  it('when make returns null, then nothing is written', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore());
    expect(await unitOfWork.draft('counters', 1, () => null)).toBeNull();
    expect(unitOfWork.ops()).toEqual([]);
  });
});
