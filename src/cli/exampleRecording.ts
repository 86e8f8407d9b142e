import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import sharp from 'sharp';
import { loadConfig, type Config } from '../config.js';
import { errorMiddleware } from '../http/errorMiddleware.js';
import type { OpenApiExamples, RecordedExample } from '../http/openApiExamples.js';
import { requestContext } from '../http/requestContext.js';
import { createLogger, type Logger } from '../logger.js';
import { DEMO_API_KEYS_FILE_NAME } from '../seed/demoClient.js';
import { startService, type RunningService } from '../service.js';

/*
 * What `npm run openapi:examples` needs for either document (/v1 in src/cli/openApiExamples.ts, /admin/v1 in
 * src/cli/adminOpenApiExamples.ts): the service on a temporary DATA_DIR seeded with the demo catalogue, on a
 * clock that starts at EXAMPLES_EPOCH and moves one second per request, with a fixed link signing secret and
 * public base URL; a recorder that sends each exchange, checks its status against the one expected and keeps
 * request and answer under the operation's id; and the stand-ins that replace the few random values, so that
 * a rerun changes the examples only where the service's answers changed.
 */

export const EXAMPLES_EPOCH = Date.parse('2025-05-12T06:00:00.000Z');
export const PUBLIC_BASE_URL = 'https://api.example.com/v1';
/** Enough projects that every kind of related collection, video and document occurs. */
export const SEED_PROJECTS = 30;
/** Fixed, so that the signatures of the links in the examples are the same on every run. */
export const LINK_SIGNING_SECRET = 'openapi-examples-link-signing-secret-not-used-elsewhere';

export type Json = Record<string, any>;

/** The service's clock: still between requests, so that every time it hands out is the same on every run. */
export class ExampleClock {
  private at = EXAMPLES_EPOCH;
  readonly now = (): Date => new Date(this.at);
  advance(milliseconds: number): Date {
    this.at += milliseconds;
    return this.now();
  }
}

/** A uuid-shaped request id made from the example's name, so that ids stay put between runs. */
export function requestIdFor(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A query parameter as a client writes it: a list comma-separated (the commas left as they are). */
const queryPart = (name: string, value: unknown): string =>
  `${name}=${encodeURIComponent(Array.isArray(value) ? value.join(',') : String(value)).replaceAll('%2C', ',')}`;

export interface Exchange {
  operationId: string;
  name: string;
  summary: string;
  description?: string;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** Headers the example is about; recorded. */
  headers?: Record<string, string>;
  /** A JSON body, recorded. */
  body?: unknown;
  /** A body that is no example of the operation's (too large, not JSON): sent, not recorded. */
  rawBody?: { contentType: string; text: string };
  /** A text body of another media type the operation takes (NDJSON): sent, and recorded with its Content-Type. */
  textBody?: { contentType: string; text: string };
  /** A file as the body (a picture): sent, and recorded by its Content-Type and length. */
  binaryBody?: { contentType: string; bytes: Buffer };
  /** The request target as sent, when it is no value the parameters can have (an undecodable path). */
  target?: string;
  /** The bearer key or token; none for a keyless operation or a refused request. */
  key?: string;
  /** The status the request must be answered with: anything else stops the generator. */
  status: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

interface DocumentedOperation {
  path: string;
  method: string;
  operation: Json;
}

/** The document the examples are recorded for: without examples, and the path its `servers` put before its paths. */
export interface RecordedDocument {
  document: Json;
  basePath: string;
}

/** The request init of a request the examples do not show. */
export interface UnrecordedRequest {
  method?: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Records exchanges with the service: every request it sends moves the service's clock one second on. */
export class Recorder {
  readonly examples: Record<string, Record<string, RecordedExample>> = {};
  /** The document's operations by operationId, in document order. */
  readonly operations = new Map<string, DocumentedOperation>();
  /** The log position each write answered (X-Log-Position), with the clock's time of the write, in log order. */
  private readonly writes: Array<{ position: bigint; at: Date }> = [];

  constructor(
    readonly origin: string,
    private readonly clock: ExampleClock,
    private readonly recorded: RecordedDocument,
  ) {
    for (const [path, item] of Object.entries(recorded.document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (typeof operation?.operationId === 'string') this.operations.set(operation.operationId, { path, method, operation });
      }
    }
  }

  target(operationId: string, path: Record<string, unknown> = {}, query: Record<string, unknown> = {}): { method: string; target: string } {
    const documented = this.operations.get(operationId);
    if (!documented) throw new Error(`The ${this.recorded.basePath} document has no operation ${operationId}.`);
    const filled = documented.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      if (!(name in path)) throw new Error(`${operationId}: no value for the path parameter ${name}.`);
      return encodeURIComponent(String(path[name]));
    });
    const search = Object.entries(query)
      .map(([name, value]) => queryPart(name, value))
      .join('&');
    return { method: documented.method.toUpperCase(), target: `${this.recorded.basePath}${filled}${search ? `?${search}` : ''}` };
  }

  /** Sends the exchange's request, checks its status and records it under its operation and name. */
  async record(exchange: Exchange): Promise<Answer> {
    const built = this.target(exchange.operationId, exchange.path, exchange.query);
    const { method } = built;
    const target = exchange.target ?? built.target;
    const requestId = requestIdFor(`${exchange.operationId}/${exchange.name}`);
    const at = this.clock.advance(1_000);
    const headers: Record<string, string> = { 'X-Request-Id': requestId, ...exchange.headers };
    if (exchange.key !== undefined) headers.Authorization = `Bearer ${exchange.key}`;
    let body: string | Buffer | undefined;
    const text = exchange.rawBody ?? exchange.textBody;
    if (text !== undefined) {
      headers['Content-Type'] = text.contentType;
      body = text.text;
    } else if (exchange.binaryBody !== undefined) {
      headers['Content-Type'] = exchange.binaryBody.contentType;
      body = exchange.binaryBody.bytes;
    } else if (exchange.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(exchange.body);
    }
    const response = await fetch(`${this.origin}${target}`, {
      method,
      headers,
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
    });
    const answer = await answerOf(response, method);
    this.noteWrite(answer, at);
    if (answer.status !== exchange.status) {
      throw new Error(
        `${exchange.operationId}/${exchange.name}: ${method} ${target} answered ${answer.status}, not ${exchange.status}: ${JSON.stringify(answer.body)}`,
      );
    }
    this.store(exchange, { method, target }, answer, requestId, at);
    return answer;
  }

  /**
   * Records the answer to `request`, written to a socket as it is, for what a client library would not send
   * (a refusal before the request reaches an operation, which every operation shares).
   */
  async recordOnTheSocket(exchange: Exchange, request: string): Promise<void> {
    const requestId = requestIdFor(`${exchange.operationId}/${exchange.name}`);
    const at = this.clock.advance(1_000);
    const answer = await rawExchange(this.origin, request);
    if (answer.status !== exchange.status)
      throw new Error(`${exchange.operationId}/${exchange.name} answered ${answer.status}, not ${exchange.status}.`);
    this.store(exchange, this.target(exchange.operationId, exchange.path, exchange.query), answer, requestId, at);
  }

  /**
   * Records, for the errors no request can cause on purpose, what the service's error middleware answers for
   * `error` (behind the request context, as in the app); the exchange's description says so.
   */
  async recordBuilt(exchange: Omit<Exchange, 'status'>, error: Error): Promise<void> {
    const sent = this.target(exchange.operationId, exchange.path, exchange.query);
    const requestId = requestIdFor(`${exchange.operationId}/${exchange.name}`);
    const at = this.clock.advance(1_000);
    const answer = await middlewareAnswer(error, sent.target, requestId);
    this.store({ ...exchange, status: answer.status }, sent, answer, requestId, at);
  }

  /** Records an answer obtained some other way for `exchange`. */
  private store(exchange: Exchange, sent: { method: string; target: string }, answer: Answer, requestId: string, at: Date): void {
    const documented = this.operations.get(exchange.operationId)!;
    const response = this.documentedResponse(documented.operation, answer.status);
    const contentType = answer.headers.get('content-type')?.split(';')[0]?.trim();
    const recorded: RecordedExample['response'] = { status: answer.status };
    if (contentType === 'application/json' && response.content?.[contentType] !== undefined) {
      recorded.contentType = contentType;
      recorded.body = withoutMeasurements(withStableMeta(answer.body, requestId, at));
    } else if (contentType?.endsWith('yaml') && response.content?.[contentType] !== undefined) {
      recorded.contentType = contentType;
      recorded.body = yamlHead(answer.body as string);
    } else if (response.headers !== undefined) {
      // Bytes (a picture, a document) and redirects are shown by their headers: a reference page fetches an
      // example's external address, which would name a file of this throwaway catalogue.
      const headers = Object.keys(response.headers as Json)
        .filter((name) => name !== 'X-Request-Id' && answer.headers.has(name))
        .map((name) => [name, name === 'Last-Modified' ? STORED_AT : answer.headers.get(name)!] as const);
      if (headers.length > 0) recorded.headers = Object.fromEntries(headers);
    }
    const request: RecordedExample['request'] = { method: sent.method, target: sent.target };
    if (exchange.path !== undefined) request.path = exchange.path;
    if (exchange.query !== undefined) request.query = exchange.query;
    if (exchange.headers !== undefined) request.headers = exchange.headers;
    if (exchange.rawBody !== undefined) {
      const { contentType, text } = exchange.rawBody;
      request.headers = { ...request.headers, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(text)) };
    }
    if (exchange.binaryBody !== undefined) {
      const { contentType, bytes } = exchange.binaryBody;
      request.headers = { ...request.headers, 'Content-Type': contentType, 'Content-Length': String(bytes.length) };
    }
    if (exchange.textBody !== undefined) {
      request.headers = { ...request.headers, 'Content-Type': exchange.textBody.contentType };
      request.body = exchange.textBody.text;
    }
    if (exchange.body !== undefined) request.body = exchange.body;
    (this.examples[exchange.operationId] ??= {})[exchange.name] = {
      summary: exchange.summary,
      ...(exchange.description === undefined ? {} : { description: exchange.description }),
      request,
      response: recorded,
    };
  }

  /** The response the operation documents for `status`, followed through its `$ref`. */
  private documentedResponse(operation: Json, status: number): Json {
    let response = operation.responses?.[String(status)] as Json | undefined;
    if (response === undefined) throw new Error(`${operation.operationId as string} does not document ${status}.`);
    while (typeof response.$ref === 'string') {
      response = (response.$ref as string)
        .slice(2)
        .split('/')
        .reduce((node: Json, segment) => node[segment] as Json, this.recorded.document);
    }
    return response;
  }

  /** A request the examples do not show (setting up, looking up): the clock still moves. */
  async send(path: string, init: UnrecordedRequest = {}): Promise<Answer> {
    const at = this.clock.advance(1_000);
    const answer = await this.peek(path, init);
    this.noteWrite(answer, at);
    return answer;
  }

  private noteWrite(answer: Answer, at: Date): void {
    const position = answer.headers.get('x-log-position');
    if (position !== null && answer.status < 300) this.writes.push({ position: BigInt(position), at });
  }

  /** The head of the log before the first write sent here: what the seed wrote when the service started. */
  seededUpTo(head: bigint | null): void {
    this.writes.unshift({ position: head ?? 0n, at: new Date(EXAMPLES_EPOCH) });
  }

  /**
   * The clock's time of the write that appended the event at `position` (the first write answered at or after
   * it; the seed's, when the clock started); undefined for a write this recorder did not see.
   */
  timeOfEvent(position: string): Date | undefined {
    const wanted = BigInt(position);
    return this.writes.find((write) => write.position >= wanted)?.at;
  }

  /** A look that must not move the clock (waiting for a worker that runs on it). */
  async peek(path: string, init: UnrecordedRequest = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers.Authorization = `Bearer ${init.key}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${this.origin}${path}`, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return answerOf(response, init.method ?? 'GET');
  }

  /** The examples in document order, each operation's by status, so that the file's diff follows the document. */
  inDocumentOrder(): OpenApiExamples['operations'] {
    const missing = [...this.operations.keys()].filter((operationId) => this.examples[operationId] === undefined);
    if (missing.length > 0) throw new Error(`No example was recorded for ${missing.join(', ')}.`);
    const byStatus = (examples: Record<string, RecordedExample>) =>
      Object.fromEntries(Object.entries(examples).sort(([, a], [, b]) => a.response.status - b.response.status));
    return Object.fromEntries([...this.operations.keys()].map((operationId) => [operationId, byStatus(this.examples[operationId]!)]));
  }
}

async function answerOf(response: Response, method: string): Promise<Answer> {
  const contentType = response.headers.get('content-type') ?? '';
  const text = method === 'HEAD' ? '' : contentType.includes('json') || contentType.includes('yaml') ? await response.text() : '';
  if (!text) await response.body?.cancel();
  return { status: response.status, headers: response.headers, body: contentType.includes('json') && text ? JSON.parse(text) : text };
}

/** `meta` as it would be on the example clock, with the request id sent (refusals on the socket make their own). */
function withStableMeta(body: Json, requestId: string, at: Date): Json {
  if (typeof body !== 'object' || body === null || typeof body.meta !== 'object') return body;
  return { ...body, meta: { ...body.meta, request_id: requestId, generated_at: at.toISOString() } };
}

/** The blob store stamps a file with the machine's time, not the service's clock: as if stored when the clock started. */
const STORED_AT = new Date(EXAMPLES_EPOCH).toUTCString();

/** Durations the service measured (a webhook delivery's latency, an import's): the same stand-in on every run. */
const MEASURED: Readonly<Record<string, number>> = { latency_ms: 120, seconds: 0.2 };

function withoutMeasurements(value: unknown): any {
  if (Array.isArray(value)) return value.map(withoutMeasurements);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      typeof child === 'number' && key in MEASURED ? MEASURED[key] : withoutMeasurements(child),
    ]),
  );
}

/** The start of the document (its title and version): the whole of it would repeat every example in itself. */
function yamlHead(text: string): string {
  const lines = text.split('\n');
  const end = lines.findIndex((line) => line.startsWith('  description:'));
  return `${lines.slice(0, end).join('\n')}\n# ... the rest of the document\n`;
}

/** One HTTP/1.1 request written to a socket as it is; read to the close. */
async function rawExchange(origin: string, request: string): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.write(request);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Headers(headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : '' };
}

async function middlewareAnswer(error: Error, target: string, requestId: string): Promise<Answer> {
  const logger = createLogger({ level: 'silent' });
  const app = express()
    .use(requestContext(logger))
    .use((_req, _res, next) => next(error))
    .use(errorMiddleware(logger));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${target}`, { headers: { 'X-Request-Id': requestId } });
    return await answerOf(response, 'GET');
  } finally {
    server.close();
  }
}

/** Map tiles for the brochure's map from this machine: one plain tile for every address, so no render reaches a tile server. */
async function startTileServer(): Promise<Server> {
  const tile = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#e8eef2' } })
    .png()
    .toBuffer();
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(tile));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** A value the service draws at random, and how to make a stand-in for it from a digest. */
export interface RandomValue {
  kind: string;
  pattern: RegExp;
  standIn: (hex: string) => string;
}

/**
 * Replaces every value of each kind by a stand-in made from the kind and the value's order of appearance
 * (the same value, the same stand-in).
 */
function withStandIns(text: string, randomValues: readonly RandomValue[]): string {
  let replaced = text;
  for (const { kind, pattern, standIn } of randomValues) {
    const standIns = new Map<string, string>();
    replaced = replaced.replace(pattern, (value) => {
      if (!standIns.has(value)) standIns.set(value, standIn(createHash('sha256').update(`${kind}:${standIns.size}`).digest('hex')));
      return standIns.get(value)!;
    });
  }
  return replaced;
}

/** The recorder's examples, in document order with the random values replaced, written to `file`. */
export async function writeExamples(
  file: string,
  recorder: Recorder,
  generatedBy: string,
  randomValues: readonly RandomValue[],
): Promise<void> {
  const examples: OpenApiExamples = { generatedBy, operations: recorder.inDocumentOrder() };
  await writeFile(file, `${withStandIns(JSON.stringify(examples, null, 2), randomValues)}\n`);
  process.stdout.write(`wrote ${Object.keys(examples.operations).length} operations' examples to ${file}\n`);
}

/** The running service the examples are recorded from, and what the demo seed issued. */
export interface ExampleService {
  service: RunningService;
  clock: ExampleClock;
  origin: string;
  /** The demo client's live key, and its id. */
  liveKey: string;
  demoClientId: number;
  /** The bootstrap admin token. */
  adminToken: string;
  /** The service's logger. */
  serviceLogger: Logger;
}

/** The service's request lines would bury the generator's own: warnings only, unless LOG_LEVEL asks for more. */
const serviceLogLevel = (config: Config) => (process.env.LOG_LEVEL === undefined ? 'warn' : config.logLevel);

/**
 * Runs `record` against the service started on a fresh DATA_DIR seeded with the demo catalogue (removed
 * afterwards), with `environment` added to its configuration.
 */
export async function withExampleService(
  config: Config,
  logger: Logger,
  environment: Record<string, string>,
  record: (running: ExampleService) => Promise<void>,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'openapi-examples-'));
  const tiles = await startTileServer();
  const clock = new ExampleClock();
  let service: RunningService | undefined;
  try {
    const serviceConfig = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      SEED_PROJECTS: String(SEED_PROJECTS),
      ADMIN_TOKEN: randomBytes(32).toString('base64url'),
      LINK_SIGNING_SECRET,
      PUBLIC_BASE_URL,
      PDF_TILE_URL: `http://127.0.0.1:${(tiles.address() as AddressInfo).port}/{z}/{x}/{y}.png`,
      // The example webhook's host is answered with this machine (below), where nothing listens on 443.
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.1/32',
      LOG_LEVEL: serviceLogLevel(config),
      ...environment,
    });
    logger.info({ dataDir, projects: serviceConfig.seedProjects }, 'starting the service on the demo catalogue');
    const serviceLogger = createLogger({ level: serviceConfig.logLevel }).child({ component: 'service' });
    service = await startService({
      config: serviceConfig,
      logger: serviceLogger,
      clock: clock.now,
      webhookResolve: async () => [{ address: '127.0.0.1', family: 4 }],
      webhookRandom: () => 0.5,
    });
    const keys = await readFile(join(dataDir, DEMO_API_KEYS_FILE_NAME), 'utf8');
    const liveKey = /^DEMO_API_KEY_LIVE=(\S+)$/m.exec(keys)?.[1];
    const demoClientId = /\(client (\d+),/.exec(keys)?.[1];
    if (liveKey === undefined || demoClientId === undefined) throw new Error(`${DEMO_API_KEYS_FILE_NAME} names no live key or client.`);
    await record({
      service,
      clock,
      origin: service.url!,
      liveKey,
      demoClientId: Number(demoClientId),
      adminToken: service.adminToken!,
      serviceLogger,
    });
  } finally {
    await service?.stop();
    tiles.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
