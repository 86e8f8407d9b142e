import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import tls from 'node:tls';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverAttempt, type DeliveryRequest } from '../../workers/webhooks/deliverAttempt.js';

const PUBLIC_ADDRESS = '93.184.215.14';
const BODY = '{"id":"evt_1","type":"project.updated","created_at":"2026-01-01T00:00:00.000Z","data":{"name":"Résidence"}}';

/** A delivery request with sensible defaults: to `url`, pinned to `address`. */
function deliveryTo(url: string, address = PUBLIC_ADDRESS, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    target: { url: new URL(url), address, family: address.includes(':') ? 6 : 4 },
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'PropertyCatalogue-Webhooks/1',
      'X-Service-Event': 'project.updated',
      'X-Service-Event-Id': 'evt_1',
    },
    body: BODY,
    timeoutMs: 5_000,
    maxResponseBytes: 1024,
    ...overrides,
  };
}

describe('deliverAttempt against a mocked receiver (nock)', () => {
  afterEach(() => {
    nock.cleanAll();
  });

  describe('when the receiver answers, then the status is reported as it is', () => {
    it.each([200, 204, 299, 400, 410, 500, 503])('status %i', async (status) => {
      nock('https://hooks.example.com').post('/catalogue').reply(status, 'noted');
      const result = await deliverAttempt(deliveryTo('https://hooks.example.com/catalogue'));
      expect(result).toEqual({ kind: 'answered', status, latencyMs: expect.any(Number), responseSnippet: status === 204 ? '' : 'noted' });
    });
  });

  it('when the receiver redirects, then the 3xx is the answer and the new location is not visited', async () => {
    const elsewhere = nock('https://hooks.example.com').post('/moved').reply(200);
    nock('https://hooks.example.com').post('/catalogue').reply(301, '', { Location: 'https://hooks.example.com/moved' });
    const result = await deliverAttempt(deliveryTo('https://hooks.example.com/catalogue'));
    expect(result).toMatchObject({ kind: 'answered', status: 301 });
    expect(elsewhere.isDone()).toBe(false);
  });

  it('when sent, then the body is the exact bytes and the headers are the caller’s plus Host and Content-Length', async () => {
    let received: { body: string; headers: Record<string, unknown> } | undefined;
    nock('https://hooks.example.com:8443')
      .post('/in/catalogue?source=api')
      .reply(function (_uri, body) {
        received = { body: typeof body === 'string' ? body : JSON.stringify(body), headers: this.req.headers };
        return [202];
      });
    const request = deliveryTo('https://hooks.example.com:8443/in/catalogue?source=api');
    const result = await deliverAttempt({ ...request, headers: { ...request.headers, host: 'evil.example', 'Content-Length': '1' } });
    expect(result).toMatchObject({ kind: 'answered', status: 202 });
    expect(received?.body).toBe(BODY);
    expect(received?.headers).toMatchObject({
      host: 'hooks.example.com:8443',
      'content-length': String(Buffer.byteLength(BODY)),
      'content-type': 'application/json',
      'user-agent': 'PropertyCatalogue-Webhooks/1',
      'x-service-event': 'project.updated',
      'x-service-event-id': 'evt_1',
    });
  });

  it('when the answer is longer than the cap, then only the cap is kept', async () => {
    nock('https://hooks.example.com').post('/catalogue').reply(500, 'x'.repeat(5000));
    const result = await deliverAttempt({ ...deliveryTo('https://hooks.example.com/catalogue'), maxResponseBytes: 100 });
    expect(result).toMatchObject({ kind: 'answered', status: 500, responseSnippet: 'x'.repeat(100) });
  });

  describe('when the request fails, then it is a failed result, never a throw', () => {
    it.each([
      ['ECONNRESET', 'connection'],
      ['ECONNREFUSED', 'connection'],
      ['EHOSTUNREACH', 'connection'],
      ['CERT_HAS_EXPIRED', 'tls'],
      ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ])('%s: %s', async (code, kind) => {
      nock('https://hooks.example.com')
        .post('/catalogue')
        .replyWithError(Object.assign(new Error(`${code} from the test`), { code }));
      const result = await deliverAttempt(deliveryTo('https://hooks.example.com/catalogue'));
      expect(result).toEqual({ kind: 'failed', error: kind, message: expect.stringContaining(code), latencyMs: expect.any(Number) });
    });
  });

  it('when the answer takes longer than the timeout, then the attempt fails as a timeout', async () => {
    nock('https://hooks.example.com').post('/catalogue').delay(2_000).reply(200);
    const result = await deliverAttempt({ ...deliveryTo('https://hooks.example.com/catalogue'), timeoutMs: 100 });
    expect(result).toMatchObject({ kind: 'failed', error: 'timeout', message: 'no answer within 100 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(95);
    expect(result.latencyMs).toBeLessThan(1_500);
  });

  it('when the signal is already aborted, then nothing is sent', async () => {
    const receiver = nock('https://hooks.example.com').post('/catalogue').reply(200);
    const result = await deliverAttempt({ ...deliveryTo('https://hooks.example.com/catalogue'), signal: AbortSignal.abort() });
    expect(result).toMatchObject({ kind: 'failed', error: 'aborted' });
    expect(receiver.isDone()).toBe(false);
  });
});

/** Resolves when the socket has closed (`once` would reject on the ECONNRESET a cut connection may bring). */
const closed = (socket: Socket): Promise<void> =>
  socket.destroyed ? Promise.resolve() : new Promise((done) => socket.once('close', () => done()));

/** A loopback receiver; `handle` answers each request. */
async function receiver(
  handle: http.RequestListener,
  host = '127.0.0.1',
): Promise<{ port: number; requests: http.IncomingMessage[]; close: () => Promise<void> }> {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request);
    handle(request, response);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('deliverAttempt against a real loopback receiver', () => {
  // nock (test/support/setup.ts) would refuse receiver.test and stand between the client and the socket:
  // these cases need the real connection.
  beforeAll(() => nock.restore());
  afterAll(() => nock.activate());

  const servers: { close: () => Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const started = async (handle: http.RequestListener, host?: string) => {
    const server = await receiver(handle, host);
    servers.push(server);
    return server;
  };

  it('when the URL names a host that resolves elsewhere (or nowhere), then the request goes to the pinned address', async () => {
    const server = await started((request, response) => {
      response.end(`${request.headers.host} via ${request.socket.localAddress}`);
    }, '127.0.0.2');
    for (const host of ['receiver.test', 'localhost']) {
      const result = await deliverAttempt(deliveryTo(`http://${host}:${server.port}/hook`, '127.0.0.2'));
      expect(result).toMatchObject({ kind: 'answered', status: 200, responseSnippet: `${host}:${server.port} via 127.0.0.2` });
    }
  });

  it('when the receiver redirects, then the redirect is not followed', async () => {
    const server = await started((request, response) => {
      if (request.url === '/hook') response.writeHead(307, { Location: '/elsewhere' }).end();
      else response.end('followed');
    });
    const result = await deliverAttempt(deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'));
    expect(result).toMatchObject({ kind: 'answered', status: 307 });
    expect(server.requests.map((request) => request.url)).toEqual(['/hook']);
  });

  it('when the body is sent, then the receiver gets exactly the bytes', async () => {
    const bodies: string[] = [];
    const server = await started((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        response.writeHead(204).end();
      });
    });
    expect(await deliverAttempt(deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'))).toMatchObject({ status: 204 });
    expect(bodies).toEqual([BODY]);
  });

  it('when the receiver never answers, then the attempt times out and the connection is closed', async () => {
    const server = await started(() => {});
    const result = await deliverAttempt({ ...deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'), timeoutMs: 300 });
    expect(result).toMatchObject({ kind: 'failed', error: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(2_000);
    const [request] = server.requests;
    await closed(request!.socket);
  });

  it('when the receiver sends a huge answer, then reading stops at the cap and the connection is cut', async () => {
    let sentBytes = 0;
    let finished = false;
    const server = await started((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'y');
      const pump = () => {
        while (sentBytes < 1024 ** 3 && !response.destroyed) {
          sentBytes += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        if (!response.destroyed) response.end(() => (finished = true));
      };
      pump();
    });
    const result = await deliverAttempt({ ...deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'), maxResponseBytes: 1000 });
    expect(result).toMatchObject({ kind: 'answered', status: 200, responseSnippet: 'y'.repeat(1000) });
    const [request] = server.requests;
    await closed(request!.socket);
    expect(finished).toBe(false);
    expect(sentBytes).toBeLessThan(1024 ** 3);
  });

  it('when nothing listens on the port, then the attempt fails as a connection error', async () => {
    const server = await receiver(() => {});
    await server.close();
    const result = await deliverAttempt(deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'));
    expect(result).toMatchObject({ kind: 'failed', error: 'connection', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('when https meets a receiver speaking plain http, then the attempt fails as a TLS error', async () => {
    const server = await started((_request, response) => response.end('plain'));
    const result = await deliverAttempt(deliveryTo(`https://receiver.test:${server.port}/hook`, '127.0.0.1'));
    expect(result).toMatchObject({ kind: 'failed', error: 'tls' });
  });

  it('when the receiver speaks TLS, then the URL’s host name is sent as SNI and its certificate is verified', async () => {
    const serverNames: string[] = [];
    const server = tls.createServer({
      key: TEST_KEY,
      cert: TEST_CERTIFICATE,
      SNICallback: (serverName, callback) => {
        serverNames.push(serverName);
        callback(null, tls.createSecureContext({ key: TEST_KEY, cert: TEST_CERTIFICATE }));
      },
    });
    server.on('tlsClientError', () => {});
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push({ close: async () => void (await new Promise((done) => server.close(done))) });
    const { port } = server.address() as AddressInfo;
    const result = await deliverAttempt(deliveryTo(`https://receiver.test:${port}/hook`, '127.0.0.1'));
    // The certificate is self-signed: a receiver must present one the public trust store accepts.
    expect(result).toMatchObject({ kind: 'failed', error: 'tls', message: expect.stringContaining('SELF_SIGNED') });
    expect(serverNames).toEqual(['receiver.test']);
  });

  it('when the signal aborts an attempt in flight, then it fails as aborted at once', async () => {
    const server = await started(() => {});
    const controller = new AbortController();
    const attempt = deliverAttempt({ ...deliveryTo(`http://127.0.0.1:${server.port}/hook`, '127.0.0.1'), signal: controller.signal });
    while (server.requests.length === 0) await new Promise((wait) => setTimeout(wait, 10));
    controller.abort();
    expect(await attempt).toMatchObject({ kind: 'failed', error: 'aborted' });
  });

  it('when receivers hang, then an attempt to another receiver is answered without waiting for them', async () => {
    const hanging = await started(() => {});
    const prompt = await started((_request, response) => response.writeHead(204).end());
    const stuck = Array.from({ length: 20 }, () =>
      deliverAttempt({ ...deliveryTo(`http://127.0.0.1:${hanging.port}/hook`, '127.0.0.1'), timeoutMs: 3_000 }),
    );
    const result = await deliverAttempt(deliveryTo(`http://127.0.0.1:${prompt.port}/hook`, '127.0.0.1'));
    expect(result).toMatchObject({ kind: 'answered', status: 204 });
    expect(result.latencyMs).toBeLessThan(1_000);
    await hanging.close();
    expect(new Set((await Promise.all(stuck)).map((outcome) => outcome.kind))).toEqual(new Set(['failed']));
  });
});

// A self-signed certificate for receiver.test (EC P-256, valid until 2126), made for this test only.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2W9qDGk9dZhfcgVP
WmsuhJ/gS/RgXHlGVc4cDTiYvFKhRANCAAQHCfy1AsvrFhN/M7WG32b3PVV9HBIU
T+8yHf0cu2PkZelNXDDRXvaaIAhVq1BE/MMP9A7K2GJKjgDhaT5JN3JC
-----END PRIVATE KEY-----
`;
const TEST_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBoTCCAUegAwIBAgIUTIyXCGay+UvKEx4gMShdSDqqkDAwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDAgFw0yNjExMjcwOTQ5NDFaGA8yMTI2
MTEwMzA5NDk0MVowGDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABAcJ/LUCy+sWE38ztYbfZvc9VX0cEhRP7zId/Ry7Y+Rl
6U1cMNFe9pogCFWrUET8ww/0DsrYYkqOAOFpPkk3ckKjbTBrMB0GA1UdDgQWBBTd
eBbHp00EE1kcTcksfggcsY4X0DAfBgNVHSMEGDAWgBTdeBbHp00EE1kcTcksfggc
sY4X0DAPBgNVHRMBAf8EBTADAQH/MBgGA1UdEQQRMA+CDXJlY2VpdmVyLnRlc3Qw
CgYIKoZIzj0EAwIDSAAwRQIgNiQJIqZCjWHqxSGx5xplosYMYH3nvuxriEHSsB5r
SCgCIQCXuvTxb6uGLPGxb9Kd4rrct6RBDsU0oq8qNMngEJXjCA==
-----END CERTIFICATE-----
`;
