import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** What a raw socket received before the server closed it. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed when the response says it is JSON. */
  body: any;
  bodyBytes: number;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

function endpointOf(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  return { host: url.hostname, port: Number(url.port) };
}

function openSocket(baseUrl: string): Promise<Socket> {
  const { host, port } = endpointOf(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection; fails when it does not close within `closeWithinMs`. */
function receiveUntilClosed(socket: Socket, closeWithinMs: number): Promise<{ bytes: Buffer; closedAfterMs: number }> {
  const startedAt = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset after the server's response is still a closed connection; what was received is what counts.
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server did not close the connection within ${closeWithinMs} ms; received ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`,
        ),
      );
    }, closeWithinMs);
    socket.once('close', () => {
      clearTimeout(deadline);
      resolve({ bytes: Buffer.concat(chunks), closedAfterMs: performance.now() - startedAt });
    });
  });
}

/** One HTTP/1.1 response, as raw bytes arrived. */
function parseResponse(bytes: Buffer): Omit<RawAnswer, 'closedAfterMs'> {
  const text = bytes.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  expect(headEnd, `no complete response head in ${JSON.stringify(text.slice(0, 200))}`).toBeGreaterThan(0);
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = text.slice(headEnd + 4);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]),
    headers,
    body: headers['content-type']?.startsWith('application/json') ? JSON.parse(bodyText) : bodyText,
    bodyBytes: Buffer.byteLength(bodyText),
  };
}

/**
 * Sends `chunks` with `gapMs` between them (stopping once the server closes) and reads until the server closes.
 * The gap is the client under test: a slow sender, or a body that arrives after its head.
 */
async function exchange(
  baseUrl: string,
  chunks: ReadonlyArray<string | Buffer>,
  options: { gapMs?: number; closeWithinMs?: number } = {},
): Promise<RawAnswer> {
  const socket = await openSocket(baseUrl);
  const received = receiveUntilClosed(socket, options.closeWithinMs ?? 5_000);
  for (const chunk of chunks) {
    if (socket.destroyed || !socket.writable) break;
    socket.write(chunk);
    if (options.gapMs) await sleep(options.gapMs);
  }
  const { bytes, closedAfterMs } = await received;
  return { ...parseResponse(bytes), closedAfterMs };
}

/** The spec's error body with `code`, its request id echoed in X-Request-Id, the security headers, and a closed connection. */
function expectRefusal(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(answer.headers['content-length'])).toBe(answer.bodyBytes);
  expect(answer.headers.connection).toBe('close');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(answer.body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Object) },
    meta: { request_id: expect.any(String), generated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
  });
  expect(answer.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(answer.headers['x-request-id']).toBe(answer.body.meta.request_id);
}

const HEAD = 'Host: 127.0.0.1\r\n';

describe('refusals the HTTP parser makes', () => {
  let app: TestApp;
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    app = await startTestApp({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    });
  });
  afterAll(() => app.close());

  it('when the request method is malformed, then 400 BAD_REQUEST names the request line and the connection closes', async () => {
    const answer = await exchange(app.baseUrl, [`G@T /v1/health HTTP/1.1\r\n${HEAD}\r\n`]);
    expectRefusal(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.details).toEqual({ part: 'request_line' });
  });

  it('when the request line has a space in its target, then 400 BAD_REQUEST names the request line', async () => {
    const answer = await exchange(app.baseUrl, [`GET /v1/health now HTTP/1.1\r\n${HEAD}\r\n`]);
    expectRefusal(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.details).toEqual({ part: 'request_line' });
  });

  it('when a header carries a control character, then 400 BAD_REQUEST names the headers and the log holds no byte of it', async () => {
    const secret = 'live_3f9c2a7e5b1d4c8a9e0f6b2d7c4a1e5f';
    const answer = await exchange(app.baseUrl, [`GET /v1/health HTTP/1.1\r\n${HEAD}X-Note: ${secret}\x01\r\n\r\n`]);
    expectRefusal(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.details).toEqual({ part: 'headers' });
    const logged = logLines.find((line) => line.requestId === answer.body.meta.request_id);
    expect(logged).toMatchObject({
      level: 30,
      msg: 'request refused at the protocol level',
      status: 400,
      code: 'BAD_REQUEST',
      cause: 'HPE_INVALID_HEADER_TOKEN',
    });
    expect(JSON.stringify(logLines)).not.toContain(secret.slice(5, 20));
  });

  it('when a chunked body has an invalid chunk size, then 400 BAD_REQUEST names the body and the connection closes', async () => {
    const answer = await exchange(
      app.baseUrl,
      [
        `POST /admin/v1/projects HTTP/1.1\r\n${HEAD}Authorization: Bearer ${app.adminToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        'zz\r\n{}\r\n0\r\n\r\n',
      ],
      { gapMs: 50 },
    );
    expectRefusal(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.details).toEqual({ part: 'body' });
  });

  it('when the chunk extensions exceed 16 KB, then 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await exchange(
      app.baseUrl,
      [
        `POST /admin/v1/projects HTTP/1.1\r\n${HEAD}Authorization: Bearer ${app.adminToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        `2;note=${'n'.repeat(17_000)}\r\n{}\r\n0\r\n\r\n`,
      ],
      { gapMs: 50 },
    );
    expectRefusal(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.body.error.details).toEqual({ limit_bytes: 16_384 });
  });

  it('when the request head exceeds 16 KB, then 431 HEADERS_TOO_LARGE states the limit and the connection closes', async () => {
    const answer = await exchange(app.baseUrl, [`GET /v1/health HTTP/1.1\r\n${HEAD}X-Filler: ${'f'.repeat(17_000)}\r\n\r\n`]);
    expectRefusal(answer, 431, 'HEADERS_TOO_LARGE');
    expect(answer.body.error.details).toEqual({ limit_bytes: 16_384 });
  });

  it('when the method is CONNECT, then 405 METHOD_NOT_ALLOWED with an empty Allow and the connection closes', async () => {
    const answer = await exchange(app.baseUrl, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    expectRefusal(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(answer.headers.allow).toBe('');
    expect(answer.body.error.details).toEqual({ allowed_methods: [] });
  });

  it('when an HTTP/1.1 request has no Host header, then 400 BAD_REQUEST names Host and the connection closes', async () => {
    const answer = await exchange(app.baseUrl, ['GET /v1/health HTTP/1.1\r\n\r\n']);
    expectRefusal(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.details).toEqual({ header: 'Host' });
  });

  it('when a request expects anything but 100-continue, then 417 EXPECTATION_FAILED names Expect', async () => {
    const answer = await exchange(app.baseUrl, [`GET /v1/health HTTP/1.1\r\n${HEAD}Expect: 200-ok\r\n\r\n`]);
    expectRefusal(answer, 417, 'EXPECTATION_FAILED');
    expect(answer.body.error.details).toEqual({ header: 'Expect' });
  });

  it('when a well-formed request arrives on a raw socket, then it is answered and the connection stays open', async () => {
    const socket = await openSocket(app.baseUrl);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(`GET /v1/health HTTP/1.1\r\n${HEAD}\r\n`);
    await eventually('the health answer', () => /^HTTP\/1\.1 200 OK\r\n[\s\S]*"status"/.test(Buffer.concat(chunks).toString('utf8')));
    // A window in which a server that meant to close the connection would have: nothing to poll for.
    await sleep(100);
    expect(socket.destroyed).toBe(false);
    expect(Buffer.concat(chunks).toString('utf8')).not.toMatch(/connection: close/i);
    socket.destroy();
  });
});

describe('slow clients', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => app.close());

  it('when a head arrives one byte every 200 ms, then 408 REQUEST_TIMEOUT comes within the headers timeout and the connection closes', async () => {
    const head = `GET /v1/health HTTP/1.1\r\n${HEAD}\r\n`;
    const answer = await exchange(app.baseUrl, [...head], { gapMs: 200, closeWithinMs: 3_000 });
    expectRefusal(answer, 408, 'REQUEST_TIMEOUT');
    expect(answer.body.error.details).toEqual({ headers_timeout_ms: 400, request_timeout_ms: 1000 });
    // 400 ms, checked every 100 ms; the whole head would have taken 200 ms per byte.
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(350);
    expect(answer.closedAfterMs).toBeLessThan(2_000);
  });

  it('when a connection sends nothing at all, then 408 REQUEST_TIMEOUT and the connection closes', async () => {
    const answer = await exchange(app.baseUrl, [], { closeWithinMs: 3_000 });
    expectRefusal(answer, 408, 'REQUEST_TIMEOUT');
  });

  it('when a body arrives one byte every 200 ms, then 408 REQUEST_TIMEOUT comes within the request timeout and no command runs', async () => {
    const headBefore = await app.eventStore.headPosition();
    const body = JSON.stringify({ name: 'Slowly sent', slug: 'slowly-sent' });
    const answer = await exchange(
      app.baseUrl,
      [
        `POST /admin/v1/projects HTTP/1.1\r\n${HEAD}Authorization: Bearer ${app.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        ...body,
      ],
      { gapMs: 200, closeWithinMs: 5_000 },
    );
    expectRefusal(answer, 408, 'REQUEST_TIMEOUT');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(950);
    expect(answer.closedAfterMs).toBeLessThan(3_000);
    expect(await app.eventStore.headPosition()).toEqual(headBefore);
  });
});

describe('the connection bound', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { HTTP_MAX_CONNECTIONS: '2' } });
  });
  afterAll(() => app.close());

  /** A keep-alive connection the server has accepted and answered once. */
  async function servedConnection(): Promise<Socket> {
    const socket = await openSocket(app.baseUrl);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(`GET /v1/health HTTP/1.1\r\n${HEAD}\r\n`);
    await eventually('the health answer', () => /^HTTP\/1\.1 200 OK\r\n/.test(Buffer.concat(chunks).toString('utf8')));
    return socket;
  }

  it('when HTTP_MAX_CONNECTIONS connections are open, then the next is closed without a byte, and served again once one closes', async () => {
    const first = await servedConnection();
    const second = await servedConnection();

    const overTheBound = await openSocket(app.baseUrl);
    const received = receiveUntilClosed(overTheBound, 2_000);
    overTheBound.write(`GET /v1/health HTTP/1.1\r\n${HEAD}\r\n`);
    expect((await received).bytes.length).toBe(0);

    first.destroy();
    await eventually('a new connection to be served once one closed', async () => {
      const answer = await exchange(app.baseUrl, [`GET /v1/health HTTP/1.1\r\n${HEAD}Connection: close\r\n\r\n`]);
      return answer.status === 200;
    });
    second.destroy();
  });
});
