import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACCESS_REFUSALS } from '../../src/access/accessRefusals.js';
import { EDITOR_ROLES } from '../../src/access/editor.js';
import { allowedRolesOf } from '../../src/http/adminRoutes/editorRoles.js';
import { operationsOf, resolveIn } from '../support/openApiRules.js';
import { fetchServedDocuments } from '../support/servedDocuments.js';

/*
 * Each operation's 403 and 429 list exactly the codes that operation can answer with them, as both documents
 * are served: what authentication refuses any keyed request with, and what the operation itself declares
 * (its scopes, entitlements, a refusal in Evaluation Mode, the roles that may run it).
 */

/** Refused by authentication (the key, client, plan, subscription, network controls, Evaluation Mode's keys and threshold). */
const AUTHENTICATION_REFUSALS = Object.keys(ACCESS_REFUSALS).filter((code) => code !== 'EVALUATION_PREVIEW_ONLY');
const LIMIT_CODES = ['BURST_LIMIT_EXCEEDED', 'PER_MINUTE_LIMIT_EXCEEDED', 'DAILY_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED'];

let publicDocument: any;
let adminDocument: any;

beforeAll(async () => {
  const served = await fetchServedDocuments();
  publicDocument = parse(served.publicDocument);
  adminDocument = parse(served.adminDocument);
}, 60_000);

/** The `code` enum of an operation's answer with `status`, sorted; undefined when the operation does not document the status. */
function codesOf(document: any, path: string, method: string, status: string): string[] | undefined {
  const response = document.paths[path][method].responses[status];
  if (response === undefined) return undefined;
  const body = resolveIn(document, resolveIn(document, response).content['application/json'].schema);
  return [...resolveIn(document, body.properties.error).properties.code.enum].sort();
}

const sorted = (codes: readonly string[]) => [...codes].sort();

describe('the 403 and 429 of /v1/openapi.yaml', () => {
  it('when an operation checks a scope only, then its 403 names authentication refusals and INSUFFICIENT_SCOPE, nothing else', () => {
    for (const [path, method] of [
      ['/projects', 'get'],
      ['/projects/{project}/payment-plans', 'get'],
      ['/catalog/metadata', 'get'],
    ] as const) {
      expect(codesOf(publicDocument, path, method, '403'), path).toEqual(sorted([...AUTHENTICATION_REFUSALS, 'INSUFFICIENT_SCOPE']));
    }
  });

  it('when an operation needs an entitlement too, then its 403 adds ENTITLEMENT_REQUIRED, and EVALUATION_PREVIEW_ONLY only where the route refuses evaluation', () => {
    const entitled = sorted([...AUTHENTICATION_REFUSALS, 'INSUFFICIENT_SCOPE', 'ENTITLEMENT_REQUIRED']);
    expect(codesOf(publicDocument, '/projects/{project}/floor-plans', 'get', '403')).toEqual(entitled);
    expect(codesOf(publicDocument, '/projects/{project}/media', 'get', '403')).toEqual(entitled);
    expect(codesOf(publicDocument, '/webhooks', 'post', '403')).toEqual(entitled);
    expect(codesOf(publicDocument, '/webhooks/{id}/deliveries', 'get', '403')).toEqual(entitled);
    // The batch's grants depend on `include`: every one it may ask for counts.
    expect(codesOf(publicDocument, '/projects/resources', 'get', '403')).toEqual(entitled);
    const previewOnly = sorted([...entitled, 'EVALUATION_PREVIEW_ONLY']);
    expect(codesOf(publicDocument, '/projects/{project}/video', 'get', '403')).toEqual(previewOnly);
    expect(codesOf(publicDocument, '/projects/{project}/brochure', 'get', '403')).toEqual(previewOnly);
    expect(codesOf(publicDocument, '/pdf-templates', 'get', '403')).toEqual(previewOnly);
    expect(codesOf(publicDocument, '/projects/{project}/pdf', 'post', '403')).toEqual(previewOnly);
  });

  it('when an operation needs no key, then it documents no 401, 403 for access or 429', () => {
    const keyless = operationsOf(publicDocument).filter(({ operation }) => operation.security.length === 0);
    expect(keyless.map(({ path }) => path)).toEqual(expect.arrayContaining(['/health', '/openapi.yaml']));
    for (const { path, method } of keyless) {
      expect(codesOf(publicDocument, path, method, '401'), path).toBeUndefined();
      expect(codesOf(publicDocument, path, method, '429'), path).toBeUndefined();
      // A signed link's 403 is about the link: LINK_INVALID, LINK_EXPIRED.
      expect(codesOf(publicDocument, path, method, '403') ?? [], path).not.toContain('INSUFFICIENT_SCOPE');
      expect(codesOf(publicDocument, path, method, '403') ?? [], path).not.toContain('API_KEY_REVOKED');
    }
    expect(codesOf(publicDocument, '/health', 'get', '403')).toBeUndefined();
  });

  it('when a keyed operation is read, then its 429 names the rate limits and the quotas, each of them counted on every keyed request', () => {
    const keyed = operationsOf(publicDocument).filter(({ operation }) => operation.security.length > 0);
    expect(keyed.length).toBeGreaterThan(20);
    for (const { path, method } of keyed)
      expect(codesOf(publicDocument, path, method, '429'), `${method} ${path}`).toEqual(sorted(LIMIT_CODES));
  });
});

describe('the 403 of /admin/openapi.yaml', () => {
  it('when every role may run an operation, then it documents no 403; when some may not, then its 403 is INSUFFICIENT_ROLE alone', () => {
    expect(codesOf(adminDocument, '/states', 'get', '403')).toBeUndefined();
    expect(codesOf(adminDocument, '/projects/{projectId}', 'get', '403')).toBeUndefined();
    expect(codesOf(adminDocument, '/states/{stateId}', 'patch', '403')).toEqual(['INSUFFICIENT_ROLE']);
    expect(codesOf(adminDocument, '/clients', 'get', '403')).toEqual(['INSUFFICIENT_ROLE']);
    for (const { path, method, operation } of operationsOf(adminDocument)) {
      const everyRole = allowedRolesOf(operation.operationId).length === EDITOR_ROLES.length;
      expect(codesOf(adminDocument, path, method, '403'), operation.operationId).toEqual(everyRole ? undefined : ['INSUFFICIENT_ROLE']);
    }
  });
});
