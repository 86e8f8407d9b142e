import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/** Google Maps' "Embed a map" code as it hands it out. */
const GOOGLE_EMBED =
  '<iframe src="https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d3613.5!2d55.14!3d25.08" width="600" height="450" ' +
  'style="border:0;" allowfullscreen="" loading="lazy" referrerpolicy="no-referrer-when-downgrade"></iframe>';
const GOOGLE_CANONICAL =
  '<iframe src="https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d3613.5!2d55.14!3d25.08" width="600" height="450" ' +
  'allowfullscreen loading="lazy" referrerpolicy="no-referrer-when-downgrade"></iframe>';
const OSM_SOURCE = 'https://www.openstreetmap.org/export/embed.html?bbox=55.13%2C25.07%2C55.15%2C25.09&layer=mapnik';

const REFUSED: Array<[string, string]> = [
  ['a <script>', '<script>alert(document.cookie)</script>'],
  ['an allowed iframe followed by a <script>', `${GOOGLE_EMBED}<script>alert(1)</script>`],
  ['an iframe to a host that is not a map service', '<iframe src="https://evil.example/maps/embed?pb=1"></iframe>'],
  ['an iframe to a look-alike host', '<iframe src="https://www.google.com.evil.example/maps/embed?pb=1"></iframe>'],
  ['an iframe to a map host outside its embed page', '<iframe src="https://www.google.com/search?q=maps"></iframe>'],
  ['an iframe over http:', '<iframe src="http://www.google.com/maps/embed?pb=1"></iframe>'],
  ['an iframe with a javascript: src', '<iframe src="javascript:alert(1)"></iframe>'],
  ['an iframe with a data: src', '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>'],
  ['an iframe with credentials in its src', '<iframe src="https://user:pass@www.google.com/maps/embed?pb=1"></iframe>'],
  ['an iframe with onload=', '<iframe src="https://www.google.com/maps/embed?pb=1" onload="alert(1)"></iframe>'],
  ['an iframe with srcdoc=', '<iframe src="https://www.google.com/maps/embed?pb=1" srcdoc="<script>alert(1)</script>"></iframe>'],
  ['two iframes', `${GOOGLE_EMBED}${GOOGLE_EMBED}`],
  ['text outside the iframe', `Our location: ${GOOGLE_EMBED}`],
  ['content inside the iframe', '<iframe src="https://www.google.com/maps/embed?pb=1"><script>alert(1)</script></iframe>'],
  ['an iframe that is never closed', '<iframe src="https://www.google.com/maps/embed?pb=1">'],
  ['an iframe with the src twice', '<iframe src="https://www.google.com/maps/embed?pb=1" src="https://evil.example/"></iframe>'],
  ['an iframe inside an svg', '<svg><iframe src="https://www.google.com/maps/embed?pb=1"></iframe></svg>'],
  ['an iframe without a src', '<iframe width="600"></iframe>'],
  ['plain text', 'Dubai Marina'],
];

describe('map_embed_html', () => {
  let api: ApiFixture;
  let key: string;
  let slugSequence = 0;
  /** The reference catalogue's state, community and developer 1 (published events). */
  const aProject = (fields: Record<string, unknown> = {}) => ({
    name: 'Marina Heights',
    slug: `marina-heights-${++slugSequence}`,
    developer_id: 1,
    state_id: 1,
    community_id: 1,
    nature: 'off_plan',
    ...fields,
  });

  /** Creates and publishes a project through the admin API; its id. */
  const publishedProject = async (fields: Record<string, unknown>): Promise<number> => {
    const created = await api.admin('POST', '/projects', aProject(fields));
    expect(created.status).toBe(201);
    expect((await api.admin('POST', `/projects/${created.body.data.id}/publish`)).status).toBe(200);
    await api.settle();
    return created.body.data.id;
  };

  beforeAll(async () => {
    api = await startApiFixture();
    await api.given(publishedReferenceCatalogue());
    key = await api.key();
  });
  afterAll(() => api.close());

  for (const [what, html] of REFUSED) {
    it(`when a project is created with ${what}, then 422 names body.map_embed_html and says what is accepted`, async () => {
      const answer = await api.admin('POST', '/projects', aProject({ map_embed_html: html }));

      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.map_embed_html']);
      expect(answer.body.error.details.fields['body.map_embed_html']).toMatch(
        /accepted: exactly one <iframe> and nothing else, whose src is an https address of www\.google\.com/,
      );
    });
  }

  it('when a project is revised with a <script> embed, then 422 names body.map_embed_html and the embed stays', async () => {
    const created = await api.admin('POST', '/projects', aProject({ map_embed_html: GOOGLE_EMBED }));
    const path = `/projects/${created.body.data.id}`;

    const answer = await api.admin('PATCH', path, { map_embed_html: '<script>alert(1)</script>' });

    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.map_embed_html']);
    expect((await api.admin('GET', path)).body.data.map_embed_html).toBe(GOOGLE_CANONICAL);
  });

  it("when Google's embed code is sent, then the canonical iframe (style dropped, fixed attribute order) is stored and served", async () => {
    const id = await publishedProject({ map_embed_html: GOOGLE_EMBED });

    expect((await api.admin('GET', `/projects/${id}`)).body.data.map_embed_html).toBe(GOOGLE_CANONICAL);
    const detail = await api.get(`/projects/${id}`, key);
    expect(detail.status).toBe(200);
    expect(detail.body.data.map_embed_html).toBe(GOOGLE_CANONICAL);
  });

  it('when an embed is written in capitals, single quotes and entities, then it is served rewritten in canonical form', async () => {
    const id = await publishedProject({
      map_embed_html: `  <IFRAME TITLE='Map of "Marina"' LOADING=lazy Width=425 Height='350' SRC='${OSM_SOURCE.replace('&', '&amp;')}'></IFRAME>\n`,
    });

    expect((await api.get(`/projects/${id}`, key)).body.data.map_embed_html).toBe(
      `<iframe src="${OSM_SOURCE.replace('&', '&amp;')}" width="425" height="350" loading="lazy" title="Map of &quot;Marina&quot;"></iframe>`,
    );
  });

  it('when an event stored before embeds were checked holds a <script>, then it replays and is served as null', async () => {
    const at = minute(1);
    await api.given([
      projectCreated(900, { slug: 'old-script', map_embed_html: '<script>alert(document.cookie)</script>' }, at),
      projectEvent('ProjectPublished', 900, {}, at),
      projectCreated(901, { slug: 'old-revised', map_embed_html: GOOGLE_EMBED }, at),
      projectEvent('ProjectRevised', 901, { changes: { map_embed_html: `${GOOGLE_EMBED}<img src=x onerror=alert(1)>` } }, minute(2)),
      projectEvent('ProjectPublished', 901, {}, minute(2)),
      projectCreated(902, { slug: 'old-acceptable', map_embed_html: GOOGLE_EMBED }, at),
      projectEvent('ProjectPublished', 902, {}, at),
    ]);

    for (const id of [900, 901]) {
      const detail = await api.get(`/projects/${id}`, key);
      expect(detail.status).toBe(200);
      expect(detail.body.data.map_embed_html).toBeNull();
      const admin = await api.admin('GET', `/projects/${id}`);
      expect(admin.body.data.map_embed_html).toBeNull();
      expect(JSON.stringify([detail.body, admin.body])).not.toMatch(/<script|onerror/);
    }
    expect((await api.get('/projects/902', key)).body.data.map_embed_html).toBe(GOOGLE_CANONICAL);
    const batch = await api.get('/projects?ids=900,901,902&view=detail', key);
    expect(batch.body.data.map((project: { map_embed_html: string | null }) => project.map_embed_html)).toEqual([
      null,
      null,
      GOOGLE_CANONICAL,
    ]);
  });
});
