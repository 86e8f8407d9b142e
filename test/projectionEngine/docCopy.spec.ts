import { describe, expect, it } from 'vitest';
import { withFields } from '../../src/projectionEngine/docCopy.js';

/** The same keys in the same order, with the same values, as JSON shows them. */
const asStored = (value: unknown) => JSON.stringify(value);

describe('withFields', () => {
  it('when fields are set on a document, then the copy equals the spread, key order included, and the document is untouched', () => {
    const doc: Readonly<{ _id: number; name: string; count: number; tags: string[]; nested: { x: number }; _position: number }> =
      Object.freeze({
        _id: 7,
        name: 'Marina',
        count: 1,
        tags: ['a'],
        nested: { x: 1 },
        _position: 3,
      });

    const copy = withFields(doc, { count: 2, _position: 9 });

    expect(asStored(copy)).toBe(asStored({ ...doc, count: 2, _position: 9 }));
    expect(copy).not.toBe(doc);
    expect(copy.tags).toBe(doc.tags);
    expect(Object.isFrozen(copy)).toBe(false);
    expect(doc).toEqual({ _id: 7, name: 'Marina', count: 1, tags: ['a'], nested: { x: 1 }, _position: 3 });
  });

  it('when fields are new to the document, then they come last, in the order given, as with the spread', () => {
    const doc: Record<string, unknown> = { _id: 'a', b: 1, a: 2 };
    const fields = { z: 1, b: 5, c: undefined, y: null };

    const copy = withFields(doc, fields);

    expect(Object.keys(copy)).toEqual(Object.keys({ ...doc, ...fields }));
    expect(copy).toStrictEqual({ ...doc, ...fields });
  });

  it('when documents of many shapes are copied, then every copy equals its spread', () => {
    for (let shape = 0; shape < 300; shape++) {
      const doc: Record<string, unknown> = { _id: shape };
      for (let key = 0; key < shape % 45; key++) doc[`field_${(key * 7 + shape) % 50}`] = key % 2 ? `v${key}` : key;
      doc['10'] = 'an integer-like key';

      const copy = withFields(doc, { _position: shape });

      expect(asStored(copy)).toBe(asStored({ ...doc, _position: shape }));
    }
  });

  it('when a document has a key named __proto__, then it is copied as an own property, as the spread does', () => {
    const doc = JSON.parse('{"_id": 1, "__proto__": {"polluted": true}}') as Record<string, unknown>;

    const copy = withFields(doc, { _position: 1 });

    expect(asStored(copy)).toBe(asStored({ ...doc, _position: 1 }));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
