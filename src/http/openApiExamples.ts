import { readFileSync } from 'node:fs';
import { z } from 'zod';

/*
 * The examples of an OpenAPI document: requests made to the service and its answers, recorded by
 * `npm run openapi:examples` (src/cli/openApiExamples.ts) from the demo catalogue, and attached to the
 * document it generates, so that no example is typed by hand and none drifts from what the service says.
 */

const recordedRequestSchema = z
  .object({
    method: z.string(),
    /** Path and query exactly as sent, e.g. `/v1/projects?per_page=2`. */
    target: z.string(),
    /** The path parameters and query parameters as the document types them (an `ids` list, a `per_page` number). */
    path: z.record(z.string(), z.unknown()).optional(),
    query: z.record(z.string(), z.unknown()).optional(),
    /** The headers the example is about (never Authorization). */
    headers: z.record(z.string(), z.string()).optional(),
    /** The JSON body sent. */
    body: z.unknown().optional(),
  })
  .strict();

const recordedResponseSchema = z
  .object({
    status: z.number().int(),
    /** The media type of the body shown, without parameters. */
    contentType: z.string().optional(),
    /** A JSON body, or the text of a YAML one (the document's own, cut short). */
    body: z.unknown().optional(),
    /** The documented headers of an answer shown without its body: bytes (a picture, a document), a redirect. */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .strict();

const recordedExampleSchema = z
  .object({
    summary: z.string(),
    /** How the answer was obtained when it was not provoked from the service (an error no request can cause on purpose). */
    description: z.string().optional(),
    request: recordedRequestSchema,
    response: recordedResponseSchema,
  })
  .strict();

export const openApiExamplesSchema = z
  .object({
    generatedBy: z.string(),
    /** operationId → example name → example. The name is shared by the request's and the answer's parts. */
    operations: z.record(z.string(), z.record(z.string(), recordedExampleSchema)),
  })
  .strict();

export type OpenApiExamples = z.infer<typeof openApiExamplesSchema>;
export type RecordedExample = z.infer<typeof recordedExampleSchema>;

type Json = Record<string, any>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The object a local `$ref` names, or the node itself. */
function resolved(document: Json, node: unknown): Json | undefined {
  if (!isJson(node)) return undefined;
  if (typeof node.$ref !== 'string') return node;
  const target = node.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (current, segment) => (isJson(current) ? current[segment.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined),
      document,
    );
  return resolved(document, target);
}

const exampleObject = (example: RecordedExample) => ({
  summary: example.summary,
  description: `${example.description === undefined ? '' : `${example.description} `}Recorded answer to \`${example.request.method} ${example.request.target}\`.`,
});

/**
 * The example's parameter values and body on the operation (from answers that succeeded: an error's request
 * may hold the very value the parameter's schema refuses). Shared parameter components (the headers every
 * operation takes) get none: one example there would stand for every operation.
 */
function attachRequest(operation: Json, name: string, example: RecordedExample): void {
  const { request, summary } = example;
  if (Array.isArray(operation.parameters)) {
    operation.parameters = operation.parameters.map((parameter: unknown) => {
      if (!isJson(parameter) || '$ref' in parameter) return parameter;
      const values = parameter.in === 'path' ? request.path : parameter.in === 'query' ? request.query : undefined;
      if (values === undefined || !(parameter.name in values)) return parameter;
      return { ...parameter, examples: { ...parameter.examples, [name]: { summary, value: values[parameter.name] } } };
    });
  }
  // A JSON body is recorded without its Content-Type; a body of another media type (NDJSON) with it.
  const mediaType = request.headers?.['Content-Type'] ?? 'application/json';
  const media = operation.requestBody?.content?.[mediaType];
  if (request.body !== undefined && isJson(media)) {
    operation.requestBody = {
      ...operation.requestBody,
      content: {
        ...operation.requestBody.content,
        [mediaType]: { ...media, examples: { ...media.examples, [name]: { summary, value: request.body } } },
      },
    };
  }
}

/**
 * The example's answer on the response it documents: a shared response component (the error answers) gets it
 * for every operation that refers to it; a response written out in the operation is copied first, since
 * operations may share its object (GET and HEAD of one address).
 */
function attachResponse(document: Json, operation: Json, name: string, example: RecordedExample): void {
  const status = String(example.response.status);
  const documented = operation.responses?.[status];
  if (!isJson(documented)) return;
  const shared = typeof documented.$ref === 'string';
  const response = shared ? resolved(document, documented) : { ...documented };
  if (response === undefined) return;
  const { contentType, body, headers } = example.response;
  const media = contentType === undefined ? undefined : response.content?.[contentType];
  if (contentType !== undefined && isJson(media)) {
    const withExample = { ...media, examples: { ...media.examples, [name]: { ...exampleObject(example), value: body } } };
    if (shared) response.content[contentType] = withExample;
    else response.content = { ...response.content, [contentType]: withExample };
  } else if (headers !== undefined && isJson(response.headers)) {
    // A header component gets the example itself (as a response component does); one written out, a copy.
    response.headers = Object.fromEntries(
      Object.entries(response.headers).map(([header, object]) => {
        const value = headers[header];
        if (value === undefined || !isJson(object)) return [header, object];
        if (typeof object.$ref !== 'string') return [header, { ...object, example: value }];
        const component = resolved(document, object);
        if (component !== undefined) component.example = value;
        return [header, object];
      }),
    );
  }
  if (!shared) operation.responses = { ...operation.responses, [status]: response };
}

/**
 * Attaches the recorded examples to the operations (by operationId) of a finished document: parameter and
 * body examples from the successful exchanges, and each answer under its status and media type. An example
 * of an operation or status the document no longer has is left out (test/queries/openApiExamples.spec.ts
 * says which, so the examples are recorded again).
 */
export function attachExamples<Document extends object>(document: Document, examples: OpenApiExamples): Document {
  const json = document as Json;
  for (const item of Object.values(isJson(json.paths) ? json.paths : {})) {
    if (!isJson(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isJson(operation)) continue;
      const recorded = examples.operations[operation.operationId as string] ?? {};
      const copy: Json = { ...operation };
      for (const [name, example] of Object.entries(recorded)) {
        if (example.response.status < 400) attachRequest(copy, name, example);
        attachResponse(json, copy, name, example);
      }
      item[method] = copy;
    }
  }
  return document;
}

const recorded = new Map<string, OpenApiExamples | null>();

/**
 * The examples recorded in `file`, read once; null when there are none to use: before the generator's first
 * run (it runs the service, so it cannot need them), or when the file no longer fits this schema (the
 * generator's next run rewrites it). The document is served either way, without examples then;
 * test/queries/openApiExamples.spec.ts fails until the file is recorded again.
 */
export function recordedExamplesIn(file: URL): OpenApiExamples | null {
  if (!recorded.has(file.href)) {
    let text: string | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const parsed = text === null ? null : openApiExamplesSchema.safeParse(JSON.parse(text));
    recorded.set(file.href, parsed?.success ? parsed.data : null);
  }
  return recorded.get(file.href)!;
}
