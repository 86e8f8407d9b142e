import { once } from 'node:events';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookEvent } from '../../src/webhooks/receiver/verifyWebhook.js';

/** One request a receiver got, as it got it. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  /** What the receiver answered. */
  answered: ReceiverAnswer;
  /** The receiver's clock when it arrived (ms), which its verification checks the timestamp against. */
  receivedAtMs: number;
}

/** What the receiver answers to a delivery: a status, or `hang` (never answer; the socket stays open). */
export type ReceiverAnswer = number | 'hang';

/**
 * A real webhook receiver on 127.0.0.1 and a random port (WEBHOOK_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 lets the
 * service deliver to it over http). `answer` decides each reply; every request is kept, raw.
 */
export interface LoopbackReceiver {
  url: string;
  received: ReceivedDelivery[];
  answer: (delivery: ReceivedDelivery) => ReceiverAnswer;
  /** Verifies every delivery received so far with the receiver-side verifier, as of its arrival; the events in order. */
  verified(secrets: string | readonly string[]): WebhookEvent[];
  close(): Promise<void>;
}

export async function startLoopbackReceiver(
  answer: (delivery: ReceivedDelivery) => ReceiverAnswer = () => 204,
  clock: () => number = Date.now,
): Promise<LoopbackReceiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: LoopbackReceiver = {
    url: '',
    received: [],
    answer,
    verified(secrets) {
      return receiver.received.map((delivery) =>
        verifyWebhook(delivery.body, delivery.headers, secrets, { now: () => delivery.receivedAtMs }),
      );
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery: ReceivedDelivery = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        answered: 204,
        receivedAtMs: clock(),
      };
      const reply = receiver.answer(delivery);
      delivery.answered = reply;
      receiver.received.push(delivery);
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(reply).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
