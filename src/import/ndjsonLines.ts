/** A line of an NDJSON source, numbered from 1, with the byte offset just past it (for progress). */
export type SourceLine = { line: number; end: number } & ({ text: string } | { problem: string });

/** The longest line an import reads: a record as large as an admin API request body may be. */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = '\uFEFF';

/**
 * Splits a byte source into lines (LF or CRLF), decoded as UTF-8. Blank lines are skipped but counted, so line
 * numbers are those of an editor. A line longer than `maxLineBytes`, or not valid UTF-8, is yielded as a
 * problem; its bytes past the limit are skipped without being held in memory.
 */
export async function* ndjsonLines(
  source: AsyncIterable<Uint8Array>,
  { maxLineBytes = MAX_LINE_BYTES }: { maxLineBytes?: number } = {},
): AsyncGenerator<SourceLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overLong = false;
  let lineNumber = 0;
  let offset = 0;

  function finish(end: number): SourceLine | null {
    lineNumber += 1;
    if (overLong) {
      overLong = false;
      return { line: lineNumber, end, problem: `is longer than ${maxLineBytes} bytes` };
    }
    let bytes = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    if (bytes.at(-1) === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { line: lineNumber, end, problem: 'is not valid UTF-8' };
    }
    if (lineNumber === 1 && text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    return text.trim() === '' ? null : { line: lineNumber, end, text };
  }

  function hold(bytes: Buffer): void {
    if (overLong) return;
    if (pendingBytes + bytes.length > maxLineBytes) {
      overLong = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(bytes);
    pendingBytes += bytes.length;
  }

  for await (const chunk of source) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let newline = bytes.indexOf(NEWLINE, start); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
      hold(bytes.subarray(start, newline));
      const line = finish(offset + newline + 1);
      if (line) yield line;
      start = newline + 1;
    }
    hold(bytes.subarray(start));
    offset += bytes.length;
  }
  if (pendingBytes > 0 || overLong) {
    const line = finish(offset);
    if (line) yield line;
  }
}
