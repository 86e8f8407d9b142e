import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

export interface DeliveryRequest {
  /** What checkWebhookTarget approved: the URL, and the address the connection must go to. */
  target: { url: URL; address: string; family: 4 | 6 };
  headers: Record<string, string>;
  body: string;
  /** Covers connecting, sending and the answer, body included. */
  timeoutMs: number;
  /** At most this much of the answer's body is read; then the connection is cut. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

export type DeliveryResult =
  /** The receiver answered with `status` (any status: only the caller decides what counts as success). */
  | { kind: 'answered'; status: number; latencyMs: number; responseSnippet: string }
  | { kind: 'failed'; error: 'timeout' | 'connection' | 'tls' | 'aborted'; message: string; latencyMs: number };

/** Set here whatever the caller passes: they describe this connection and this body. */
const MANAGED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * One POST of a webhook delivery. It connects to `target.address` whatever the URL's host resolves to now
 * (the host was checked against the SSRF policy when that address was chosen; resolving it again could give
 * another), while TLS still verifies the certificate for the URL's host (SNI) and the Host header names it.
 * Redirects are not followed: a 3xx is an answer like any other. Each attempt has its own connection (no
 * shared agent), so a receiver that hangs holds up only its own attempts. Never throws: every way of not
 * getting an answer is a `failed` result.
 *
 * `latencyMs` runs from the start to the end of the attempt (the answer read, or the failure).
 */
export function deliverAttempt(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const { signal } = request;
  if (signal?.aborted) return Promise.resolve({ kind: 'failed', error: 'aborted', message: 'aborted before sending', latencyMs: 0 });

  return new Promise((settle) => {
    let outgoing: http.ClientRequest | undefined;
    let answer: { status: number; chunks: Buffer[]; bytes: number } | undefined;
    let settled = false;

    const finish = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      // Cuts the connection too when the answer was not read to its end (capped, timed out, aborted).
      outgoing?.destroy();
      settle(result);
    };
    // Once the status is in, the receiver has answered: a cut-off body does not undo that.
    const finishAnswered = () => {
      if (answer === undefined) return;
      const responseSnippet = Buffer.concat(answer.chunks).toString('utf8');
      finish({ kind: 'answered', status: answer.status, latencyMs: latencyMs(), responseSnippet });
    };
    const fail = (error: 'timeout' | 'connection' | 'tls' | 'aborted', message: string) => {
      if (answer !== undefined) finishAnswered();
      else finish({ kind: 'failed', error, message, latencyMs: latencyMs() });
    };
    const onAbort = () => fail('aborted', 'aborted while in flight');
    const deadline = setTimeout(() => fail('timeout', `no answer within ${request.timeoutMs} ms`), request.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    try {
      outgoing = send(request);
    } catch (error) {
      fail('connection', describe(error));
      return;
    }
    outgoing.on('error', (error) => fail(isTlsError(error) ? 'tls' : 'connection', describe(error)));
    outgoing.on('response', (response) => {
      answer = { status: response.statusCode ?? 0, chunks: [], bytes: 0 };
      const read = answer;
      response.on('data', (chunk: Buffer) => {
        const room = request.maxResponseBytes - read.bytes;
        if (room > 0) {
          read.chunks.push(chunk.subarray(0, room));
          read.bytes += Math.min(room, chunk.length);
        }
        if (read.bytes >= request.maxResponseBytes) finishAnswered();
      });
      response.on('end', finishAnswered);
      response.on('close', finishAnswered);
      response.on('error', finishAnswered);
      if (request.maxResponseBytes <= 0) finishAnswered();
    });
    outgoing.end(request.body);
  });
}

function send({ target, headers, body }: DeliveryRequest): http.ClientRequest {
  const { url } = target;
  const urlHost = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const hostIsAddress = isIP(urlHost) !== 0;
  const outgoingHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!MANAGED_HEADERS.has(name.toLowerCase())) outgoingHeaders[name] = value;
  outgoingHeaders.Host = url.host;
  outgoingHeaders['Content-Length'] = String(Buffer.byteLength(body));
  const options: https.RequestOptions = {
    method: 'POST',
    protocol: url.protocol,
    // An address literal is dialled as the checked address itself (the same one, or the IPv4 of a mapped form).
    hostname: hostIsAddress ? target.address : urlHost,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: outgoingHeaders,
    agent: false,
    lookup: pinnedLookup(target.address, target.family),
    // SNI carries host names only, never addresses (RFC 6066).
    ...(hostIsAddress ? {} : { servername: urlHost }),
  };
  if (url.protocol === 'https:') return https.request(options);
  if (url.protocol === 'http:') return http.request(options);
  throw new Error(`cannot deliver to a ${url.protocol} URL`);
}

/** A lookup that answers the checked address for any name, in either of the shapes net asks for. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

const TLS_ERROR_CODES = /^ERR_(TLS|SSL)_|CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)|^EPROTO$/;

function isTlsError(error: unknown): boolean {
  const { code, library } = error as { code?: unknown; library?: unknown };
  return typeof library === 'string' || (typeof code === 'string' && TLS_ERROR_CODES.test(code));
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
