import { describe, expect, it } from 'vitest';
import { ndjsonLines, type SourceLine } from '../../src/import/ndjsonLines.js';

async function linesOf(chunks: ReadonlyArray<Buffer | string>, maxLineBytes?: number): Promise<SourceLine[]> {
  async function* source() {
    for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  }
  const lines: SourceLine[] = [];
  for await (const line of ndjsonLines(source(), maxLineBytes === undefined ? {} : { maxLineBytes })) lines.push(line);
  return lines;
}

describe('ndjsonLines', () => {
  it('when lines end in LF or CRLF, some are blank and the last has no newline, then blank ones are skipped but counted', async () => {
    expect(await linesOf(['\uFEFF{"a":1}\r\n\r\n  \n{"b":2}\n{"c":3}'])).toEqual([
      { line: 1, end: 12, text: '{"a":1}' },
      { line: 4, end: 25, text: '{"b":2}' },
      { line: 5, end: 32, text: '{"c":3}' },
    ]);
  });

  it('when chunks split lines and a character of several bytes, then the lines come out whole', async () => {
    const bytes = Buffer.from('{"name":"Al Barsha — حي"}\n{"name":"Jumeirah"}\n');
    const chunks = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));

    expect((await linesOf(chunks)).map((line) => ('text' in line ? line.text : line.problem))).toEqual([
      '{"name":"Al Barsha — حي"}',
      '{"name":"Jumeirah"}',
    ]);
  });

  it('when a line is too long or not UTF-8, then it is a problem at its number and the lines after it are read', async () => {
    const lines = await linesOf([`${'x'.repeat(40)}\n`, Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), '{"ok":true}\n'], 16);

    expect(lines).toEqual([
      { line: 1, end: 41, problem: 'is longer than 16 bytes' },
      { line: 2, end: 45, problem: 'is not valid UTF-8' },
      { line: 3, end: 57, text: '{"ok":true}' },
    ]);
  });
});
