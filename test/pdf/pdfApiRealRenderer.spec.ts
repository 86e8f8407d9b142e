import nock from 'nock';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF_TEMPLATES } from '../../src/pdf/pdfOptions.js';
import { startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { storedImage } from '../support/storedFiles.js';
import { readPdf } from './builders.js';

/*
 * The service as `npm start` wires it, with the Chromium renderer of the worker role (no double): each
 * design is printed over HTTP and read back with a PDF parser. Map tiles come from a pinned tile server.
 */

const TILE_HOST = 'https://tiles.example.test';
const PROJECT_NAME = 'Marina Crest Residences';
const AGENT_NAME = 'Layla Haddad';
const ARABIC_LETTER = /[\u0600-\u06FF]/;
/** Designs print some texts in capitals or letter-spaced, which a PDF parser reads back as such: compare without either. */
const compact = (text: string): string => text.replace(/\s+/g, '').toLowerCase();

describe('brochure PDFs over HTTP with the Chromium renderer', () => {
  let api: ApiFixture;
  let client: IssuedKey;
  let agentProfileId: number;

  const generate = async (body: Record<string, unknown>) => {
    const answer = await api.get('/projects/1/pdf', client.key, { method: 'POST', body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const file = await fetch(answer.body.data.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    return { data: answer.body.data, pdf: await readPdf(Buffer.from(await file.arrayBuffer())) };
  };

  beforeAll(async () => {
    const tile = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#cfe3d0' } })
      .png()
      .toBuffer();
    nock(TILE_HOST)
      .persist()
      .get(/^\/\d+\/\d+\/\d+\.png$/)
      .reply(200, tile, { 'Content-Type': 'image/png' });
    api = await startApiFixture({
      env: { PDF_TILE_URL: `${TILE_HOST}/{z}/{x}/{y}.png`, PDF_RENDER_TIMEOUT_MS: '90000', PDF_RENDER_CONCURRENCY: '1' },
    });
    const facade = await storedImage(api.app.blobStore, { width: 1600, height: 1000, seed: 7, fileName: 'facade.jpg' });
    await api.given([
      ...referenceCatalogue(),
      projectCreated(1, {
        name: PROJECT_NAME,
        slug: 'marina-crest-residences',
        overview: 'Forty-two storeys above the marina promenade, with terraces facing the water.',
      }),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 1, caption: 'Facade', position: 0, image: facade } }),
      projectEvent('ProjectPublished', 1, {}),
    ]);
    client = await api.issue();
    const limits = { pdf_limits: { per_minute: 100, daily: 1_000, monthly: 10_000 } };
    expect((await api.admin('PATCH', `/clients/${client.clientId}`, limits)).status).toBe(200);
    const created = await api.admin('POST', `/clients/${client.clientId}/agent-profiles`, {
      agent_name: AGENT_NAME,
      company_name: 'Harbour & Key Realty',
      email: 'layla.haddad@harbourkey.example',
      phone: '+971 4 555 0142',
    });
    expect(created.status).toBe(201);
    agentProfileId = created.body.data.id;
    for (const step of ['submit', 'approve'])
      expect((await api.admin('POST', `/agent-profiles/${agentProfileId}/${step}`)).status).toBe(200);
    await api.settle();
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    nock.cleanAll();
  });

  it.each(PDF_TEMPLATES)(
    'when a %s brochure with an agent is asked, then a PDF that opens comes back with the project, the agent, the map and its attribution',
    async (template) => {
      const { data, pdf } = await generate({ template, agent_profile_id: agentProfileId });
      expect(data).toMatchObject({ cached: false, template, language: 'en' });
      expect(pdf.pages).toBe(data.pages);
      expect(pdf.pages).toBeGreaterThanOrEqual(4);
      const text = compact(pdf.text.join(' '));
      expect(text).toContain(compact(PROJECT_NAME));
      expect(text).toContain(compact(AGENT_NAME));
      expect(text).toContain(compact('© OpenStreetMap contributors'));
    },
    120_000,
  );

  it('when an Arabic brochure is asked, then its text is Arabic and the project name is kept', async () => {
    const { data, pdf } = await generate({ template: 'classic', language: 'ar', sections: ['cover', 'overview', 'location'] });
    expect(data).toMatchObject({ language: 'ar', cached: false });
    const text = pdf.text.join(' ');
    expect(text).toMatch(ARABIC_LETTER);
    expect(compact(text)).toContain(compact(PROJECT_NAME));
  }, 120_000);

  it('when the same brochure is asked again, then it is not printed again', async () => {
    const first = await generate({ template: 'minimal', sections: ['cover'] });
    const again = await generate({ template: 'minimal', sections: ['cover'] });
    expect(again.data).toMatchObject({ cached: true, fingerprint: first.data.fingerprint, pages: first.data.pages });
  }, 120_000);
});
