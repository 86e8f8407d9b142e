import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/** Characters no single-line text may hold, each named for the test titles. */
const FORBIDDEN_IN_ONE_LINE: Array<[string, string]> = [
  ['NUL', '\u0000'],
  ['ESC (a C0 control)', '\u001b[31m'],
  ['DEL', '\u007f'],
  ['a C1 control', '\u0085'],
  ['RIGHT-TO-LEFT OVERRIDE', '\u202e'],
  ['LEFT-TO-RIGHT EMBEDDING', '\u202a'],
  ['FIRST STRONG ISOLATE', '\u2068'],
  ['a line feed', '\n'],
  ['a tab', '\t'],
];

describe('free text in admin commands and /v1 queries', () => {
  let api: ApiFixture;
  let key: string;
  /** Where test projects are: a state, community and developer created in beforeAll. */
  const place = { developer_id: 0, state_id: 0, community_id: 0, nature: 'off_plan' };
  let slugSequence = 0;
  const freshSlug = (stem: string) => `${stem}-${++slugSequence}`;

  const creates: Array<[string, string, () => Record<string, unknown>]> = [
    ['a project', '/projects', () => ({ ...place, slug: freshSlug('project') })],
    ['a developer', '/developers', () => ({ slug: freshSlug('developer') })],
    ['a community', '/communities', () => ({ state_id: place.state_id, slug: freshSlug('community') })],
    ['a client', '/clients', () => ({ plan: 'text-plan' })],
  ];

  beforeAll(async () => {
    api = await startApiFixture();
    const created = async (path: string, body: Record<string, unknown>): Promise<number> => {
      const answer = await api.admin('POST', path, body);
      expect(answer.status).toBe(201);
      return answer.body.data.id;
    };
    place.state_id = await created('/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' });
    place.community_id = await created('/communities', { state_id: place.state_id, name: 'Dubai Marina', slug: 'dubai-marina' });
    place.developer_id = await created('/developers', { name: 'Emaar', slug: 'emaar' });
    key = await api.key();
    const plan = await api.admin('POST', '/plans', { key: 'text-plan', name: 'Text plan', scopes: [], entitlements: [] });
    expect(plan.status).toBe(201);
  });
  afterAll(() => api.close());

  for (const [what, path, body] of creates) {
    for (const [character, text] of FORBIDDEN_IN_ONE_LINE) {
      it(`when ${what} is created with ${character} inside its name, then 422 VALIDATION_FAILED names body.name`, async () => {
        const answer = await api.admin('POST', path, { ...body(), name: `Marina ${text}Heights` });

        expect(answer.status).toBe(422);
        expect(answer.body.error.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.name']);
        expect(answer.body.error.details.fields['body.name']).toMatch(/one line without control characters/);
      });
    }

    it(`when ${what} is created with a name in Arabic script, then it is accepted as sent`, async () => {
      const answer = await api.admin('POST', path, { ...body(), name: 'مرسى دبي' });
      expect(answer.status).toBe(201);
      expect(answer.body.data.name).toBe('مرسى دبي');
    });
  }

  it('when a project is revised with a bidi override in its name, then 422 names body.name and the name stays', async () => {
    const created = await api.admin('POST', '/projects', { ...place, slug: freshSlug('project'), name: 'Marina Heights' });
    expect(created.status).toBe(201);

    const answer = await api.admin('PATCH', `/projects/${created.body.data.id}`, { name: 'Marina \u202eexe.pdf' });

    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields)).toEqual(['body.name']);
    expect((await api.admin('GET', `/projects/${created.body.data.id}`)).body.data.name).toBe('Marina Heights');
  });

  it('when long text (a description, an overview, an FAQ answer) holds line breaks and tabs, then it is accepted as sent', async () => {
    const text = 'First paragraph.\r\n\r\nSecond paragraph:\n\t- a point';
    const developer = await api.admin('POST', '/developers', { slug: freshSlug('developer'), name: 'Lines', description: text });
    expect(developer.status).toBe(201);
    expect(developer.body.data.description).toBe(text);

    const project = await api.admin('POST', '/projects', { ...place, slug: freshSlug('project'), name: 'Lines', overview: text });
    expect(project.status).toBe(201);
    expect(project.body.data.overview).toBe(text);

    const faqs = await api.admin('PUT', `/projects/${project.body.data.id}/faqs`, { items: [{ question: 'When?', answer: text }] });
    expect(faqs.status).toBe(200);
    expect(faqs.body.data.faqs).toEqual([{ question: 'When?', answer: text }]);
  });

  it('when long text holds NUL, ESC or a bidi isolate, then 422 names each field', async () => {
    const answer = await api.admin('POST', '/projects', {
      ...place,
      slug: freshSlug('project'),
      name: 'Controls',
      overview: 'ok\u0000',
      description: '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007',
      master_plan: 'left \u2066right\u2069',
    });

    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(['body.description', 'body.master_plan', 'body.overview']);
    expect(answer.body.error.details.fields['body.overview']).toMatch(/control characters other than tab and line breaks/);
  });

  it('when other single-line fields (an item of a list, a URL, a file name) hold a control, then 422 names the field by its path', async () => {
    const created = await api.admin('POST', '/projects', { ...place, slug: freshSlug('project'), name: 'Paths' });
    const project = `/projects/${created.body.data.id}`;

    const tours = await api.admin('PUT', `${project}/virtual-tours`, {
      items: [{ title: 'Tour', url: 'https://tours.example/\u202eabc' }],
    });
    expect(tours.status).toBe(422);
    expect(Object.keys(tours.body.error.details.fields)).toEqual(['body.items.0.url']);

    const brochure = await api.admin('PUT', `${project}/brochure`, {
      key: 'abc123',
      file_name: 'brochure\u0000.pdf',
      content_type: 'application/pdf',
      size_bytes: 1000,
    });
    expect(brochure.status).toBe(422);
    expect(Object.keys(brochure.body.error.details.fields)).toEqual(['body.file_name']);

    const plan = await api.admin('POST', `${project}/payment-plans`, {
      name: 'Plan',
      milestones: [{ label: 'On\nbooking', percent: 100, due: null }],
    });
    expect(plan.status).toBe(422);
    expect(Object.keys(plan.body.error.details.fields)).toEqual(['body.milestones.0.label']);
  });

  it('when /v1 free-text search q holds a control or a bidi override, then 422 names query.q', async () => {
    for (const q of ['marina\u0000', 'marina\u202e', 'line\nbreak']) {
      const answer = await api.get(`/projects?q=${encodeURIComponent(q)}`, key);
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.error.details.fields)).toEqual(['query.q']);
    }
    expect((await api.get(`/projects?q=${encodeURIComponent('مرسى marina')}`, key)).status).toBe(200);
  });
});
