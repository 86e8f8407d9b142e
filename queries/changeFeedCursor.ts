import { hash } from 'node:crypto';
import { z } from 'zod';

/*
 * The change feed's cursor: the log position of the last change a page covered, handed out opaque (base64url
 * of `{"v":1,"after":"<position>","check":"<digest>"}`) so that its form may change without breaking anyone.
 * The digest is no secret's MAC: it turns a cursor that was cut short, mangled or edited by hand, which would
 * otherwise resume somewhere else without a word, into a 422. A forged cursor can misdirect only its own
 * reader, since every page is still cut to what the client may see.
 */

const CURSOR_VERSION = 1;

/** The cursor a full sync starts from: before the first change. */
export const START_CURSOR = 'start';

/** Longer than any cursor this feed hands out (about 70 characters). */
const MAX_CURSOR_LENGTH = 200;

const checkOf = (after: string): string => hash('sha256', `project-changes/${CURSOR_VERSION}/${after}`, 'base64url').slice(0, 16);

export function encodeChangesCursor(position: number): string {
  const after = String(position);
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, after, check: checkOf(after) }), 'utf8').toString('base64url');
}

const payloadSchema = z.object({ after: z.string().regex(/^(0|[1-9]\d{0,14})$/) });

/**
 * The position a cursor resumes after; null for anything this feed did not hand out. Only the exact bytes
 * of an encoded cursor pass (it must encode back to itself), so no variant of one is read differently.
 */
export function changesCursorPosition(cursor: string): number | null {
  if (cursor === START_CURSOR) return 0;
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return null;
  const position = Number(parsed.data.after);
  return encodeChangesCursor(position) === cursor ? position : null;
}

export const changesCursorParameter = z
  .string()
  .transform((value, context) => {
    const position = changesCursorPosition(value);
    if (position !== null) return position;
    context.addIssue({
      code: 'custom',
      message: `is not a cursor of this feed: send meta.cursor of a page exactly as it came, or ${START_CURSOR} for a full sync`,
    });
    return z.NEVER;
  })
  .meta({
    description:
      `Resume after the changes an earlier page reported: its \`meta.cursor\`, sent back as it came (opaque), or \`${START_CURSOR}\` ` +
      'to start a full sync from the first change. Not with updated_since or page.',
  });
