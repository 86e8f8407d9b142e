import nock from 'nock';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF_LANGUAGES, PDF_TEMPLATES } from '../../src/pdf/pdfOptions.js';
import {
  createBrochureRenderer,
  RendererUnavailableError,
  RenderTimeoutError,
  type BrochureRenderer,
  type BrochureRendererOptions,
} from '../../workers/pdf/brochureRenderer.js';
import { capturingLogger, type LogLine } from '../support/projectionHarness.js';
import { brochureCatalogue, brochureRequest, readPdf, UNIT_TYPE, type BrochureCatalogue } from './builders.js';

const TILE_HOST = 'https://tiles.example.test';
const ARABIC_LETTER = /[\u0600-\u06FF]/g;
/** Designs print some texts in capitals or letter-spaced, which a PDF parser reads back as such: compare without either. */
const compact = (text: string): string => text.replace(/\s+/g, '').toLowerCase();

describe('brochure renderer', () => {
  let catalogue: BrochureCatalogue;
  let renderer: BrochureRenderer;
  let tilesUp = true;

  /** A renderer over the test catalogue and the pinned tile server, and the lines it logs. */
  const rendererWith = (options: Partial<BrochureRendererOptions> = {}): { renderer: BrochureRenderer; lines: LogLine[] } => {
    const { logger, lines } = capturingLogger();
    const renderer = createBrochureRenderer({
      readStore: catalogue.readStore,
      blobStore: catalogue.blobStore,
      derivatives: catalogue.derivatives,
      concurrency: 2,
      renderTimeoutMs: 60_000,
      restartAfterJobs: 100,
      tiles: { urlTemplate: `${TILE_HOST}/{z}/{x}/{y}.png`, userAgent: 'PropertyCatalogue/1.0 (test)', timeoutMs: 2_000 },
      logger,
      ...options,
    });
    return { renderer, lines };
  };
  const browserStarts = (lines: readonly LogLine[]) => lines.filter((line) => line.msg === 'brochure browser started');
  const browserDeaths = (lines: readonly LogLine[]) =>
    lines.filter((line) => line.msg === 'brochure browser died; the next render starts another');

  beforeAll(async () => {
    catalogue = await brochureCatalogue();
    const tile = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#cfe3d0' } })
      .png()
      .toBuffer();
    nock(TILE_HOST)
      .persist()
      .get(/^\/15\/\d+\/\d+\.png$/)
      .reply(() => (tilesUp ? [200, tile, { 'Content-Type': 'image/png' }] : [500, 'down']));
    ({ renderer } = rendererWith());
  });

  afterAll(async () => {
    await renderer.close();
    nock.cleanAll();
    await catalogue.close();
  });

  for (const template of PDF_TEMPLATES) {
    for (const language of PDF_LANGUAGES) {
      it(`when the ${template} design is rendered in ${language}, then the PDF opens with the project, the agent, the map and its attribution`, async () => {
        const brochure = await renderer.render(brochureRequest({ template, language }));

        const read = await readPdf(brochure.pdf);
        const text = read.text.join('\n');
        expect(read.pages).toBe(brochure.pages);
        // Cover, overview, gallery, floor plans (two pages), payment plans, amenities, location, agent.
        expect(brochure.pages).toBe(9);
        expect(brochure.mapDrawn).toBe(true);
        expect(compact(read.text[0]!)).toContain(compact('Marina Crest Residences'));
        expect(compact(text)).toContain(compact('Layla Haddad'));
        expect(compact(text)).toContain(compact('© OpenStreetMap contributors'));
        if (language === 'ar') {
          expect(text.match(ARABIC_LETTER)?.length ?? 0).toBeGreaterThan(100);
          expect(compact(text)).not.toContain(compact('Floor plans'));
        } else {
          expect(compact(text)).toContain(compact('Floor plans'));
          expect(compact(text)).toContain(compact('Studio – 3 Bedrooms'));
        }
      });
    }
  }

  it('when only some sections are asked for, then only their pages are printed', async () => {
    const brochure = await renderer.render(brochureRequest({ sections: ['cover', 'payment_plans', 'agent'] }));

    const read = await readPdf(brochure.pdf);
    expect(read.pages).toBe(3);
    expect(read.text.join('\n')).toContain('60/40 Post-handover Plan');
    expect(read.text.join('\n')).not.toContain('Amenities');
    expect(brochure.mapDrawn).toBe(false);
  });

  it('when no agent profile is given, then there is no agent page even when the section is asked for', async () => {
    const brochure = await renderer.render(brochureRequest({ agentProfileId: null, sections: ['cover', 'agent'] }));

    const read = await readPdf(brochure.pdf);
    expect(read.pages).toBe(1);
    expect(read.text.join('\n')).not.toContain('Layla Haddad');
  });

  it('when unit types and a currency are chosen, then only their plans print, priced in that currency', async () => {
    const brochure = await renderer.render(
      brochureRequest({ unitTypeIds: [UNIT_TYPE.oneBed], currency: { code: 'USD', rate: 0.2723 }, sections: ['cover', 'floor_plans'] }),
    );

    const text = (await readPdf(brochure.pdf)).text.join('\n');
    expect(text).toContain('One Bedroom Type B');
    expect(text).not.toContain('Studio Type A');
    // 1,890,000 AED at 0.2723: the one-bedroom's price is the "from" price now.
    expect(text).toContain('514,647');
    expect(text).toContain('1 Bedroom');
  });

  it('when the plan adds a branding page, then it is the last page', async () => {
    const brochure = await renderer.render(brochureRequest({ sections: ['cover'], brandingPage: true }));

    const read = await readPdf(brochure.pdf);
    expect(read.pages).toBe(2);
    expect(read.text[1]).toContain('Marina Crest Residences');
    expect(read.text[1]).toContain('Harbour & Key Realty');
  });

  it('when the tiles cannot be fetched, then the location page shows the coordinates instead of a map', async () => {
    tilesUp = false;
    try {
      await catalogue.putProject({ location: { latitude: -33.8688, longitude: 151.2093 } });
      const brochure = await renderer.render(brochureRequest({ sections: ['cover', 'location'] }));

      const text = (await readPdf(brochure.pdf)).text.join('\n');
      expect(brochure.mapDrawn).toBe(false);
      expect(brochure.pages).toBe(2);
      expect(text).toContain('Map not available');
      expect(text).toContain('33.8688° S, 151.2093° E');
      expect(text).not.toContain('OpenStreetMap');
    } finally {
      tilesUp = true;
      await catalogue.putProject({});
    }
  });

  it("when the caller's deadline passes mid-render, then it rejects with RenderTimeoutError and the next render succeeds", async () => {
    await expect(renderer.render(brochureRequest(), AbortSignal.timeout(1))).rejects.toBeInstanceOf(RenderTimeoutError);

    const next = await renderer.render(brochureRequest({ sections: ['cover'] }));
    expect(next.pages).toBe(1);
  });

  it('when a render takes longer than the timeout, then it rejects with RenderTimeoutError', async () => {
    const { renderer: hasty } = rendererWith({ renderTimeoutMs: 50 });
    try {
      await expect(hasty.render(brochureRequest())).rejects.toBeInstanceOf(RenderTimeoutError);
    } finally {
      await hasty.close();
    }
  });

  it('when the browser was killed, then the next render starts another and succeeds', async () => {
    const { renderer: own, lines } = rendererWith();
    try {
      await own.render(brochureRequest({ sections: ['cover'] }));
      const [started] = browserStarts(lines);
      process.kill(started!.pid as number, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));

      const next = await own.render(brochureRequest({ sections: ['cover'] }));

      expect(next.pages).toBe(1);
      expect(browserStarts(lines)).toHaveLength(2);
      expect(browserDeaths(lines)).toHaveLength(1);
      expect(own.rendersStarted).toBe(2);
    } finally {
      await own.close();
    }
  });

  it('when the browser is killed during a render, then that render rejects with RendererUnavailableError', async () => {
    const { renderer: own, lines } = rendererWith();
    try {
      await own.render(brochureRequest({ sections: ['cover'] }));
      const pid = browserStarts(lines)[0]!.pid as number;
      const rendering = own.render(brochureRequest());
      // The model is built in well under that; the page prints for longer (a second or more).
      setTimeout(() => process.kill(pid, 'SIGKILL'), 400);

      await expect(rendering).rejects.toBeInstanceOf(RendererUnavailableError);
      expect((await own.render(brochureRequest({ sections: ['cover'] }))).pages).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('when a browser has served its renders, then the next render runs on a new browser', async () => {
    const { renderer: own, lines } = rendererWith({ restartAfterJobs: 1 });
    try {
      await own.render(brochureRequest({ sections: ['cover'] }));
      await own.render(brochureRequest({ sections: ['cover'] }));

      expect(browserStarts(lines)).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it('when the renderer is closed after rendering, then its browser stops without being logged as died', async () => {
    const { renderer: own, lines } = rendererWith();
    await own.render(brochureRequest({ sections: ['cover'] }));

    await own.close();
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(browserStarts(lines)).toHaveLength(1);
    expect(browserDeaths(lines)).toHaveLength(0);
  });

  it('when the renderer is closed, then a render rejects with RendererUnavailableError', async () => {
    const { renderer: own } = rendererWith();
    await own.close();

    await expect(own.render(brochureRequest())).rejects.toBeInstanceOf(RendererUnavailableError);
  });
});
