import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AGENT_PROFILES, type AgentProfileDoc } from '../projections/agentProfiles.js';
import { PROJECT_RESOURCES, type ProjectResourcesDoc } from '../projections/projectResources.js';
import { PROJECTS, type ProjectDoc } from '../projections/projects.js';
import type { AccessContext, Entitlement, Scope } from '../src/access/accessContext.js';
import { AccessRefused } from '../src/access/accessRefusals.js';
import type { BlobStore } from '../src/blobStore/blobStore.js';
import { assertNever } from '../src/domain/decider.js';
import { ApiError, NotFound, ValidationFailed } from '../src/domain/errors.js';
import { accessOf, requireGrants } from '../src/http/apiAuth.js';
import { createHostGuard, type HostGuard } from '../src/http/hostGuard.js';
import { ApiErrorWithHeaders } from '../src/http/httpErrors.js';
import { consumeRequestLimits } from '../src/http/limitResponses.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { jsonBodyOf } from '../src/http/rawBody.js';
import { sendData } from '../src/http/responses.js';
import type { LinkSigner } from '../src/http/signedLinks.js';
import { issuesToFields } from '../src/http/validation.js';
import type { JobQueue } from '../src/jobQueue/jobQueue.js';
import type { Limits } from '../src/limits/limits.js';
import { idempotencyKeySchema, IdempotencyKeyInUse, IdempotencyKeyReused, type IdempotencyStore } from '../src/pdf/idempotencyStore.js';
import type { PdfConsumeResult, PdfLimiter, PdfQuotaState } from '../src/pdf/pdfLimits.js';
import {
  brochureFingerprint,
  PDF_CURRENCIES,
  PDF_SECTIONS,
  pdfRequestBodySchema,
  pdfRequestQuerySchema,
  templateNamed,
  type BrochureRequest,
  type PdfRequestBody,
  type PdfTemplate,
} from '../src/pdf/pdfOptions.js';
import {
  PDF_RENDER_FAILURES,
  PDF_RENDERS,
  pdfFileName,
  pdfRenderJobId,
  type PdfRenderDoc,
  type PdfRenderFailureDoc,
  type PdfRenderJobData,
} from '../src/pdf/pdfRenders.js';
import type { PdfRenderNotices } from '../src/pdf/pdfRenderNotices.js';
import type { EffectivePdfSettings } from '../src/pdf/pdfSettings.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { catalogueScopeOf, projectInScope } from './catalogueScope.js';
import { storedDocumentPath } from './documentLinks.js';
import { pdfSettingsOf } from './pdfTemplates.js';
import { getPublished } from './queryParameters.js';

/*
 * POST /v1/projects/{project}/pdf (contract: Project PDF generation). The API checks the request, answers
 * from the brochure cache when the fingerprint has a PDF, and otherwise spends one unit of the client's PDF
 * limits and hands the render to the worker role through the 'pdf-renders' queue (job id from the
 * fingerprint, so concurrent requests of one brochure render it once), then waits for the worker's record.
 * It lives in queries/ because it reads the read models only; it writes no event.
 */

export const PDF_SCOPES: readonly Scope[] = ['project-pdf:generate'];
export const PDF_ENTITLEMENTS: readonly Entitlement[] = ['project_pdf'];

export interface ProjectPdfDeps {
  readStore: ReadStore;
  blobs: BlobStore;
  linkSigner: LinkSigner;
  clock: () => Date;
  /** The ordinary request limits (a PDF request is an API request too); null with RATE_LIMITS=off. */
  limits: Limits | null;
  /** The PDF generation limits; null with RATE_LIMITS=off. */
  pdfLimits: PdfLimiter | null;
  queue: Pick<JobQueue, 'add'>;
  /** How long a request waits for the worker's result (PDF_RENDER_TIMEOUT_MS and a few seconds for the hand-off). */
  waitTimeoutMs: number;
  /** How many AED one unit of each currency is worth (src/pdf/currencyRates.ts). */
  currencyRates: () => Promise<Readonly<Record<string, number>>>;
  /** Idempotency-Key: what each of a client's keys answered (24 h). */
  idempotency: IdempotencyStore<IdempotentPdfAnswer>;
  publicBaseUrl?: string;
  /** Word from the worker that an outcome is stored, so the wait ends at once rather than on the next poll. */
  renderNotices: PdfRenderNotices;
  /** How often the worker's result is looked for when no notice comes; 100 ms by default. */
  pollIntervalMs?: number;
}

export class RenderTimeout extends ApiError {
  constructor(message = 'The brochure was not rendered in time; try again in a moment.') {
    super(504, 'RENDER_TIMEOUT', message);
  }
}

export class RendererUnavailable extends ApiError {
  constructor(message = 'The brochure renderer is not available; try again in a moment.') {
    super(503, 'RENDERER_UNAVAILABLE', message);
  }
}

const PDF_LIMIT_MESSAGES: Record<Extract<PdfConsumeResult, { allowed: false }>['code'], string> = {
  PER_MINUTE_LIMIT_EXCEEDED:
    'The per-minute PDF generation limit is reached; cached brochures are still served. Retry after the time given.',
  DAILY_LIMIT_EXCEEDED: 'The daily PDF generation limit is used up; it resets at midnight Asia/Dhaka.',
  MONTHLY_LIMIT_EXCEEDED: 'The monthly PDF generation limit is used up; it resets on the 1st at midnight Asia/Dhaka.',
};

const pdfQuota = ({ limit, used, remaining }: PdfQuotaState) => ({ limit, used, remaining });

/** 429 of the PDF limits: the contract's limit codes, `details.limit: 'pdf'` telling them from the request limits. */
export class PdfLimitExceeded extends ApiErrorWithHeaders {
  override readonly envelope = { success: false };

  constructor(outcome: Extract<PdfConsumeResult, { allowed: false }>) {
    super(
      429,
      outcome.code,
      PDF_LIMIT_MESSAGES[outcome.code],
      {
        limit: 'pdf',
        reset_at: outcome.resetAt.toISOString(),
        retry_after_seconds: outcome.retryAfterSeconds,
        minute: pdfQuota(outcome.minute),
        daily: pdfQuota(outcome.daily),
        monthly: pdfQuota(outcome.monthly),
      },
      { 'Retry-After': String(outcome.retryAfterSeconds) },
    );
  }
}

const unixSeconds = (at: Date) => String(Math.floor(at.getTime() / 1000));

/** X-Pdf-Quota-{Minute,Daily,Monthly}-{Limit,Remaining,Reset} on every response that spent (or was refused) a PDF unit. */
export function setPdfLimitHeaders(res: Response, outcome: PdfConsumeResult): void {
  for (const [name, quota] of [
    ['Minute', outcome.minute],
    ['Daily', outcome.daily],
    ['Monthly', outcome.monthly],
  ] as const) {
    res.setHeader(`X-Pdf-Quota-${name}-Limit`, String(quota.limit));
    res.setHeader(`X-Pdf-Quota-${name}-Remaining`, String(quota.remaining));
    res.setHeader(`X-Pdf-Quota-${name}-Reset`, unixSeconds(quota.resetAt));
  }
}

export const pdfResultSchema = z
  .object({
    download_url: z.string().meta({ description: 'Short-lived signed link to the PDF (Signed document links); public, no key needed.' }),
    cached: z.boolean().meta({ description: 'true: an earlier PDF of the same fingerprint was reused (no PDF unit spent).' }),
    idempotent_replay: z
      .boolean()
      .meta({ description: 'true: the answer of an earlier request with the same Idempotency-Key, with a fresh link.' }),
    expires_at: z.string().meta({ description: 'When download_url stops working.' }),
    fingerprint: z.string().meta({ description: 'sha256 (hex) of what the brochure is made of; equal requests have equal fingerprints.' }),
    pages: z.number().int(),
    bytes: z.number().int(),
    template: z.string().meta({ description: 'The design used (its key).' }),
    language: z.string(),
  })
  .meta({ id: 'PdfGenerationResult', description: 'A generated (or reused) project brochure.' });

export type PdfResult = z.infer<typeof pdfResultSchema>;

/** A checked request: what the renderer gets and what identifies the brochure. */
interface PreparedBrochure {
  fingerprint: string;
  request: BrochureRequest;
  fileName: string;
}

/** What an earlier request with the same Idempotency-Key answered, less its link (a replay gets a fresh one). */
export interface IdempotentPdfAnswer {
  fingerprint: string;
  blob_key: string;
  file_name: string;
  pages: number;
  bytes: number;
  cached: boolean;
  template: string;
  language: string;
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
const IDEMPOTENCY_KEY_FIELD = `header.${IDEMPOTENCY_KEY_HEADER}`;

interface ParsedInput {
  body: PdfRequestBody;
  idempotencyKey: string | null;
}

function parseInput(received: unknown, req: Request): ParsedInput {
  const body = pdfRequestBodySchema.safeParse(received ?? {});
  const query = pdfRequestQuerySchema.safeParse({ ...req.query });
  const idempotencyKey = idempotencyKeySchema.safeParse(req.get(IDEMPOTENCY_KEY_HEADER));
  const fields: Record<string, string> = {};
  if (!body.success) issuesToFields('body', body.error.issues, fields);
  if (!query.success) issuesToFields('query', query.error.issues, fields);
  if (!idempotencyKey.success) fields[IDEMPOTENCY_KEY_FIELD] = idempotencyKey.error.issues[0]!.message;
  if (!body.success || !query.success || !idempotencyKey.success) throw new ValidationFailed(fields);
  const fromQuery = query.data.agent_profile_id;
  const fromBody = body.data.agent_profile_id;
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw new ValidationFailed({ 'query.agent_profile_id': `differs from body.agent_profile_id (${fromQuery} and ${fromBody})` });
  }
  const agentProfileId = fromBody ?? fromQuery;
  return {
    body: { ...body.data, ...(agentProfileId === undefined ? {} : { agent_profile_id: agentProfileId }) },
    idempotencyKey: idempotencyKey.data ?? null,
  };
}

function chosenTemplate(requested: string | undefined, settings: EffectivePdfSettings): PdfTemplate {
  if (requested === undefined) return settings.default_template;
  const template = templateNamed(requested);
  if (template !== null && settings.templates.includes(template)) return template;
  const message = `Template "${requested}" is not enabled for this account; usable designs: ${settings.templates.join(', ')}.`;
  throw new ValidationFailed({ 'body.template': message }, message);
}

async function agentProfileRevision(readStore: ReadStore, id: number, access: AccessContext): Promise<number> {
  const profile = await readStore.get<AgentProfileDoc>(AGENT_PROFILES, id);
  const reason =
    !profile || profile.deleted
      ? 'does not exist'
      : profile.client_id !== access.clientId
        ? "is not one of the caller's agent profiles"
        : profile.status !== 'approved'
          ? `is not approved (it is ${profile.status})`
          : null;
  if (reason === null) return profile!.revision;
  const message = `Agent profile ${id} ${reason}.`;
  throw new ValidationFailed({ 'body.agent_profile_id': message }, message);
}

/** Rates are kept to 6 significant digits, so that a fingerprint does not depend on floating-point noise. */
const roundedRate = (rate: number) => Number(rate.toPrecision(6));

async function chosenCurrency(
  requested: string | undefined,
  project: ProjectDoc,
  deps: ProjectPdfDeps,
): Promise<BrochureRequest['currency']> {
  if (requested === undefined || requested === project.currency) return { code: project.currency, rate: 1 };
  const refuse = (problem: string): never => {
    throw new ValidationFailed({ 'body.currency': problem }, `Currency ${requested}: ${problem}.`);
  };
  if (!(PDF_CURRENCIES as readonly string[]).includes(requested)) {
    refuse(`must be the project's own currency (${project.currency}) or one of ${PDF_CURRENCIES.join(', ')}`);
  }
  const rates = await deps.currencyRates();
  const projectRate = rates[project.currency];
  const wantedRate = rates[requested];
  if (projectRate === undefined) return refuse(`no rate is kept for the project's currency ${project.currency}`);
  if (wantedRate === undefined) return refuse('no rate is kept for it yet');
  return { code: requested, rate: roundedRate(projectRate / wantedRate) };
}

function chosenUnitTypes(requested: number[] | undefined, project: ProjectDoc, resources: ProjectResourcesDoc): number[] | null {
  if (requested === undefined) return null;
  const known = new Set([
    ...project.bedrooms.map(Number),
    ...resources.floor_plans.flatMap((plan) => (plan.unit_type_id === null ? [] : [plan.unit_type_id])),
  ]);
  const unknown = requested.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ValidationFailed({
      'body.unit_types': `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a unit type' : 'are not unit types'} of this project`,
    });
  }
  return requested;
}

async function prepare(
  projectParam: string,
  input: PdfRequestBody,
  access: AccessContext,
  deps: ProjectPdfDeps,
): Promise<PreparedBrochure> {
  const { readStore } = deps;
  const project = await getPublished<ProjectDoc>(readStore, PROJECTS, projectParam);
  if (!projectInScope(await catalogueScopeOf(readStore, access), project)) throw new NotFound();
  const resources = await readStore.get<ProjectResourcesDoc>(PROJECT_RESOURCES, project.id);
  if (!resources) throw new Error(`Project ${project.id} has no related-resources document.`);
  const settings = await pdfSettingsOf(readStore, access);
  const template = chosenTemplate(input.template, settings);
  const agentProfileId = input.agent_profile_id ?? null;
  const agentRevision = agentProfileId === null ? null : await agentProfileRevision(readStore, agentProfileId, access);
  const currency = await chosenCurrency(input.currency, project, deps);
  const unitTypeIds = chosenUnitTypes(input.unit_types, project, resources);
  const sections = input.sections ?? [...PDF_SECTIONS];
  const request: BrochureRequest = {
    projectId: project.id,
    clientId: access.clientId,
    template,
    language: input.language,
    currency,
    sections,
    unitTypeIds,
    agentProfileId,
    brandingPage: settings.branding_page,
  };
  const fingerprint = brochureFingerprint({
    projectId: project.id,
    projectUpdatedAt: project.updated_at,
    projectRevision: Math.max(project._position, resources._position),
    template,
    brandingPage: settings.branding_page,
    agentProfile: agentProfileId === null ? null : { id: agentProfileId, revision: agentRevision! },
    language: input.language,
    currency,
    sections,
    unitTypeIds,
  });
  return { fingerprint, request, fileName: pdfFileName(project.slug, template, input.language) };
}

/** The cached PDF of a fingerprint, when its record and its blob are both there. */
async function cachedRender(deps: ProjectPdfDeps, fingerprint: string): Promise<PdfRenderDoc | null> {
  const record = await deps.readStore.get<PdfRenderDoc>(PDF_RENDERS, fingerprint);
  if (!record) return null;
  return (await deps.blobs.stat(record.blob_key)) ? record : null;
}

const failuresOf = async (readStore: ReadStore, fingerprint: string) =>
  (await readStore.get<PdfRenderFailureDoc>(PDF_RENDER_FAILURES, fingerprint))?.failures ?? 0;

/** Queues the render (once per fingerprint and failure count) and waits for the worker's record of it. */
async function rendered(deps: ProjectPdfDeps, prepared: PreparedBrochure): Promise<PdfRenderDoc> {
  const { readStore } = deps;
  const failuresBefore = await failuresOf(readStore, prepared.fingerprint);
  const data: PdfRenderJobData = { fingerprint: prepared.fingerprint, request: prepared.request };
  try {
    await deps.queue.add([{ id: pdfRenderJobId(prepared.fingerprint, failuresBefore), data }]);
  } catch {
    throw new RendererUnavailable('The brochure could not be handed to the renderer; try again in a moment.');
  }
  const deadline = Date.now() + deps.waitTimeoutMs;
  const interval = deps.pollIntervalMs ?? 100;
  while (Date.now() < deadline) {
    await deps.renderNotices.wait(prepared.fingerprint, Math.min(interval, Math.max(0, deadline - Date.now())));
    const record = await cachedRender(deps, prepared.fingerprint);
    if (record) return record;
    const failure = await readStore.get<PdfRenderFailureDoc>(PDF_RENDER_FAILURES, prepared.fingerprint);
    if (failure && failure.failures > failuresBefore) {
      throw failure.code === 'RENDER_TIMEOUT' ? new RenderTimeout() : new RendererUnavailable();
    }
  }
  throw new RenderTimeout();
}

/**
 * Requests of this process waiting for one fingerprint: the first spends the PDF unit and queues the
 * render, the others wait for the same outcome and spend nothing (the queue's job id keeps replicas from
 * rendering it twice as well).
 */
type InFlight = Map<string, Promise<PdfRenderDoc>>;

/**
 * The brochure's stored PDF: the cached one, else a render of this process's request already waiting for it,
 * else a new render, for which one PDF unit is spent first.
 */
async function brochureOf(
  res: Response,
  access: AccessContext,
  prepared: PreparedBrochure,
  deps: ProjectPdfDeps,
  inFlight: InFlight,
): Promise<{ record: PdfRenderDoc; cached: boolean }> {
  const record = await cachedRender(deps, prepared.fingerprint);
  if (record) return { record, cached: true };
  // No await between looking for a render in flight and registering this one: concurrent requests of
  // one fingerprint find the first.
  const joined = inFlight.get(prepared.fingerprint);
  if (joined) return { record: await joined, cached: true };
  const rendering = (async () => {
    if (deps.pdfLimits !== null) {
      const outcome = await deps.pdfLimits.consume(access.clientId, (await pdfSettingsOf(deps.readStore, access)).limits);
      setPdfLimitHeaders(res, outcome);
      if (!outcome.allowed) throw new PdfLimitExceeded(outcome);
    }
    return rendered(deps, prepared);
  })();
  inFlight.set(prepared.fingerprint, rendering);
  try {
    return { record: await rendering, cached: false };
  } finally {
    inFlight.delete(prepared.fingerprint);
  }
}

/**
 * What makes two requests with one Idempotency-Key the same request: the project and the brochure asked for
 * (design, language, currency, sections, unit types, agent profile), as resolved, so `template: "Classic"`
 * and `"classic"` are the same request, but not what the catalogue holds (a project edited in between
 * does not make a retry a different request).
 */
function requestHashOf(request: BrochureRequest): string {
  const { projectId, template, language, currency, sections, unitTypeIds, agentProfileId } = request;
  return createHash('sha256')
    .update(JSON.stringify([projectId, template, language, currency.code, sections, unitTypeIds, agentProfileId]))
    .digest('hex');
}

function sendPdf(res: Response, deps: ProjectPdfDeps, baseUrl: string, answer: IdempotentPdfAnswer, replay: boolean): void {
  const link = deps.linkSigner.sign(storedDocumentPath('pdf', answer.blob_key, answer.file_name), deps.clock());
  const result: PdfResult = {
    download_url: `${baseUrl}${link.pathAndQuery}`,
    cached: answer.cached,
    idempotent_replay: replay,
    expires_at: link.expiresAt.toISOString(),
    fingerprint: answer.fingerprint,
    pages: answer.pages,
    bytes: answer.bytes,
    template: answer.template,
    language: answer.language,
  };
  res.setHeader('Cache-Control', 'no-store');
  sendData(res, result);
}

async function generate(req: Request, res: Response, deps: ProjectPdfDeps, inFlight: InFlight, baseUrl: string): Promise<void> {
  const access = accessOf(res);
  requireGrants(access, PDF_SCOPES, PDF_ENTITLEMENTS);
  if (access.evaluation) throw new AccessRefused('EVALUATION_PREVIEW_ONLY');
  const input = parseInput(await jsonBodyOf(req), req);
  const prepared = await prepare(String(req.params.project), input.body, access, deps);
  await consumeRequestLimits(res, access, deps.limits, { units: 1, chargesQuota: true });

  const produce = async (): Promise<IdempotentPdfAnswer> => {
    const { record, cached } = await brochureOf(res, access, prepared, deps, inFlight);
    return {
      fingerprint: prepared.fingerprint,
      blob_key: record.blob_key,
      file_name: prepared.fileName,
      pages: record.pages,
      bytes: record.bytes,
      cached,
      template: prepared.request.template,
      language: prepared.request.language,
    };
  };
  const key = input.idempotencyKey;
  if (key === null) return sendPdf(res, deps, baseUrl, await produce(), false);

  const reservation = await deps.idempotency.reserve(access.clientId, key, requestHashOf(prepared.request));
  switch (reservation.status) {
    case 'mismatch':
      throw new IdempotencyKeyReused();
    case 'in_flight':
      throw new IdempotencyKeyInUse();
    case 'completed':
      return sendPdf(res, deps, baseUrl, reservation.result, true);
    case 'new': {
      let answer: IdempotentPdfAnswer;
      try {
        answer = await produce();
      } catch (error) {
        // A failed request leaves the key free for its retry. Should the release fail too, the reservation
        // lapses at the end of its lease; the request's own failure is the answer either way.
        await deps.idempotency.release(access.clientId, key, reservation.token).catch(() => undefined);
        throw error;
      }
      await deps.idempotency.complete(access.clientId, key, reservation.token, answer);
      return sendPdf(res, deps, baseUrl, answer, false);
    }
    default:
      return assertNever(reservation);
  }
}

export const PROJECT_PDF_PATH = '/projects/:project/pdf';

/** POST /v1/projects/{project}/pdf; authentication is mounted in front of it. */
export function createProjectPdfRouter(deps: ProjectPdfDeps): Router {
  const router = Router();
  const baseUrlOf: HostGuard['baseUrlOf'] = deps.publicBaseUrl === undefined ? createHostGuard().baseUrlOf : () => deps.publicBaseUrl!;
  const inFlight: InFlight = new Map();
  router.post(PROJECT_PDF_PATH, async (req, res) => {
    const found = baseUrlOf(req);
    const baseUrl = typeof found === 'string' ? found : await found;
    await generate(req, res, deps, inFlight, baseUrl);
  });
  rejectOtherMethods(router, [{ method: 'post', path: PROJECT_PDF_PATH }]);
  return router;
}
