import type { components, paths } from './generated/catalogueApi.js';

// A consumer of /v1 written only against the types openapi-typescript generates from the served document
// (test/contract/generated/catalogueApi.ts): what a catalogue mirror does, typed end to end. The root tsc
// (npm test) type-checks it against the committed types, and test/contract/typedClient.spec.ts runs it
// against the service.

type Schemas = components['schemas'];
export type ProjectSummary = Schemas['ProjectSummary'];
export type ProjectDetail = Schemas['ProjectDetail'];
export type ProjectChange = Schemas['ProjectChange'];
type ProjectPage = Schemas['ProjectSummaryPage'] | Schemas['ProjectDetailPage'];

/** Every `code` an error body of the API can carry: those of all its problems. */
export type ErrorCode = {
  [Name in keyof Schemas]: Name extends `${string}Problem` ? (Schemas[Name] extends { code: infer Code } ? Code : never) : never;
}[keyof Schemas];

/** The paths that answer GET with JSON, with what each takes and answers. */
type GetPath = {
  [Path in keyof paths]: paths[Path]['get'] extends { responses: { 200: { content: { 'application/json': unknown } } } } ? Path : never;
}[keyof paths];
type GetOperation<Path extends GetPath> = NonNullable<paths[Path]['get']>;
type Ok<Path extends GetPath> = GetOperation<Path>['responses'][200]['content']['application/json'];
type Query<Path extends GetPath> = NonNullable<GetOperation<Path>['parameters']['query']>;
type PathParameters<Path extends GetPath> = GetOperation<Path>['parameters']['path'];
type GetOptions<Path extends GetPath> = { query?: Query<Path> } & (PathParameters<Path> extends object
  ? { path: PathParameters<Path> }
  : object);

/** An answer other than 2xx, by the `code` of its error body. */
export class CatalogueApiError extends Error {
  override readonly name = 'CatalogueApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface CatalogueClient {
  get<Path extends GetPath>(path: Path, options: GetOptions<Path>): Promise<Ok<Path>>;
}

/** `{project}` filled in from `parameters`, each value percent-encoded. */
function expand(template: string, parameters: object | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) =>
    encodeURIComponent(String((parameters as Record<string, unknown> | undefined)?.[name])),
  );
}

/** The query as the document says lists are sent: `style: form`, `explode: false` (`ids=1,2,3`). */
function queryString(query: object | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, value]) => value !== undefined);
  const search = new URLSearchParams(
    entries.map(([name, value]): [string, string] => [name, Array.isArray(value) ? value.join(',') : String(value)]),
  );
  return entries.length > 0 ? `?${search}` : '';
}

/** GETs of `baseUrl` (the document's server, e.g. `https://api.example.com/v1`) with the API key as bearer token. */
export function catalogueClient(baseUrl: string, apiKey: string): CatalogueClient {
  return {
    async get<Path extends GetPath>(path: Path, options: GetOptions<Path>): Promise<Ok<Path>> {
      const url = `${baseUrl}${expand(path, 'path' in options ? options.path : undefined)}${queryString(options.query)}`;
      const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' } });
      const body = await response.json();
      if (!response.ok) {
        const { code, message, details } = (body as { error: { code: ErrorCode; message: string; details: Record<string, unknown> } })
          .error;
        throw new CatalogueApiError(response.status, code, message, details);
      }
      // The document's word for what a 200 holds (the test suites check the service keeps it).
      return body as Ok<Path>;
    },
  };
}

/** The list answers either page; `meta.representation` says which. */
const isSummaryPage = (page: ProjectPage): page is Schemas['ProjectSummaryPage'] => page.meta.representation === 'project_summary';

/** Every published project the key may see, in summary, read page by page. */
export async function allProjectSummaries(client: CatalogueClient, perPage = 100): Promise<ProjectSummary[]> {
  const projects: ProjectSummary[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.get('/projects', { query: { page, per_page: perPage, sort: 'name' } });
    if (!isSummaryPage(answer)) throw new Error(`asked for summaries, got ${answer.meta.representation}`);
    projects.push(...answer.data);
    if (page >= answer.meta.pagination.total_pages) return projects;
  }
}

/** The full records of these projects, 100 ids a call (the batch's limit); ids the key may not see are left out. */
export async function projectDetails(client: CatalogueClient, ids: readonly number[]): Promise<ProjectDetail[]> {
  const details: ProjectDetail[] = [];
  for (let start = 0; start < ids.length; start += 100) {
    const answer = await client.get('/projects', { query: { ids: ids.slice(start, start + 100), view: 'detail', per_page: 100 } });
    if (isSummaryPage(answer)) throw new Error('asked for details, got summaries');
    details.push(...answer.data);
  }
  return details;
}

/**
 * The change feed from `cursor` (`start` the first time) until it has caught up: each change handed to
 * `apply` in commit order, exactly once. Answers the cursor to resume from next time.
 */
export async function syncChanges(client: CatalogueClient, cursor: string, apply: (change: ProjectChange) => void): Promise<string> {
  for (let from = cursor; ;) {
    const page = await client.get('/projects/changes', { query: { cursor: from, per_page: 100 } });
    page.data.forEach(apply);
    if (page.meta.has_more !== true) return page.meta.cursor;
    from = page.meta.cursor;
  }
}

/** One project by id or slug, or null when the key may not see it (404 NOT_FOUND); any other refusal is thrown. */
export async function projectIfAvailable(client: CatalogueClient, idOrSlug: string): Promise<ProjectDetail | null> {
  try {
    return (await client.get('/projects/{project}', { path: { project: idOrSlug } })).data;
  } catch (error) {
    if (error instanceof CatalogueApiError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** Whether the same request may succeed later: a rate limit, or the service or its read models not ready. */
export function worthRetrying(error: unknown): boolean {
  const transient: readonly ErrorCode[] = ['BURST_LIMIT_EXCEEDED', 'PER_MINUTE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE', 'PROJECTION_BEHIND'];
  return error instanceof CatalogueApiError && transient.includes(error.code);
}
