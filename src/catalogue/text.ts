import { z } from 'zod';

// Free text is stored as sent and served to every client, which prints it in pages, PDFs and logs. Control
// characters there are never meant (a NUL ends C strings, an escape sequence drives a terminal, C1 codes are
// mis-decoded bytes) and the bidirectional overrides and isolates make text display other than it reads
// (U+202E turns "fdp.exe" into "exe.pdf"), so both are refused. The bidi marks that right-to-left text does
// need (U+200E, U+200F, U+061C) stay allowed.

/** C0 controls, DEL, C1 controls, line and paragraph separators, bidi embeddings, overrides and isolates. */
export const SINGLE_LINE_PATTERN = /^[^\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]*$/;
/** The same, but tab, line feed and carriage return (and the Unicode line and paragraph separators) are text. */
const LONG_TEXT_PATTERN = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]*$/;

export const SINGLE_LINE_PROBLEM =
  'must be one line without control characters (tab, line breaks, NUL, ...) or bidirectional overrides (U+202A-U+202E, U+2066-U+2069)';
const LONG_TEXT_PROBLEM =
  'must not contain control characters other than tab and line breaks, nor bidirectional overrides (U+202A-U+202E, U+2066-U+2069)';

/**
 * Names, titles, labels, codes, file names: trimmed, one line, at most `max` characters (and at least `min`
 * once trimmed, when given).
 */
export function singleLineText(max: number, { min }: { min?: number } = {}) {
  const trimmed = z.string().trim();
  return (min === undefined ? trimmed : trimmed.min(min)).max(max).regex(SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM);
}

/** Descriptions, answers, notes: several lines and tabs allowed, stored as sent unless `trim` is asked for. */
export function longText(max: number, { min, trim = false }: { min?: number; trim?: boolean } = {}) {
  const base = trim ? z.string().trim() : z.string();
  return (min === undefined ? base : base.min(min)).max(max).regex(LONG_TEXT_PATTERN, LONG_TEXT_PROBLEM);
}
