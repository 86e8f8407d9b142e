import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from '../domain/errors.js';
import type { HttpServerOptions } from '../config.js';
import type { Logger } from '../logger.js';
import {
  ApiErrorWithHeaders,
  BadRequest,
  ExpectationFailed,
  HeadersTooLarge,
  MethodNotAllowed,
  PayloadTooLarge,
  RequestTimeout,
} from './httpErrors.js';
import { errorBody } from './responses.js';
import { SECURITY_HEADERS, setSecurityHeaders } from './securityHeaders.js';

/** Node's default limit on a request line plus headers, set here so a `--max-http-header-size` flag cannot move it. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/** Node's fixed limit on the chunk extensions of a chunked body (not configurable). */
const MAX_CHUNK_EXTENSIONS_BYTES = 16 * 1024;

/** A refusal normally reaches the kernel at once; this only cuts a peer whose receive window is already full. */
const REFUSAL_FLUSH_TIMEOUT_MS = 1_000;

/** While connections are dropped at the bound, one warning per interval (a flood must not flood the log too). */
const DROP_WARNING_INTERVAL_MS = 10_000;

/** What llhttp's error codes say is malformed; the codes not listed (HPE_STRICT, ...) occur in any part. */
const MALFORMED_PARTS: Readonly<Record<string, { part: string; message: string }>> = {
  HPE_INVALID_METHOD: { part: 'request_line', message: 'The request method is not valid.' },
  HPE_INVALID_URL: { part: 'request_line', message: 'The request target is not valid.' },
  HPE_INVALID_CONSTANT: { part: 'request_line', message: 'The request line is malformed.' },
  HPE_INVALID_VERSION: { part: 'request_line', message: 'The request line is malformed or names an unsupported HTTP version.' },
  HPE_PAUSED_H2_UPGRADE: { part: 'request_line', message: 'HTTP/2 is not served on this port; use HTTP/1.1.' },
  HPE_INVALID_HEADER_TOKEN: { part: 'headers', message: 'A request header has an invalid name or value.' },
  HPE_INVALID_CONTENT_LENGTH: { part: 'headers', message: 'Content-Length is not valid or conflicts with Transfer-Encoding.' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { part: 'headers', message: 'Content-Length conflicts with Transfer-Encoding.' },
  HPE_INVALID_TRANSFER_ENCODING: { part: 'headers', message: 'Transfer-Encoding is not valid.' },
  HPE_INVALID_CHUNK_SIZE: { part: 'body', message: 'The chunked request body has an invalid chunk size.' },
};

/** The spec's error for a request Node's parser or its timeouts refused, by the error's code. */
function refusalFor(code: string | undefined, options: HttpServerOptions): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLarge(MAX_REQUEST_HEAD_BYTES);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PayloadTooLarge(
        MAX_CHUNK_EXTENSIONS_BYTES,
        `The chunk extensions of the request body exceed ${MAX_CHUNK_EXTENSIONS_BYTES} bytes.`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeout(options);
  }
  const malformed = code === undefined ? undefined : MALFORMED_PARTS[code];
  return malformed ? new BadRequest(malformed.message, { part: malformed.part }) : new BadRequest();
}

/** Every refusal closes its connection: after a parse error or a timeout nothing more on it can be trusted. */
function refusalHeaders(refusal: ApiError, requestId: string, body: string): Record<string, string> {
  return {
    Date: new Date().toUTCString(),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    ...SECURITY_HEADERS,
    ...(refusal instanceof ApiErrorWithHeaders ? refusal.headers : {}),
    Connection: 'close',
  };
}

/** A whole HTTP/1.1 response in the spec's error body, for a socket that no ServerResponse will answer. */
function rawRefusal(refusal: ApiError, requestId: string, withBody: boolean): string {
  const body = JSON.stringify(errorBody(refusal, requestId));
  const headerLines = Object.entries(refusalHeaders(refusal, requestId, body)).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${headerLines.join('')}\r\n${withBody ? body : ''}`;
}

/**
 * Sends the response and closes. Destroyed once flushed rather than half-closed: a client still trickling
 * bytes must not get them parsed into another request.
 */
function endWith(socket: Duplex, response: string): void {
  const cutoff = setTimeout(() => socket.destroy(), REFUSAL_FLUSH_TIMEOUT_MS);
  cutoff.unref();
  socket.once('close', () => clearTimeout(cutoff));
  socket.end(response, () => socket.destroy());
}

function answer(res: ServerResponse, refusal: ApiError, requestId: string): void {
  const body = JSON.stringify(errorBody(refusal, requestId));
  res.writeHead(refusal.status, refusalHeaders(refusal, requestId, body));
  res.end(body);
}

/** The response of the request a socket is serving, if any: Node's own field, the only place it is kept. */
function responseInFlight(socket: Duplex): ServerResponse | null {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * The API's node:http server. Whatever Node would refuse on its own (a malformed request, a head over
 * 16 KB, a request too slow to arrive, a CONNECT, an HTTP/1.1 request without Host, an unknown `Expect`)
 * is answered here in the spec's error body with an `X-Request-Id` and `Connection: close`. Only server
 * options and event handlers for those cases: an ordinary request meets nothing new.
 */
export function createHttpServer(app: RequestListener, options: HttpServerOptions, logger: Logger): Server {
  const log = logger.child({ component: 'http' });
  const logRefusal = (refusal: ApiError, requestId: string, cause: string) =>
    log.info({ requestId, status: refusal.status, code: refusal.code, cause }, 'request refused at the protocol level');

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Node checks both timeouts only at this interval (30 s by default), so a limit fires up to that late.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(options.headersTimeoutMs / 4)),
      maxHeaderSize: MAX_REQUEST_HEAD_BYTES,
      // Checked below instead, where the refusal can carry the spec's body; Node's check is the same test.
      requireHostHeader: false,
    },
    (req, res) => {
      setSecurityHeaders(res);
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
        const refusal = new BadRequest('An HTTP/1.1 request must carry a Host header.', { header: 'Host' });
        const requestId = randomUUID();
        answer(res, refusal, requestId);
        logRefusal(refusal, requestId, 'missing Host header');
        return;
      }
      app(req, res);
    },
  );
  server.maxConnections = options.maxConnections;

  // Emitted from inside Node's parser callbacks: an exception here would end the process, hence the guard.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    try {
      const inFlight = responseInFlight(socket);
      // A response already begun cannot be followed by another on the same bytes; a reset peer reads nothing.
      if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
        log.debug({ cause: error.code }, 'connection closed after a client error, without an answer');
        socket.destroy();
        return;
      }
      const refusal = refusalFor(error.code, options);
      // The request the app was still reading (a body too slow to arrive) keeps the id it was given.
      const assignedId = inFlight?.getHeader('X-Request-Id');
      const requestId = typeof assignedId === 'string' ? assignedId : randomUUID();
      endWith(socket, rawRefusal(refusal, requestId, inFlight?.req.method !== 'HEAD'));
      // The parser's error code only: its message and rawPacket can quote the client's bytes, keys included.
      logRefusal(refusal, requestId, error.code ?? 'unknown');
    } catch (failure) {
      log.error({ err: failure }, 'answering a client error failed');
      socket.destroy();
    }
  });

  // Without a listener Node closes a CONNECT without a word. The target (host:port) is no resource of ours: Allow is empty.
  server.on('connect', (_req, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const refusal = new MethodNotAllowed([], 'CONNECT is not supported: this server is not a proxy.');
    const requestId = randomUUID();
    endWith(socket, rawRefusal(refusal, requestId, true));
    logRefusal(refusal, requestId, 'CONNECT');
  });

  server.on('checkExpectation', (_req, res) => {
    const refusal = new ExpectationFailed();
    const requestId = randomUUID();
    answer(res, refusal, requestId);
    logRefusal(refusal, requestId, 'unsupported Expect');
  });

  let droppedSinceWarning = 0;
  let lastWarningAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    droppedSinceWarning++;
    const now = performance.now();
    if (now - lastWarningAt < DROP_WARNING_INTERVAL_MS) return;
    log.warn(
      { dropped: droppedSinceWarning, maxConnections: options.maxConnections },
      'HTTP_MAX_CONNECTIONS reached: new connections are closed as they arrive',
    );
    droppedSinceWarning = 0;
    lastWarningAt = now;
  });

  return server;
}
