/**
 * `{ ...doc, ...fields }` for the documents projections copy on every event, without the object spread.
 *
 * A spread builds its copy one property at a time, starting from an empty object with room for four, and
 * grows the storage for the rest a few slots at a time: on Node 20 it costs about 1.4 µs for a project
 * document of some forty fields, and allocates several times the document's size. A copy made by an
 * object literal naming every key (compiled once per list of keys) gets its room at once and costs a
 * small fraction of that. The copy has the same keys in the same order, with the same values, as the
 * spread gives, since both follow the source's own enumerable keys in order (Object.keys); fields already
 * in the document are then set in place, and new ones come last, in the order of `fields`.
 *
 * Meant for plain JSON documents (no symbol keys, no accessors that matter): a document whose keys cannot
 * be named in a literal as they are (`__proto__`), or when code cannot be compiled, is copied by a spread.
 */
export function withFields<Doc extends object>(doc: Doc, fields: Partial<Doc>): Doc {
  return setFields(copyOf(doc) as Doc, fields);
}

/**
 * `withFields` in place, for a document of one's own (see ProjectionContext.draft): the document ends with
 * the keys, order and values the copy would have.
 */
export function setFields<Doc extends object>(doc: Doc, fields: Partial<Doc>): Doc {
  const target = doc as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    // As the spread would: an own data property, even one named __proto__.
    if (key === '__proto__')
      Object.defineProperty(target, key, { value: fields[key as keyof Doc], enumerable: true, writable: true, configurable: true });
    else target[key] = fields[key as keyof Doc];
  }
  return doc;
}

type Copier = (doc: object) => object;

interface Shape {
  keys: readonly string[];
  copy: Copier;
}

/** The lists of keys met so far, the most recently matched first: a handful in practice. */
const shapes: Shape[] = [];
/** Past this many lists of keys, documents are copied by spreading (some projection builds keys freely). */
const MAX_SHAPES = 64;

function copyOf(doc: object): object {
  const shape = shapeOf(doc);
  return shape ? shape.copy(doc) : { ...doc };
}

function shapeOf(doc: object): Shape | undefined {
  for (let index = 0; index < shapes.length; index++) {
    const shape = shapes[index]!;
    if (hasKeys(doc, shape.keys)) {
      if (index > 0) {
        shapes.splice(index, 1);
        shapes.unshift(shape);
      }
      return shape;
    }
  }
  const keys = Object.keys(doc);
  if (shapes.length >= MAX_SHAPES || keys.includes('__proto__')) return undefined;
  const copy = compileCopier(keys);
  if (!copy) return undefined;
  const shape = { keys, copy };
  shapes.unshift(shape);
  return shape;
}

/**
 * The document's own enumerable keys are exactly `keys`, in order. A for-in loop walks them as Object.keys
 * lists them (a plain object inherits none), without allocating the list.
 */
function hasKeys(doc: object, keys: readonly string[]): boolean {
  let index = 0;
  for (const key in doc) {
    if (key !== keys[index]) return false;
    index += 1;
  }
  return index === keys.length;
}

let compiling = true;

function compileCopier(keys: readonly string[]): Copier | undefined {
  if (!compiling) return undefined;
  const properties = keys.map((key) => `${JSON.stringify(key)}: doc[${JSON.stringify(key)}]`);
  try {
    return new Function('doc', `return { ${properties.join(', ')} };`) as Copier;
  } catch {
    // Code generation from strings is disallowed in this process.
    compiling = false;
    return undefined;
  }
}
