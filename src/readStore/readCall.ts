import type { DocId, Filter, FindOptions, SequenceRange } from './readStore.js';

/**
 * One read of the port as a caller made it, so that an adapter can say how it answers that read (its
 * `explain`) and a test can replay the reads a surface makes (test/readStore/recordingReadStore.ts).
 */
export type ReadCall =
  | { method: 'find'; collection: string; options: FindOptions }
  | { method: 'findOne'; collection: string; filter: Filter }
  | { method: 'get'; collection: string; id: DocId }
  | { method: 'getMany'; collection: string; ids: DocId[] }
  | { method: 'readSequence'; collection: string; range: SequenceRange };
