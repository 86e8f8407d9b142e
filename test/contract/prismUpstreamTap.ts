import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A pass-through between Prism and the service that keeps what the service answered to each request Prism
 * forwarded, by the request's X-Request-Id. So a test compares Prism's answer with the service's own answer
 * to the very same request (a write is made once), and knows whether Prism forwarded a request at all.
 */

export interface UpstreamAnswer {
  method: string;
  /** The request target as it reached the service. */
  target: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface UpstreamTap {
  origin: string;
  /** Where requests go from now on (until then they are answered 502). */
  forwardTo(serviceOrigin: string): void;
  /** The service's answer to the request sent with this X-Request-Id, if one was forwarded. */
  answerTo(requestId: string): UpstreamAnswer | undefined;
  close(): Promise<void>;
}

async function bodyOf(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function startUpstreamTap(): Promise<UpstreamTap> {
  let service: URL | undefined;
  const answers = new Map<string, UpstreamAnswer>();
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      if (service === undefined) throw new Error('no service to forward to yet');
      const sent = await bodyOf(incoming);
      const { host: _host, ...headers } = incoming.headers;
      const forwarded = request({ host: service.hostname, port: service.port, method: incoming.method, path: incoming.url, headers });
      forwarded.end(sent);
      const [answer] = (await once(forwarded, 'response')) as [IncomingMessage];
      const body = await bodyOf(answer);
      const requestId = incoming.headers['x-request-id'];
      if (typeof requestId === 'string') {
        answers.set(requestId, {
          method: incoming.method ?? 'GET',
          target: incoming.url ?? '/',
          status: answer.statusCode ?? 0,
          headers: answer.headers,
          body,
        });
      }
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(body);
    })().catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`the tap could not reach the service: ${String(error)}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    forwardTo: (serviceOrigin) => {
      service = new URL(serviceOrigin);
    },
    answerTo: (requestId) => answers.get(requestId),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
