import { html, parseFragment, type DefaultTreeAdapterTypes } from 'parse5';
import { z } from 'zod';
import { SINGLE_LINE_PATTERN } from './text.js';

// A project's map embed is HTML that every client pastes into its pages, so what it may hold is exactly
// what it is for: one <iframe> showing a map of a known map service. The input is parsed as a browser
// would (parse5 follows the HTML standard), its shape checked, and a new iframe is written from the
// checked attributes: what is stored and served is what this module built, never the text as sent.

/** Map services whose embed pages may be framed: host and the paths of their embed pages. */
export const MAP_EMBED_SERVICES: ReadonlyArray<{ host: string; path: string; pathIsPrefix: boolean }> = [
  { host: 'www.google.com', path: '/maps/embed', pathIsPrefix: true },
  { host: 'maps.google.com', path: '/maps', pathIsPrefix: true },
  { host: 'www.openstreetmap.org', path: '/export/embed.html', pathIsPrefix: false },
  { host: 'api.mapbox.com', path: '/styles/v1/', pathIsPrefix: true },
  { host: 'www.bing.com', path: '/maps/embed', pathIsPrefix: true },
];

const REFERRER_POLICIES = [
  'no-referrer',
  'no-referrer-when-downgrade',
  'origin',
  'origin-when-cross-origin',
  'same-origin',
  'strict-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
] as const;

const SIZE = /^\d{1,5}(px|%)?$/;
const MAX_TITLE_LENGTH = 200;

/** The attributes kept, in the order they are written; `style` is accepted but dropped (the page styles its frame). */
const KEPT_ATTRIBUTES = ['src', 'width', 'height', 'frameborder', 'allowfullscreen', 'loading', 'referrerpolicy', 'title'] as const;
type KeptAttribute = (typeof KEPT_ATTRIBUTES)[number];
const DROPPED_ATTRIBUTES: ReadonlySet<string> = new Set(['style']);

const describeService = (service: (typeof MAP_EMBED_SERVICES)[number]) =>
  `${service.host}${service.path}${service.pathIsPrefix ? '...' : ''}`;

export const MAP_EMBED_RULE =
  `exactly one <iframe> and nothing else, whose src is an https address of ${MAP_EMBED_SERVICES.map(describeService).join(', ')}; ` +
  `attributes limited to ${KEPT_ATTRIBUTES.join(', ')} and style (which is dropped)`;

type Verdict = { ok: true; html: string } | { ok: false; problem: string };

const refused = (problem: string): Verdict => ({ ok: false, problem });

/** `"` and `&` are all an attribute value in double quotes needs escaped (`<` and `>` are escaped too, for readers). */
const escapeAttribute = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function checkedSource(value: string): Verdict {
  if (!SINGLE_LINE_PATTERN.test(value) || !URL.canParse(value)) return refused('src is not a URL');
  const url = new URL(value);
  if (url.protocol !== 'https:') return refused('src must be an https URL');
  if (url.username !== '' || url.password !== '' || url.port !== '') return refused('src must not carry credentials or a port');
  const service = MAP_EMBED_SERVICES.find(
    (candidate) =>
      candidate.host === url.hostname &&
      (candidate.pathIsPrefix ? url.pathname.startsWith(candidate.path) : url.pathname === candidate.path),
  );
  if (!service) return refused(`src ${url.hostname}${url.pathname} is not the embed page of an accepted map service`);
  return { ok: true, html: url.href };
}

/** One attribute's canonical value, or the problem with it. */
function checkedAttribute(name: KeptAttribute, value: string): Verdict {
  switch (name) {
    case 'src':
      return checkedSource(value);
    case 'width':
    case 'height':
      return SIZE.test(value) ? { ok: true, html: value } : refused(`${name} must be a number of pixels or a percentage`);
    case 'frameborder':
      return value === '0' || value === '1' ? { ok: true, html: value } : refused('frameborder must be 0 or 1');
    case 'allowfullscreen':
      return ['', 'allowfullscreen', 'true'].includes(value.toLowerCase())
        ? { ok: true, html: '' }
        : refused('allowfullscreen takes no value');
    case 'loading':
      return value === 'lazy' || value === 'eager' ? { ok: true, html: value } : refused('loading must be lazy or eager');
    case 'referrerpolicy':
      return (REFERRER_POLICIES as readonly string[]).includes(value)
        ? { ok: true, html: value }
        : refused(`referrerpolicy must be one of ${REFERRER_POLICIES.join(', ')}`);
    case 'title':
      return value.length <= MAX_TITLE_LENGTH && SINGLE_LINE_PATTERN.test(value)
        ? { ok: true, html: value }
        : refused(`title must be one line of at most ${MAX_TITLE_LENGTH} characters without control characters`);
  }
}

const isKept = (name: string): name is KeptAttribute => (KEPT_ATTRIBUTES as readonly string[]).includes(name);

/**
 * The canonical iframe for a map embed as sent (or as stored by an earlier version of the service), or why
 * it is not one. Pure and deterministic: the write side stores its result, the read side applies it again
 * to whatever the log holds.
 */
export function canonicalMapEmbed(input: string): Verdict {
  const parseErrors: string[] = [];
  const fragment = parseFragment(input.trim(), { onParseError: (error) => parseErrors.push(error.code) });
  if (parseErrors.length > 0) return refused(`is not well-formed HTML (${[...new Set(parseErrors)].join(', ')})`);
  const [frame, ...rest] = fragment.childNodes;
  if (frame === undefined) return refused('is empty');
  if (rest.length > 0 || !isHtmlElement(frame, 'iframe')) return refused('holds something other than one <iframe>');
  if (frame.childNodes.length > 0) return refused('the <iframe> must be empty');
  const kept = new Map<KeptAttribute, string>();
  for (const attribute of frame.attrs) {
    if (DROPPED_ATTRIBUTES.has(attribute.name)) continue;
    if (!isKept(attribute.name)) return refused(`the attribute ${attribute.name} is not accepted`);
    const verdict = checkedAttribute(attribute.name, attribute.value);
    if (!verdict.ok) return verdict;
    kept.set(attribute.name, verdict.html);
  }
  if (!kept.has('src')) return refused('the <iframe> has no src');
  return { ok: true, html: iframeOf(kept) };
}

/** The canonical iframe of checked attribute values. */
function iframeOf(kept: ReadonlyMap<KeptAttribute, string>): string {
  const attributes = KEPT_ATTRIBUTES.flatMap((name) => {
    const value = kept.get(name);
    if (value === undefined) return [];
    return name === 'allowfullscreen' ? [name] : [`${name}="${escapeAttribute(value)}"`];
  });
  return `<iframe ${attributes.join(' ')}></iframe>`;
}

/**
 * The canonical form's shape: the kept attributes in their order, src first and required, each value in double
 * quotes (allowfullscreen bare). Captures the attributes' values as written.
 */
const CANONICAL_SHAPE = new RegExp(
  `^<iframe${KEPT_ATTRIBUTES.map((name) => {
    if (name === 'allowfullscreen') return '( allowfullscreen)?';
    const attribute = ` ${name}="([^"]*)"`;
    return name === 'src' ? attribute : `(?:${attribute})?`;
  }).join('')}></iframe>$`,
);
/**
 * Printable ASCII: values made only of it read the same to parse5 as to `unescapeAttribute`, with no parse
 * error (control characters, noncharacters and lone surrogates are errors to parse5).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ESCAPED = /&(amp|quot|lt|gt);/g;
const UNESCAPED: Readonly<Record<string, string>> = { amp: '&', quot: '"', lt: '<', gt: '>' };
const unescapeAttribute = (value: string): string => value.replace(ESCAPED, (_, name: string) => UNESCAPED[name]!);

/**
 * `input` itself when it is already the canonical iframe, found without an HTML parser; null when it may not
 * be (the full parse decides). Every embed stored since embeds were checked is canonical, so replaying the
 * log mostly takes this path. Canonical means: the values, unescaped, pass the same checks and, escaped
 * again, give back exactly `input`, which also rules out any character reference but the four written.
 */
export function alreadyCanonical(input: string): string | null {
  const shape = CANONICAL_SHAPE.exec(input);
  if (!shape) return null;
  const kept = new Map<KeptAttribute, string>();
  for (const [index, name] of KEPT_ATTRIBUTES.entries()) {
    const written = shape[index + 1];
    if (written === undefined) continue;
    if (name === 'allowfullscreen') {
      kept.set(name, '');
      continue;
    }
    if (!PRINTABLE_ASCII.test(written)) return null;
    const verdict = checkedAttribute(name, unescapeAttribute(written));
    if (!verdict.ok) return null;
    kept.set(name, verdict.html);
  }
  return iframeOf(kept) === input ? input : null;
}

function isHtmlElement(node: DefaultTreeAdapterTypes.ChildNode, tagName: string): node is DefaultTreeAdapterTypes.Element {
  return 'tagName' in node && node.tagName === tagName && node.namespaceURI === html.NS.HTML;
}

/**
 * What is served of a stored embed: its canonical form, or null when it is not an acceptable one. The log
 * holds embeds from before they were checked (a <script>, any host), which replay through this.
 */
export function servedMapEmbed(stored: string | null | undefined): string | null {
  if (typeof stored !== 'string') return null;
  const canonical = alreadyCanonical(stored);
  if (canonical !== null) return canonical;
  const verdict = canonicalMapEmbed(stored);
  return verdict.ok ? verdict.html : null;
}

/** A map embed as a command takes it: refused (422) unless acceptable, stored in canonical form. */
export const mapEmbedHtmlSchema = z
  .string()
  .max(10_000)
  .transform((value, context) => {
    const verdict = canonicalMapEmbed(value);
    if (verdict.ok) return verdict.html;
    context.addIssue({ code: 'custom', message: `${verdict.problem}; accepted: ${MAP_EMBED_RULE}` });
    return z.NEVER;
  })
  .meta({
    description:
      `A map to show on the project's page, as HTML: ${MAP_EMBED_RULE}. Anything else is refused with 422. ` +
      'Stored and served in a canonical form the service writes (attributes in a fixed order, values escaped).',
    example:
      '<iframe src="https://www.openstreetmap.org/export/embed.html?bbox=55.13%2C25.07%2C55.15%2C25.09&amp;layer=mapnik" width="600" height="450" loading="lazy"></iframe>',
  });
