import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import type { Logger } from '../../src/logger.js';
import type { ImageDerivatives } from '../../src/media/imageDerivatives.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { buildBrochureModel } from './brochureModel.js';
import { BROCHURE_DESIGNS } from './designs/index.js';
import { brochureHtml } from './designs/parts.js';
import { createMapImages, type TileSource } from './mapImage.js';

export interface RenderedBrochure {
  pdf: Buffer;
  pages: number;
  /** False when the location page shows the coordinates instead of a map (tiles unavailable), or has no map to show. */
  mapDrawn: boolean;
}

export interface BrochureRenderer {
  /**
   * Prints the brochure. Rejects with RenderTimeoutError when it takes longer than the renderer's timeout
   * (or `signal` aborts with a TimeoutError), RendererUnavailableError when the browser cannot be started
   * or dies during the render; anything else `signal` aborts with is rejected as it is.
   */
  render(request: BrochureRequest, signal?: AbortSignal): Promise<RenderedBrochure>;
  close(): Promise<void>;
  /** Renders asked for since start, finished or not: what tests and benchmarks count. */
  readonly rendersStarted: number;
}

export interface BrochureRendererOptions {
  readStore: ReadStore;
  blobStore: BlobStore;
  derivatives: ImageDerivatives;
  /** A Chromium to run instead of the one @sparticuz/chromium unpacks (CHROMIUM_PATH). */
  chromiumPath?: string;
  /** Pages printing at once; more renders wait their turn. */
  concurrency: number;
  /** From a render's turn to its PDF, the browser's start included. */
  renderTimeoutMs: number;
  /** A browser is replaced after this many renders (Chromium's memory only grows). */
  restartAfterJobs: number;
  tiles: TileSource;
  logger: Logger;
}

/** The render took longer than its time: its page was closed (the browser replaced if it did not close). */
export class RenderTimeoutError extends Error {
  readonly code = 'RENDER_TIMEOUT';
  constructor(readonly timeoutMs: number | null) {
    super(timeoutMs === null ? 'the brochure was not rendered in time' : `the brochure was not rendered within ${timeoutMs} ms`);
    this.name = 'RenderTimeoutError';
  }
}

/** No browser to print with: it could not be started, it died during the render, or the renderer is closed. */
export class RendererUnavailableError extends Error {
  readonly code = 'RENDERER_UNAVAILABLE';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'RendererUnavailableError';
  }
}

/**
 * Chromium's switches: headless, no sandbox (it runs as the service's user in a container), and nothing that
 * reaches out on its own (updates, sync, metrics): the machine may have no outside network at all.
 */
export const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--no-pings',
  '--mute-audio',
  '--no-zygote',
  '--disable-dev-shm-usage',
  '--font-render-hinting=none',
];

/** Tagged (puppeteer's default: the structure screen readers follow); untagged saved only ~5% of the print. */
const PDF_OPTIONS = { preferCSSPageSize: true, printBackground: true, timeout: 0 } as const;

/** How long a hung page gets to close before its whole browser is killed. */
const PAGE_CLOSE_GRACE_MS = 2_000;

/** One browser process and the renders it has served; replaced once retired (after N renders) or dead. */
interface BrowserInstance {
  browser: Promise<Browser>;
  served: number;
  active: number;
  retired: boolean;
  dead: boolean;
  /** Pages whose last render finished well, kept for the next: a new page costs a renderer process's setup. */
  idle: Page[];
}

/** Where a render is, so that its deadline can close its page (set once the page exists). */
interface RenderJob {
  page: Page | null;
  instance: BrowserInstance | null;
  killing: boolean;
}

class Turns {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Pages in a PDF Chromium wrote: its page objects (`/Type /Page`, not the `/Pages` tree nodes). */
export const pdfPageCount = (pdf: Buffer): number => pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;

/**
 * A page that loads nothing from outside the document: no script, and offline, so a link to the network fails
 * (the document's Content-Security-Policy refuses anything but its inlined data: URIs too). Not request
 * interception: it would send every inlined picture and font through the DevTools pipe and back, about a
 * tenth of a warm render.
 */
async function printingPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setOfflineMode(true);
  return page;
}

/**
 * Brochure PDFs from one warm Chromium: a page per render (kept for the next when it printed), `concurrency` at once, the browser replaced after
 * `restartAfterJobs` renders or when it crashed. A render past its time has its page closed (or, when the
 * page does not close, the browser killed) and rejects with RenderTimeoutError.
 */
export function createBrochureRenderer(options: BrochureRendererOptions): BrochureRenderer {
  const { logger } = options;
  const maps = createMapImages({ blobStore: options.blobStore, tiles: options.tiles, logger });
  const sources = { readStore: options.readStore, blobStore: options.blobStore, derivatives: options.derivatives, maps };
  const turns = new Turns(Math.max(1, options.concurrency));
  let current: BrowserInstance | null = null;
  let rendersStarted = 0;
  let closed = false;
  const instances = new Set<BrowserInstance>();

  const launch = async (): Promise<Browser> => {
    const startedAt = Date.now();
    const executablePath = options.chromiumPath ?? (await chromium.executablePath());
    const browser = await puppeteer.launch({
      executablePath,
      headless: 'shell',
      args: BROWSER_ARGS,
      pipe: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    logger.info({ pid: browser.process()?.pid, ms: Date.now() - startedAt }, 'brochure browser started');
    return browser;
  };

  const shutDown = (instance: BrowserInstance): void => {
    instances.delete(instance);
    instance.browser.then(
      (browser) => browser.close().catch(() => browser.process()?.kill('SIGKILL')),
      () => undefined,
    );
  };

  const retire = (instance: BrowserInstance): void => {
    instance.retired = true;
    if (current === instance) current = null;
    if (instance.active === 0) shutDown(instance);
  };

  const instanceForNextRender = (): BrowserInstance => {
    if (current && !current.dead && !current.retired && current.served < options.restartAfterJobs) return current;
    if (current) retire(current);
    const instance: BrowserInstance = { browser: launch(), served: 0, active: 0, retired: false, dead: false, idle: [] };
    instances.add(instance);
    instance.browser.then(
      (browser) =>
        browser.on('disconnected', () => {
          instance.dead = true;
          // A browser closed by close() or by its retirement went away as asked: only a loss while open is a crash.
          if (!instance.retired && !closed)
            logger.warn({ served: instance.served }, 'brochure browser died; the next render starts another');
          retire(instance);
          instances.delete(instance);
        }),
      (error: unknown) => {
        logger.error({ err: error }, 'brochure browser did not start');
        instance.dead = true;
        retire(instance);
      },
    );
    current = instance;
    return instance;
  };

  const killPage = async (job: RenderJob, page: Page, instance: BrowserInstance): Promise<void> => {
    job.killing = true;
    const closedInTime = await Promise.race([
      page.close().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(resolve, PAGE_CLOSE_GRACE_MS, false).unref()),
    ]);
    if (closedInTime) return;
    logger.warn('a timed-out brochure page did not close: killing its browser');
    instance.dead = true;
    retire(instance);
    const browser = await instance.browser;
    browser.process()?.kill('SIGKILL');
  };

  /** The PDF of `html` on a fresh page of the current browser; `job.page` lets a timeout close it. */
  const print = async (html: string, job: RenderJob, deadline: AbortSignal) => {
    const instance = instanceForNextRender();
    job.instance = instance;
    instance.served++;
    instance.active++;
    try {
      let browser: Browser;
      try {
        browser = await instance.browser;
      } catch (error) {
        throw new RendererUnavailableError('the brochure browser could not be started', { cause: error });
      }
      deadline.throwIfAborted();
      const page = instance.idle.pop() ?? (await printingPage(browser));
      job.page = page;
      let printed = false;
      try {
        deadline.throwIfAborted();
        await page.setContent(html, { waitUntil: 'load', timeout: 0 });
        const pdf = await page.pdf(PDF_OPTIONS);
        printed = true;
        return Buffer.from(pdf);
      } finally {
        if (deadline.aborted) {
          if (!job.killing) void killPage(job, page, instance);
        } else if (printed && !instance.retired && !instance.dead && instance.idle.length < options.concurrency) {
          instance.idle.push(page);
        } else {
          await page.close().catch(() => undefined);
        }
      }
    } catch (error) {
      if (deadline.aborted) throw deadline.reason;
      if (error instanceof RendererUnavailableError) throw error;
      if (
        instance.dead ||
        !(await instance.browser.then(
          (browser) => browser.connected,
          () => false,
        ))
      ) {
        throw new RendererUnavailableError('the brochure browser stopped during the render', { cause: error });
      }
      throw error;
    } finally {
      instance.active--;
      if (instance.retired && instance.active === 0) shutDown(instance);
    }
  };

  const render = async (request: BrochureRequest, signal?: AbortSignal): Promise<RenderedBrochure> => {
    rendersStarted++;
    if (closed) throw new RendererUnavailableError('the brochure renderer is closed');
    signal?.throwIfAborted();
    await turns.take();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new RenderTimeoutError(options.renderTimeoutMs)), options.renderTimeoutMs);
    const onCallerAbort = () => {
      const reason: unknown = signal?.reason;
      controller.abort(reason instanceof DOMException && reason.name === 'TimeoutError' ? new RenderTimeoutError(null) : reason);
    };
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (signal?.aborted) onCallerAbort();
    const deadline = controller.signal;
    const job: RenderJob = { page: null, instance: null, killing: false };
    try {
      const work = (async () => {
        const model = await buildBrochureModel(request, sources);
        deadline.throwIfAborted();
        const pdf = await print(brochureHtml(model, BROCHURE_DESIGNS[request.template]), job, deadline);
        return { pdf, pages: pdfPageCount(pdf), mapDrawn: model.sections.has('location') && model.location.map !== null };
      })();
      return await new Promise<RenderedBrochure>((resolve, reject) => {
        const onDeadline = () => {
          reject(deadline.reason);
          if (job.page && job.instance) void killPage(job, job.page, job.instance);
        };
        if (deadline.aborted) onDeadline();
        else deadline.addEventListener('abort', onDeadline, { once: true });
        work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onDeadline));
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
      turns.give();
    }
  };

  return {
    render,
    async close() {
      closed = true;
      current = null;
      await Promise.all(
        [...instances].map(async (instance) => {
          instances.delete(instance);
          const browser = await instance.browser.catch(() => null);
          await browser?.close().catch(() => browser.process()?.kill('SIGKILL'));
        }),
      );
    },
    get rendersStarted() {
      return rendersStarted;
    },
  };
}
