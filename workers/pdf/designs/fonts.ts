import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { PdfLanguage } from '../../../src/pdf/pdfOptions.js';

const require = createRequire(import.meta.url);

interface FontFile {
  family: string;
  /** The @fontsource file name, e.g. `inter-latin-400-normal.woff2`. */
  file: string;
  weight: number;
  style: 'normal' | 'italic';
  unicodeRange?: string;
}

const LATIN_RANGE =
  'U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD';
const ARABIC_RANGE =
  'U+0600-06FF, U+0750-077F, U+0870-088E, U+0890-0891, U+0897-08E1, U+08E3-08FF, U+200C-200E, U+2010-2011, U+204F, U+2E41, U+FB50-FDFF, U+FE70-FE74, U+FE76-FEFC';

const LATIN_FONTS: FontFile[] = [
  ...[300, 400, 500, 600, 700, 800].map((weight) => ({
    family: 'Inter',
    file: `inter-latin-${weight}-normal.woff2`,
    weight,
    style: 'normal' as const,
    unicodeRange: LATIN_RANGE,
  })),
  ...[400, 500, 700].map((weight) => ({
    family: 'Playfair Display',
    file: `playfair-display-latin-${weight}-normal.woff2`,
    weight,
    style: 'normal' as const,
    unicodeRange: LATIN_RANGE,
  })),
  { family: 'Playfair Display', file: 'playfair-display-latin-400-italic.woff2', weight: 400, style: 'italic', unicodeRange: LATIN_RANGE },
];

const ARABIC_FONTS: FontFile[] = [400, 500, 700].map((weight) => ({
  family: 'Noto Naskh Arabic',
  file: `noto-naskh-arabic-arabic-${weight}-normal.woff2`,
  weight,
  style: 'normal' as const,
  unicodeRange: ARABIC_RANGE,
}));

const packageOf = (family: string): string => `@fontsource/${family.toLowerCase().replaceAll(' ', '-')}`;

function fontFace(font: FontFile): string {
  const bytes = readFileSync(require.resolve(`${packageOf(font.family)}/files/${font.file}`));
  return `@font-face{font-family:'${font.family}';font-style:${font.style};font-weight:${font.weight};font-display:block;src:url(data:font/woff2;base64,${bytes.toString('base64')}) format('woff2');${font.unicodeRange ? `unicode-range:${font.unicodeRange};` : ''}}`;
}

const faces = new Map<PdfLanguage, string>();

/**
 * The @font-face rules of a brochure, the woff2 files inlined (read once per process): Inter and Playfair
 * Display for Latin text, and for Arabic Noto Naskh Arabic, limited to Arabic letters so that names and
 * numbers in Latin letters keep the design's faces.
 */
export function fontFaces(language: PdfLanguage): string {
  let css = faces.get(language);
  if (css === undefined) {
    css = [...LATIN_FONTS, ...(language === 'ar' ? ARABIC_FONTS : [])].map(fontFace).join('\n');
    faces.set(language, css);
  }
  return css;
}

/** Body and display stacks: the Arabic face first for `ar` (it covers Arabic letters only, see fontFaces). */
export function fontStacks(language: PdfLanguage): { body: string; display: string } {
  const arabic = language === 'ar' ? "'Noto Naskh Arabic', " : '';
  return { body: `${arabic}'Inter', sans-serif`, display: `${arabic}'Playfair Display', serif` };
}
