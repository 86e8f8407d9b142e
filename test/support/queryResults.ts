import { SerializedJson, SerializedJsonArray, type QueryResult } from '../../queries/queryRoute.js';

/** A handler's answer as its client reads it: `data` parsed when the handler serialised it already. */
export function parsedResult(result: QueryResult): QueryResult {
  if (result.data instanceof SerializedJsonArray)
    return {
      ...result,
      data: JSON.parse(
        `[${result.data.elements.map((element) => (Buffer.isBuffer(element) ? element : Buffer.concat(element))).join(',')}]`,
      ) as unknown,
    };
  if (result.data instanceof SerializedJson) return { ...result, data: JSON.parse(result.data.bytes.toString()) as unknown };
  return result;
}
