import { z } from 'zod';
import * as createEditor from '../../../commands/editors/createEditor.js';
import { issueEditorTokenTo, noEditorFacts } from '../../../commands/editors/editorHandlers.js';
import { issueEditorTokenSchema } from '../../../commands/editors/issueEditorToken.js';
import * as reviseEditor from '../../../commands/editors/reviseEditor.js';
import * as revokeEditorToken from '../../../commands/editors/revokeEditorToken.js';
import { ADMIN_EDITORS, type AdminEditorDoc } from '../../../projections/editors.js';
import { EDITOR_ROLES, editorAggregate, type Editor, type EditorRole, type EditorToken } from '../../access/editor.js';
import { loadAggregate } from '../../domain/commandHandler.js';
import { createWithSlice, updateWithSlice } from '../../domain/commandSlice.js';
import { NotFound } from '../../domain/errors.js';
import type { Filter } from '../../readStore/readStore.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { qParameter } from '../listParameters.js';
import { adminList, booleanParameter, withoutStoreFields } from './adminLists.js';
import { idSchema, noParams, pathId, refuseRevisionOfNewResource, revisionSchema, timestampSchema } from './adminSchemas.js';

const TAG = 'Editors';

const editorTokenSchema = z
  .object({
    token_id: idSchema,
    hint: z.string().meta({ description: 'The prefix and 4 characters of the token (`edt_AbCd…`), to tell tokens apart.' }),
    issued_at: timestampSchema,
    expires_at: timestampSchema.nullable().meta({ description: 'When it stops working; null = never.' }),
    revoked_at: timestampSchema.nullable(),
  })
  .meta({ id: 'AdminEditorToken', description: 'A token of an editor account: never the token itself, nor its hash.' });

const editorResponseSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    name: z.string(),
    role: createEditor.editorRoleSchema,
    active: z.boolean().meta({ description: 'false: deactivated (its tokens were revoked with it).' }),
    tokens: z.array(editorTokenSchema).meta({ description: 'By id, revoked ones too.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'AdminEditor', description: 'A named account of the admin API, with its role and tokens.' });

const issuedTokenSchema = editorTokenSchema
  .extend({
    editor_id: idSchema,
    token: z.string().meta({
      description:
        'The token itself (`edt_` and 43 characters): shown in this answer only, never again (only its hash is kept). Send it as `Authorization: Bearer <token>`.',
    }),
  })
  .meta({ id: 'AdminEditorTokenIssued' });

const revokedTokenSchema = editorTokenSchema.extend({ editor_id: idSchema }).meta({ id: 'AdminEditorTokenRevoked' });

function representation(id: number, revision: number, editor: Editor | null): AdminRouteResult {
  if (!editor) throw new NotFound(`Editor ${id} does not exist.`);
  const data: z.input<typeof editorResponseSchema> = { id, revision, ...editor };
  return { data, revision };
}

function tokenOf(editor: Editor | null, tokenId: number): EditorToken {
  const token = editor?.tokens.find((candidate) => candidate.token_id === tokenId);
  if (!token) throw new Error(`Token ${tokenId} is not on the account that was just changed.`);
  return token;
}

const editorParams = z.object({ editorId: pathId }).strict();
const tokenParams = z.object({ editorId: pathId, tokenId: pathId }).strict();

const createEditorRoute: AdminRoute<typeof noParams, typeof createEditor.createEditorSchema> = {
  method: 'post',
  path: '/editors',
  operationId: 'createEditor',
  summary: 'Create an editor account with a role (its id is allocated by the service); it works once it is issued a token',
  tag: TAG,
  params: noParams,
  body: createEditor.createEditorSchema,
  successStatus: 201,
  response: editorResponseSchema,
  async handle({ body, actor, expectedRevision }, deps) {
    refuseRevisionOfNewResource(expectedRevision);
    const result = await createWithSlice(deps, noEditorFacts, { aggregate: editorAggregate, actor, command: body, slice: createEditor });
    return representation(result.id, result.revision, result.state);
  },
};

const listEditorsRoute = adminList({
  path: '/editors',
  operationId: 'listEditors',
  summary: 'The editor accounts, filtered, sorted and paginated (from the read model: a write shows once projected)',
  tag: TAG,
  filters: {
    q: qParameter.meta({ description: 'Free text on one line, matched case-insensitively against names.' }),
    role: z
      .enum(EDITOR_ROLES, { error: `must be one of ${EDITOR_ROLES.join(', ')}` })
      .meta({ description: 'Only accounts with this role.' })
      .optional(),
    active: booleanParameter('Only active (true) or deactivated (false) accounts; both unless given.'),
  },
  sortFields: ['id', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_EDITORS,
  item: editorResponseSchema,
  select(query: { q?: string | undefined; role?: EditorRole | undefined; active?: boolean | undefined }) {
    const filter: Filter = {};
    if (query.role !== undefined) filter.role = query.role;
    if (query.active !== undefined) filter.active = query.active;
    return { filter, ...(query.q ? { text: query.q } : {}) };
  },
  represent: (docs: AdminEditorDoc[]) => docs.map(withoutStoreFields),
});

const getEditorRoute: AdminRoute<typeof editorParams> = {
  method: 'get',
  path: '/editors/:editorId',
  operationId: 'getEditor',
  summary: 'Read an editor account with its revision and tokens (never a token or its hash)',
  tag: TAG,
  params: editorParams,
  successStatus: 200,
  response: editorResponseSchema,
  async handle({ params }, deps) {
    const loaded = await loadAggregate(deps.eventStore, editorAggregate, params.editorId);
    if (!loaded) throw new NotFound(`Editor ${params.editorId} does not exist.`);
    return representation(params.editorId, loaded.revision, loaded.state);
  },
};

const reviseEditorRoute: AdminRoute<typeof editorParams, typeof reviseEditor.reviseEditorSchema> = {
  method: 'patch',
  path: '/editors/:editorId',
  operationId: 'reviseEditor',
  summary:
    'Rename an editor account, change its role, or deactivate it (revoking its tokens) or reactivate it; a new role holds from its next request',
  tag: TAG,
  params: editorParams,
  body: reviseEditor.reviseEditorSchema,
  successStatus: 200,
  response: editorResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, noEditorFacts, {
      aggregate: editorAggregate,
      id: params.editorId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: body,
      slice: reviseEditor,
    });
    return representation(result.id, result.revision, result.state);
  },
};

const issueEditorTokenRoute: AdminRoute<typeof editorParams, typeof issueEditorTokenSchema> = {
  method: 'post',
  path: '/editors/:editorId/tokens',
  operationId: 'issueEditorToken',
  summary:
    "Issue a token to an active editor account, optionally expiring; the token is in this answer only (If-Match: the account's revision)",
  tag: TAG,
  params: editorParams,
  body: issueEditorTokenSchema,
  successStatus: 201,
  response: issuedTokenSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const issued = await issueEditorTokenTo(deps, {
      ...body,
      editorId: params.editorId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
    });
    const data: z.input<typeof issuedTokenSchema> = {
      ...tokenOf(issued.result.state, issued.tokenId),
      editor_id: params.editorId,
      token: issued.token,
    };
    return { data, revision: issued.result.revision };
  },
};

const revokeEditorTokenRoute: AdminRoute<typeof tokenParams> = {
  method: 'delete',
  path: '/editors/:editorId/tokens/:tokenId',
  operationId: 'revokeEditorToken',
  summary: "Revoke an editor account's token: refused from the account's next request on (If-Match: the account's revision)",
  tag: TAG,
  params: tokenParams,
  successStatus: 200,
  response: revokedTokenSchema,
  async handle({ params, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, noEditorFacts, {
      aggregate: editorAggregate,
      id: params.editorId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: { token_id: params.tokenId },
      slice: revokeEditorToken,
    });
    const data: z.input<typeof revokedTokenSchema> = { ...tokenOf(result.state, params.tokenId), editor_id: params.editorId };
    return { data, revision: result.revision };
  },
};

/** Admin operations on the editor accounts: only the role admin may run them (src/http/adminRoutes/editorRoles.ts). */
export const editorRoutes: AdminRoute[] = [
  createEditorRoute,
  listEditorsRoute as AdminRoute,
  getEditorRoute,
  reviseEditorRoute,
  issueEditorTokenRoute,
  revokeEditorTokenRoute,
];
