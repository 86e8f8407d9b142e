import type { Doc, ReadStore } from '../readStore/readStore.js';
import type { BrochureRequest } from './pdfOptions.js';

/**
 * The brochure cache: one record per fingerprint whose PDF is stored in the blob store. Written by the
 * worker once the PDF is stored, read by the API; kept in the read store beside the read models but made
 * by no projection (a rebuild leaves it alone). The blob garbage collector keeps every PDF a record names.
 */
export const PDF_RENDERS = 'pdf_renders';

export type PdfRenderDoc = Doc & {
  /** The fingerprint. */
  _id: string;
  /** The PDF's SHA-256 in the blob store. */
  blob_key: string;
  pages: number;
  bytes: number;
  map_drawn: boolean;
  created_at: string;
};

/** The PDFs the brochure cache names: the blob garbage collector keeps them (no event names a PDF). */
export async function cachedBrochureKeys(readStore: ReadStore): Promise<ReadonlySet<string>> {
  const { items } = await readStore.find<PdfRenderDoc>(PDF_RENDERS, {});
  return new Set(items.map((render) => render.blob_key));
}

/**
 * Renders that failed, per fingerprint: a failed render is not cached, and the next request for the
 * fingerprint queues a new job (job ids count the failures, since the queue ignores a known id).
 */
export const PDF_RENDER_FAILURES = 'pdf_render_failures';

export const PDF_FAILURE_CODES = ['RENDER_TIMEOUT', 'RENDERER_UNAVAILABLE'] as const;
export type PdfFailureCode = (typeof PDF_FAILURE_CODES)[number];

export type PdfRenderFailureDoc = Doc & {
  _id: string;
  failures: number;
  code: PdfFailureCode;
  message: string;
  failed_at: string;
};

/** The queue the API hands renders to and the worker consumes. */
export const PDF_RENDER_QUEUE = 'pdf-renders';

/** What a job carries: the renderer's request and the fingerprint its result is recorded under. */
export interface PdfRenderJobData {
  fingerprint: string;
  request: BrochureRequest;
}

/** One job per fingerprint and failure count: concurrent requests of one fingerprint add the same job, so it renders once. */
export const pdfRenderJobId = (fingerprint: string, failures: number): string => `${fingerprint}-${failures}`;

/** The file name a generated PDF is downloaded as. */
export const pdfFileName = (projectSlug: string, template: string, language: string): string =>
  `${projectSlug}-brochure-${template}-${language}.pdf`;

/** What the worker job needs of P1's renderer (workers/pdf/brochureRenderer.ts): its BrochureRenderer fits. */
export interface BrochureRendering {
  render(request: BrochureRequest, signal?: AbortSignal): Promise<{ pdf: Buffer; pages: number; mapDrawn: boolean }>;
}
