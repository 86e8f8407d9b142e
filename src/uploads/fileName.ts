import { SINGLE_LINE_PATTERN } from '../catalogue/text.js';
import { DEFAULT_FILE_STEMS, EXTENSIONS, type UploadKind } from './uploadKinds.js';

const MAX_FILE_NAME_LENGTH = 255;

/**
 * The file name a stored-file ref records, from what the client sent (a multipart part's filename, the
 * `file_name` query parameter or a Content-Disposition header): no folders, and without the characters a
 * single line of text refuses (src/catalogue/text.ts: controls, line breaks, bidi overrides), since the name
 * is printed in downloads and pages. Too long a name keeps its extension; nothing left gives the kind's
 * default, e.g. `image.jpg`.
 */
export function storedFileName(sent: string | undefined, kind: UploadKind, contentType: string): string {
  const withoutFolders = (sent ?? '').split(/[/\\]/).at(-1) ?? '';
  const cleaned = [...withoutFolders]
    .filter((character) => SINGLE_LINE_PATTERN.test(character))
    .join('')
    .trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return `${DEFAULT_FILE_STEMS[kind]}.${EXTENSIONS[contentType] ?? 'bin'}`;
  const characters = [...cleaned];
  if (characters.length <= MAX_FILE_NAME_LENGTH) return cleaned;
  const extension = /\.[^.]{1,10}$/.exec(cleaned)?.[0] ?? '';
  return (
    characters
      .slice(0, MAX_FILE_NAME_LENGTH - extension.length)
      .join('')
      .trimEnd() + extension
  );
}

/**
 * The file name of a Content-Disposition header (RFC 6266): `filename*` (RFC 8187, UTF-8) wins over
 * `filename`; undefined when there is none.
 */
export function dispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parameters = new Map<string, string>();
  for (const [, name, value] of header.matchAll(/;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const text = value!.trim();
    parameters.set(name!.toLowerCase(), text.startsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text);
  }
  const extended = /^utf-8'[^']*'(.*)$/i.exec(parameters.get('filename*') ?? '');
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!);
    } catch {
      // A malformed percent-encoding: the plain parameter, if any, names the file.
    }
  }
  return parameters.get('filename');
}
