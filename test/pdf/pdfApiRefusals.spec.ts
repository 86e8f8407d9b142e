import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVALUATION_SAMPLE_MIN } from '../../commands/clients/startEvaluation.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';

/** The renderer port as a double that counts renders. */
const renderer = {
  requests: [] as BrochureRequest[],
  async render(request: BrochureRequest) {
    renderer.requests.push(request);
    return { pdf: Buffer.from('%PDF-1.7\n%%EOF\n'), pages: 1, mapDrawn: false };
  },
};

describe('brochure PDF refusals over HTTP', () => {
  let api: ApiFixture;
  let own: IssuedKey;
  let other: IssuedKey;

  const post = (key: string, body?: unknown, path = '/projects/1/pdf') =>
    api.get(path, key, { method: 'POST', ...(body === undefined ? {} : { body }) });

  /** A profile of the client through the admin API, taken through the given review steps. */
  async function agentProfile(clientId: number, agentName: string, steps: readonly string[]): Promise<number> {
    const created = await api.admin('POST', `/clients/${clientId}/agent-profiles`, {
      agent_name: agentName,
      company_name: `Agency ${clientId}`,
      email: `${agentName.toLowerCase().replace(/\W+/g, '.')}@agency.example`,
      phone: '+971 50 123 4567',
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    for (const step of steps) {
      const answer =
        step === 'delete'
          ? await api.admin('DELETE', `/agent-profiles/${id}`)
          : await api.admin('POST', `/agent-profiles/${id}/${step}`, step === 'reject' ? { reason: 'Wrong number' } : undefined);
      expect(answer.status, `${step} of ${agentName}`).toBe(200);
    }
    await api.settle();
    return id;
  }

  // Evaluation Mode samples at least EVALUATION_SAMPLE_MIN published projects.
  beforeAll(async () => {
    api = await startApiFixture({ env: { PDF_RENDER_TIMEOUT_MS: '5000' }, brochureRenderer: renderer });
    const projects: StreamEvent[] = Array.from({ length: EVALUATION_SAMPLE_MIN }, (_, index) => [
      projectCreated(index + 1, {}, minute(index)),
      projectEvent('ProjectPublished', index + 1, {}, minute(index)),
    ]).flat();
    await api.given([...publishedReferenceCatalogue(), ...projects]);
    own = await api.issue();
    other = await api.issue();
  });
  afterAll(() => api?.close());

  it('when the account is in Evaluation Mode, then POST /pdf and GET /pdf-templates are 403 EVALUATION_PREVIEW_ONLY and nothing is rendered', async () => {
    const evaluating = await api.issue();
    const testKey = (await api.admin('POST', `/clients/${evaluating.clientId}/keys`, { environment: 'test' })).body.data.key as string;
    expect((await api.admin('POST', `/clients/${evaluating.clientId}/evaluation`, {})).status).toBe(200);
    await api.settle();
    const renders = renderer.requests.length;
    for (const answer of [await post(testKey, { template: 'classic' }), await api.get('/pdf-templates', testKey)]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('EVALUATION_PREVIEW_ONLY');
    }
    expect(renderer.requests.length).toBe(renders);
  });

  it('when agent_profile_id is another client’s, not approved, deleted or unknown, then 422 names the id and the reason', async () => {
    const othersProfile = await agentProfile(other.clientId, 'Other Agent', ['submit', 'approve']);
    const draft = await agentProfile(own.clientId, 'Dana Draft', []);
    const submitted = await agentProfile(own.clientId, 'Sami Submitted', ['submit']);
    const rejected = await agentProfile(own.clientId, 'Rana Rejected', ['submit', 'reject']);
    const deleted = await agentProfile(own.clientId, 'Adel Deleted', ['submit', 'approve', 'delete']);
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      [
        'body',
        { agent_profile_id: othersProfile },
        'body.agent_profile_id',
        `Agent profile ${othersProfile} is not one of the caller's agent profiles.`,
      ],
      ['body', { agent_profile_id: draft }, 'body.agent_profile_id', `Agent profile ${draft} is not approved (it is draft).`],
      ['body', { agent_profile_id: submitted }, 'body.agent_profile_id', `Agent profile ${submitted} is not approved (it is submitted).`],
      ['body', { agent_profile_id: rejected }, 'body.agent_profile_id', `Agent profile ${rejected} is not approved (it is rejected).`],
      ['body', { agent_profile_id: deleted }, 'body.agent_profile_id', `Agent profile ${deleted} does not exist.`],
      ['body', { agent_profile_id: 987_654 }, 'body.agent_profile_id', 'Agent profile 987654 does not exist.'],
      ['query', {}, 'body.agent_profile_id', 'Agent profile 987654 does not exist.'],
    ];
    const renders = renderer.requests.length;
    for (const [where, body, field, message] of cases) {
      const answer = where === 'query' ? await post(own.key, body, '/projects/1/pdf?agent_profile_id=987654') : await post(own.key, body);
      expect(answer.status, message).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message, details: { fields: { [field]: message } } });
    }
    expect(renderer.requests.length).toBe(renders);
    const approved = await agentProfile(own.clientId, 'Yasmin Saleh', ['submit', 'approve']);
    const accepted = await post(own.key, undefined, `/projects/1/pdf?agent_profile_id=${approved}`);
    expect(accepted.status).toBe(200);
    expect(renderer.requests.at(-1)).toMatchObject({ agentProfileId: approved, clientId: own.clientId });
  });

  it('when the template is not one the plan enables, then 422 names it and lists the usable designs', async () => {
    const narrow = await api.issue();
    const plan = (await api.admin('GET', `/clients/${narrow.clientId}`)).body.data.plan_id;
    expect(
      (await api.admin('PATCH', `/plans/${plan}`, { pdf_templates: ['editorial', 'minimal'], pdf_default_template: 'minimal' })).status,
    ).toBe(200);
    await api.settle();
    for (const template of ['classic', 'Bold', 'art-deco']) {
      const refused = await post(narrow.key, { template });
      expect(refused.status).toBe(422);
      const message = `Template "${template}" is not enabled for this account; usable designs: editorial, minimal.`;
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message, details: { fields: { 'body.template': message } } });
    }
    const byName = await post(narrow.key, { template: 'EDITORIAL' });
    expect(byName.body.data.template).toBe('editorial');
    expect((await post(narrow.key, {})).body.data.template).toBe('minimal');
  });
});
