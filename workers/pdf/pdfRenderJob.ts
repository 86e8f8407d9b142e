import { Readable } from 'node:stream';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import type { Job, JobConsumer, JobOutcome, JobQueue } from '../../src/jobQueue/jobQueue.js';
import type { Logger } from '../../src/logger.js';
import {
  PDF_RENDER_FAILURES,
  PDF_RENDERS,
  type BrochureRendering,
  type PdfFailureCode,
  type PdfRenderDoc,
  type PdfRenderFailureDoc,
  type PdfRenderJobData,
} from '../../src/pdf/pdfRenders.js';
import type { PdfRenderNotices } from '../../src/pdf/pdfRenderNotices.js';
import type { ReadStore } from '../../src/readStore/readStore.js';

export interface PdfRenderJobDeps {
  queue: Pick<JobQueue, 'consume'>;
  renderer: BrochureRendering;
  readStore: ReadStore;
  blobs: BlobStore;
  /** PDF_RENDER_CONCURRENCY: jobs run at once in this process. */
  concurrency: number;
  /** PDF_RENDER_TIMEOUT_MS: a render still running then is aborted and recorded as RENDER_TIMEOUT. */
  renderTimeoutMs: number;
  clock: () => Date;
  /** Told of each stored outcome, so the request waiting for it answers at once. */
  renderNotices: Pick<PdfRenderNotices, 'announce'>;
  logger: Logger;
}

/** A render that did not finish by the deadline: its PDF is not stored or cached. */
class RenderDeadlinePassed extends Error {
  constructor(timeoutMs: number) {
    super(`The render took longer than ${timeoutMs} ms.`);
    this.name = 'RenderDeadlinePassed';
  }
}

async function renderWithDeadline(deps: PdfRenderJobDeps, data: PdfRenderJobData) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new RenderDeadlinePassed(deps.renderTimeoutMs));
    }, deps.renderTimeoutMs);
  });
  try {
    return await Promise.race([deps.renderer.render(data.request, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** This job's deadline, or the renderer's own (its RenderTimeoutError carries the code). */
const timedOut = (error: unknown): boolean =>
  error instanceof RenderDeadlinePassed || (error instanceof Error && (error as Error & { code?: unknown }).code === 'RENDER_TIMEOUT');

/**
 * One 'pdf-renders' job: render, store the PDF in the blob store, then record it under the fingerprint
 * (the API waits for that record). A job already rendered (a rerun after a crash between storing and
 * acknowledging) finds the record and is done. A failed render is recorded as a failure, which the waiting
 * request answers with 504 or 503, and is not retried: the client's next request queues a new job.
 */
export async function runPdfRenderJob(job: Job, deps: PdfRenderJobDeps): Promise<JobOutcome> {
  const data = job.data as PdfRenderJobData;
  const { readStore } = deps;
  if (await readStore.get<PdfRenderDoc>(PDF_RENDERS, data.fingerprint)) {
    deps.renderNotices.announce(data.fingerprint);
    return { status: 'completed' };
  }
  const startedAt = Date.now();
  try {
    const rendered = await renderWithDeadline(deps, data);
    const stored = await deps.blobs.put(Readable.from([rendered.pdf]), { contentType: 'application/pdf' });
    const record: PdfRenderDoc = {
      _id: data.fingerprint,
      blob_key: stored.sha256,
      pages: rendered.pages,
      bytes: stored.size,
      map_drawn: rendered.mapDrawn,
      created_at: deps.clock().toISOString(),
    };
    await readStore.write([{ op: 'put', collection: PDF_RENDERS, doc: record }]);
    deps.renderNotices.announce(data.fingerprint);
    deps.logger.info(
      { component: 'pdf', job_id: job.id, pages: rendered.pages, bytes: stored.size, ms: Date.now() - startedAt },
      'brochure rendered',
    );
    return { status: 'completed' };
  } catch (error) {
    const code: PdfFailureCode = timedOut(error) ? 'RENDER_TIMEOUT' : 'RENDERER_UNAVAILABLE';
    const previous = await readStore.get<PdfRenderFailureDoc>(PDF_RENDER_FAILURES, data.fingerprint);
    const failure: PdfRenderFailureDoc = {
      _id: data.fingerprint,
      failures: (previous?.failures ?? 0) + 1,
      code,
      message: error instanceof Error ? error.message : String(error),
      failed_at: deps.clock().toISOString(),
    };
    await readStore.write([{ op: 'put', collection: PDF_RENDER_FAILURES, doc: failure }]);
    deps.renderNotices.announce(data.fingerprint);
    deps.logger.warn({ component: 'pdf', job_id: job.id, err: error, code }, 'brochure render failed');
    return { status: 'completed' };
  }
}

export function startPdfRenderJobs(deps: PdfRenderJobDeps): JobConsumer {
  return deps.queue.consume((job) => runPdfRenderJob(job, deps), { concurrency: deps.concurrency });
}
