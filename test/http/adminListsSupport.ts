import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { request, type Answer, type RequestOptions } from '../support/http.js';
import type { TestApp } from '../support/testApp.js';

/** What the admin list tests call the service with. */
export interface AdminClient {
  /** An admin request; JSON bodies as given. */
  admin(path: string, options?: RequestOptions): Promise<Answer>;
  /** The data of a command that must succeed. */
  accepted(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<any>;
  /** Waits until the projector has applied everything appended so far. */
  projected(): Promise<void>;
  /** Asserts that the answer is what /admin/openapi.yaml documents for the operation and status. */
  expectDocumented(method: string, openApiPath: string, answer: Answer): void;
}

export async function adminClient(app: TestApp): Promise<AdminClient> {
  const admin = (path: string, options: RequestOptions = {}) =>
    request(app.baseUrl, `/admin/v1${path}`, { token: app.adminToken, ...options });
  const document = parse((await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'admin');
  return {
    admin,
    async accepted(method, path, body, headers) {
      const answer = await admin(path, { method, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
      if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.data;
    },
    async projected() {
      const head = await app.eventStore.headPosition();
      if (head !== null) await app.projector.waitForPosition(head, 10_000);
    },
    expectDocumented(method, openApiPath, answer) {
      const responseNode = document.paths[openApiPath]?.[method]?.responses[String(answer.status)];
      expect(responseNode, `${method} ${openApiPath} documents ${answer.status}`).toBeDefined();
      const pointer =
        typeof responseNode.$ref === 'string'
          ? responseNode.$ref.slice(1)
          : `/paths/${openApiPath.replaceAll('/', '~1')}/${method}/responses/${answer.status}`;
      const validate = ajv.compile({ $ref: `admin#${pointer}/content/application~1json/schema` });
      expect(validate(answer.body), `${method} ${openApiPath} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    },
  };
}

/** The ids of a list answer's items, in order. */
export const idsOf = (answer: Answer): unknown[] => (answer.body.data as Array<{ id: unknown }>).map((item) => item.id);
