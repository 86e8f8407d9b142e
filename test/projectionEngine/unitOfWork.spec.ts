import { describe, expect, it } from 'vitest';
import { FreshGenerationDocuments, UnitOfWork } from '../../src/projectionEngine/unitOfWork.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';

describe('unit of work', () => {
  it('when documents of several collections are put, then the ops come in the order of their last change', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore());
    unitOfWork.put('projects', { _id: 1, v: 1 });
    unitOfWork.put('developers', { _id: 1, v: 1 });
    unitOfWork.put('projects', { _id: 2, v: 1 });
    unitOfWork.put('projects', { _id: 1, v: 2 });
    unitOfWork.delete('developers', 1);

    expect(unitOfWork.ops()).toEqual([
      { op: 'put', collection: 'projects', doc: { _id: 2, v: 1 } },
      { op: 'put', collection: 'projects', doc: { _id: 1, v: 2 } },
      { op: 'delete', collection: 'developers', id: 1 },
    ]);
  });

  it('when ids 1 and "1" are both put, then they stay distinct documents', async () => {
    const unitOfWork = new UnitOfWork(createEmbeddedReadStore());
    unitOfWork.put('projects', { _id: 1, kind: 'number' });
    unitOfWork.put('projects', { _id: '1', kind: 'string' });

    expect(await unitOfWork.get('projects', 1)).toEqual({ _id: 1, kind: 'number' });
    expect(await unitOfWork.get('projects', '1')).toEqual({ _id: '1', kind: 'string' });
    expect(await unitOfWork.find('projects', { kind: 'string' })).toEqual([{ _id: '1', kind: 'string' }]);
  });
});

describe('fresh generation documents', () => {
  it('when more documents are written than it keeps, then the oldest are left to the store and the rest come from memory', () => {
    const documents = new FreshGenerationDocuments(4);
    expect(documents.lookup('projects', 1)).toBeNull();
    for (let id = 1; id <= 10; id++) documents.remember('projects', id, { _id: id });

    expect(documents.lookup('projects', 10)).toEqual({ _id: 10 });
    expect(documents.lookup('projects', 9)).toEqual({ _id: 9 });
    expect(documents.lookup('projects', 1)).toBeUndefined();
    expect(documents.lookup('projects', 11)).toBeNull();
    expect(documents.lookup('developers', 10)).toBeNull();
  });

  it('when a kept document is read, then it outlasts documents written before the read', () => {
    const documents = new FreshGenerationDocuments(4);
    documents.lookup('projects', 1);
    documents.remember('projects', 1, { _id: 1 });
    documents.remember('projects', 2, { _id: 2 });
    documents.lookup('projects', 1);
    for (let id = 3; id <= 4; id++) documents.remember('projects', id, { _id: id });

    expect(documents.lookup('projects', 1)).toEqual({ _id: 1 });
    expect(documents.lookup('projects', 2)).toBeUndefined();
  });

  it('when a document is deleted, then it is known not to exist', () => {
    const documents = new FreshGenerationDocuments(4);
    documents.lookup('projects', 1);
    documents.remember('projects', 1, { _id: 1 });
    documents.remember('projects', 1, null);

    expect(documents.lookup('projects', 1)).toBeNull();
  });

  it('when a collection is only written, then its documents are not kept, and once it is read they are left to the store', () => {
    const documents = new FreshGenerationDocuments(4);
    documents.remember('changes', 'a', { _id: 'a' });

    expect(documents.lookup('changes', 'a')).toBeUndefined();
    expect(documents.lookup('changes', 'b')).toBeUndefined();
    documents.remember('changes', 'b', { _id: 'b' });
    expect(documents.lookup('changes', 'b')).toEqual({ _id: 'b' });
    expect(documents.lookup('other', 'a')).toBeNull();
  });
});
