import { z } from 'zod';
import { AGENT_PROFILES, type AgentProfileDoc } from '../projections/agentProfiles.js';
import { agentProfileMediaId } from '../projections/mediaAddresses.js';
import { AccessRefused } from '../src/access/accessRefusals.js';
import {
  DEFAULT_PER_PAGE,
  pageParameter,
  pagination,
  paginationSchema,
  perPageParameter,
  qParameter,
  sortParameter,
  sortSpec,
} from './queryParameters.js';
import type { QueryRoute } from './queryRoute.js';
import { imageAddresses } from './representations.js';

const DEFAULT_SORT = 'agent_name';
const SORT_FIELDS = ['agent_name', 'company_name', 'updated_at'] as const;

export const agentProfileSchema = z
  .object({
    id: z.number().int().meta({ description: 'Send it as `agent_profile_id` to put the agent page on a project brochure.' }),
    agent_name: z.string(),
    company_name: z.string(),
    email: z.string(),
    phone: z.string().meta({ description: 'International format, as the agency wrote it (e.g. `+971 50 123 4567`).' }),
    whatsapp: z.string().nullable().meta({ description: 'Same format; null when the agent gives none.' }),
    image_url: z.string().nullable().meta({
      description:
        "The agent's portrait, 800 px wide WebP (`{base_url}/media/agent-profile-{id}/{key}-800.webp`; the other widths and the original are at the same address with their suffix); null when the profile has no portrait.",
    }),
  })
  .meta({ id: 'AgentProfile', description: "An approved agent profile of the caller's account." });

type AgentProfile = z.infer<typeof agentProfileSchema>;

function agentProfileRepresentation(profile: AgentProfileDoc, baseUrl: string): AgentProfile {
  return {
    id: profile.id,
    agent_name: profile.agent_name,
    company_name: profile.company_name,
    email: profile.email,
    phone: profile.phone,
    whatsapp: profile.whatsapp,
    image_url: profile.picture ? imageAddresses(baseUrl, agentProfileMediaId(profile.id), profile.picture).url_800 : null,
  };
}

const noParams = z.object({}).strict();
const agentProfilesQuery = z
  .object({
    q: qParameter.meta({
      description: 'Free text on one line, matched case-insensitively against agent name, company name and e-mail address.',
    }),
    sort: sortParameter(SORT_FIELDS, DEFAULT_SORT),
    page: pageParameter,
    per_page: perPageParameter,
  })
  .strict();

const listAgentProfiles: QueryRoute<typeof noParams, typeof agentProfilesQuery> = {
  path: '/agent-profiles',
  operationId: 'listAgentProfiles',
  summary: "List the account's approved agent profiles",
  description:
    "Only profiles of the caller's own account that staff approved: a profile being edited goes back to review and leaves the list until approved again. " +
    'In Evaluation Mode the answer is 403 EVALUATION_PREVIEW_ONLY: profiles serve only the PDF brochures, which are refused there too.',
  tag: 'Project PDF generation',
  scopes: ['project-pdf:generate'],
  entitlements: ['project_pdf'],
  params: noParams,
  query: agentProfilesQuery,
  response: z.array(agentProfileSchema),
  meta: z.object({ pagination: paginationSchema }),
  errors: ['evaluationPreviewOnly'],
  async handle({ query, access, baseUrl }, { readStore }) {
    if (access.evaluation) throw new AccessRefused('EVALUATION_PREVIEW_ONLY');
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const found = await readStore.find<AgentProfileDoc>(AGENT_PROFILES, {
      filter: { client_id: access.clientId, status: 'approved', deleted: false },
      ...(query.q ? { text: query.q } : {}),
      sort: sortSpec(query.sort ?? DEFAULT_SORT),
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    return {
      data: found.items.map((profile) => agentProfileRepresentation(profile, baseUrl)),
      meta: { pagination: pagination(page, perPage, found.total) },
    };
  },
};

export const agentProfileQueryRoutes = [listAgentProfiles] as QueryRoute[];
