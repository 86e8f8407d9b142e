import { z } from 'zod';
import * as approveAgentProfile from '../../../commands/agentProfiles/approveAgentProfile.js';
import * as createAgentProfile from '../../../commands/agentProfiles/createAgentProfile.js';
import * as deleteAgentProfile from '../../../commands/agentProfiles/deleteAgentProfile.js';
import * as rejectAgentProfile from '../../../commands/agentProfiles/rejectAgentProfile.js';
import * as replaceAgentProfilePicture from '../../../commands/agentProfiles/replaceAgentProfilePicture.js';
import * as reviseAgentProfile from '../../../commands/agentProfiles/reviseAgentProfile.js';
import * as submitAgentProfile from '../../../commands/agentProfiles/submitAgentProfile.js';
import { ADMIN_CLIENTS } from '../../../projections/adminAccess.js';
import { AGENT_PROFILES, type AgentProfileDoc } from '../../../projections/agentProfiles.js';
import { noAccessFacts, readAccessFacts, type AccessFacts, type AccessLookup, type AccessSlice } from '../../access/accessReferences.js';
import {
  AGENT_PROFILE_STATUSES,
  agentProfileAggregate,
  type AgentProfile,
  type AgentProfileEvent,
  type AgentProfileStatus,
} from '../../access/agentProfile.js';
import { eventStoreCatalogueReferences } from '../../catalogue/catalogueReferences.js';
import { imageRefSchema } from '../../catalogue/imageRef.js';
import { createWithSlice, updateWithSlice, type FactsReader } from '../../domain/commandSlice.js';
import { NotFound } from '../../domain/errors.js';
import type { Filter } from '../../readStore/readStore.js';
import type { UploadField } from '../../uploads/uploadKinds.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { accessReferences } from '../accessFacts.js';
import { qParameter } from '../listParameters.js';
import { adminList, idParameter, type ListSelection } from './adminLists.js';
import { clientParams, idSchema, pathId, revisionSchema, timestampSchema } from './adminSchemas.js';

const TAG = 'Agent profiles';

const LIFECYCLE =
  'draft → submitted → approved or rejected. Only approved profiles are listed to the client (GET /v1/agent-profiles) and usable on its brochures. ' +
  'An edit that changes an approved profile (a field or the picture) sends it back to submitted, out of the list until approved again; ' +
  'a rejected profile is edited and submitted again; an approved one can be rejected (its approval withdrawn). A deleted profile is gone (404).';

const agentProfileResponseSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    client_id: idSchema.meta({ description: 'The client whose brochures may show the profile.' }),
    agent_name: z.string(),
    company_name: z.string(),
    email: z.string(),
    phone: z.string(),
    whatsapp: z.string().nullable(),
    picture: imageRefSchema.nullable().meta({ description: 'The portrait; its addresses are `/v1/media/agent-profile-{id}/{key}...`.' }),
    status: z.enum(AGENT_PROFILE_STATUSES).meta({ description: LIFECYCLE }),
    rejection_reason: z.string().nullable().meta({ description: 'Why it was last rejected; null once approved.' }),
    deleted: z.boolean().meta({ description: 'true only in the answer to the DELETE.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'AdminAgentProfile', description: "The contact a client's project brochures print on their agent page." });

type Representation = z.input<typeof agentProfileResponseSchema>;

function representation(id: number, revision: number, profile: AgentProfile | null): AdminRouteResult {
  if (!profile) throw new NotFound();
  const data: Representation = { id, revision, ...profile };
  return { data, revision };
}

/** The read model's document without its bookkeeping fields. */
function fromReadModel(doc: AgentProfileDoc): Representation {
  const { _id, _position, _search, ...profile } = doc;
  return profile;
}

/**
 * The access references, with the blob store's answers about stored files: a profile names its client and
 * its picture.
 */
function agentProfileFacts(deps: AdminDeps): FactsReader<AccessLookup, AccessFacts> {
  const port = { ...accessReferences(deps), catalogue: eventStoreCatalogueReferences(deps.eventStore, deps.storedFiles) };
  return { read: (lookup) => readAccessFacts(port, lookup), none: noAccessFacts };
}

const picture: readonly UploadField[] = [{ field: 'picture', kind: 'image' }];
const profileParams = z.object({ agentProfileId: pathId }).strict();

/** If-Match names the client's revision: the profile is made for the client as the caller read it. */
const createAgentProfileRoute: AdminRoute<typeof clientParams, typeof createAgentProfile.createAgentProfileSchema> = {
  method: 'post',
  path: '/clients/:clientId/agent-profiles',
  operationId: 'createAgentProfile',
  summary: 'Create an agent profile for a client, as a draft (JSON, or multipart with the portrait as a `picture` part)',
  tag: TAG,
  params: clientParams,
  body: createAgentProfile.createAgentProfileSchema,
  uploads: picture,
  successStatus: 201,
  response: agentProfileResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await createWithSlice(deps, agentProfileFacts(deps), {
      aggregate: agentProfileAggregate,
      actor,
      command: {
        ...body,
        client_id: params.clientId,
        ...(expectedRevision === undefined ? {} : { expected_client_revision: expectedRevision }),
      },
      slice: createAgentProfile,
    });
    return representation(result.id, result.revision, result.state);
  },
};

const agentProfileFilters = {
  q: qParameter.meta({
    description: 'Free text on one line, matched case-insensitively against agent and company names and e-mail addresses.',
  }),
  status: z
    .enum(AGENT_PROFILE_STATUSES, { error: `must be one of ${AGENT_PROFILE_STATUSES.join(', ')}` })
    .meta({ description: 'Only profiles in this status (e.g. submitted: those waiting for review).' })
    .optional(),
};

function profileSelection(query: { q?: string | undefined; status?: AgentProfileStatus | undefined }, filter: Filter): ListSelection {
  if (query.status !== undefined) filter.status = query.status;
  return { filter: { ...filter, deleted: false }, ...(query.q ? { text: query.q } : {}) };
}

const listClientAgentProfilesRoute = adminList({
  path: '/clients/:clientId/agent-profiles',
  operationId: 'listClientAgentProfiles',
  summary:
    "A client's agent profiles in every status but deleted, filtered, sorted and paginated (from the read model: a write shows once projected)",
  tag: TAG,
  params: clientParams,
  filters: agentProfileFilters,
  sortFields: ['id', 'agent_name', 'updated_at'],
  defaultSort: 'id',
  collection: AGENT_PROFILES,
  item: agentProfileResponseSchema,
  async select(query, params, readStore) {
    if (!(await readStore.get(ADMIN_CLIENTS, params.clientId))) throw new NotFound(`Client ${params.clientId} does not exist.`);
    return profileSelection(query, { client_id: params.clientId });
  },
  represent: (docs: AgentProfileDoc[]) => docs.map(fromReadModel),
});

const listAgentProfilesRoute = adminList({
  path: '/agent-profiles',
  operationId: 'listAgentProfiles',
  summary:
    "Every client's agent profiles in every status but deleted, filtered, sorted and paginated (from the read model: a write shows once projected)",
  tag: TAG,
  filters: { ...agentProfileFilters, client_id: idParameter("Only this client's profiles.") },
  sortFields: ['id', 'agent_name', 'updated_at'],
  defaultSort: 'id',
  collection: AGENT_PROFILES,
  item: agentProfileResponseSchema,
  select: (query) => profileSelection(query, query.client_id === undefined ? {} : { client_id: query.client_id }),
  represent: (docs: AgentProfileDoc[]) => docs.map(fromReadModel),
});

const getAgentProfileRoute: AdminRoute<typeof profileParams> = {
  method: 'get',
  path: '/agent-profiles/:agentProfileId',
  operationId: 'getAgentProfile',
  summary: 'Read an agent profile with its revision (from the read model: a write shows once projected)',
  tag: TAG,
  params: profileParams,
  successStatus: 200,
  response: agentProfileResponseSchema,
  async handle({ params }, deps) {
    const doc = await deps.readStore.get<AgentProfileDoc>(AGENT_PROFILES, params.agentProfileId);
    if (!doc || doc.deleted) throw new NotFound(`Agent profile ${params.agentProfileId} does not exist.`);
    return { data: fromReadModel(doc), revision: doc.revision };
  },
};

type ProfileSlice<Command> = AccessSlice<Command, AgentProfile | null, AgentProfileEvent>;

/** A command on an existing profile; one that changes nothing answers the current state and revision. */
function profileCommand<Body extends z.ZodType>(options: {
  method: 'post' | 'put' | 'patch' | 'delete';
  action?: string;
  operationId: string;
  summary: string;
  body?: Body;
  uploads?: readonly UploadField[];
  slice: ProfileSlice<z.infer<Body>>;
}): AdminRoute<typeof profileParams, Body> {
  return {
    method: options.method,
    path: `/agent-profiles/:agentProfileId${options.action ? `/${options.action}` : ''}`,
    operationId: options.operationId,
    summary: options.summary,
    tag: TAG,
    params: profileParams,
    ...(options.body ? { body: options.body } : {}),
    ...(options.uploads ? { uploads: options.uploads } : {}),
    successStatus: 200,
    response: agentProfileResponseSchema,
    async handle({ params, body, expectedRevision, actor }, deps) {
      const result = await updateWithSlice(deps, agentProfileFacts(deps), {
        aggregate: agentProfileAggregate,
        id: params.agentProfileId,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        actor,
        command: (body ?? {}) as z.infer<Body>,
        slice: options.slice,
      });
      return representation(result.id, result.revision, result.state);
    },
  };
}

/** Admin operations on agent profiles: created for a client, edited, reviewed (submitted, approved or rejected), deleted. */
export const agentProfileRoutes: AdminRoute[] = [
  createAgentProfileRoute,
  listClientAgentProfilesRoute as AdminRoute,
  listAgentProfilesRoute as AdminRoute,
  getAgentProfileRoute,
  profileCommand({
    method: 'patch',
    operationId: 'reviseAgentProfile',
    summary:
      'Revise some fields of an agent profile, the portrait too (JSON, or multipart with a `picture` part); a change to an approved profile sends it back to review',
    body: reviseAgentProfile.reviseAgentProfileSchema,
    uploads: picture,
    slice: reviseAgentProfile,
  }),
  profileCommand({
    method: 'put',
    action: 'picture',
    operationId: 'replaceAgentProfilePicture',
    summary:
      "Replace an agent profile's portrait (the image as the body, or JSON naming a stored file); a new portrait of an approved profile sends it back to review",
    body: replaceAgentProfilePicture.replaceAgentProfilePictureSchema,
    uploads: picture,
    slice: replaceAgentProfilePicture,
  }),
  profileCommand({
    method: 'post',
    action: 'submit',
    operationId: 'submitAgentProfile',
    summary: 'Submit a draft or rejected agent profile for review (no-op when already submitted)',
    slice: submitAgentProfile,
  }),
  profileCommand({
    method: 'post',
    action: 'approve',
    operationId: 'approveAgentProfile',
    summary: "Approve a submitted agent profile: it is listed to its client's keys (no-op when already approved)",
    slice: approveAgentProfile,
  }),
  profileCommand({
    method: 'post',
    action: 'reject',
    operationId: 'rejectAgentProfile',
    summary: 'Reject a submitted agent profile, or withdraw the approval of an approved one, with the reason',
    body: rejectAgentProfile.rejectAgentProfileSchema,
    slice: rejectAgentProfile,
  }),
  profileCommand({
    method: 'delete',
    operationId: 'deleteAgentProfile',
    summary:
      'Delete an agent profile in any status: it leaves every list, its portrait addresses answer 404, and it takes no further commands',
    slice: deleteAgentProfile,
  }),
];
