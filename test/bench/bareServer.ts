/**
 * The benchmark's baseline (a): a bare express app answering a small JSON body, with nothing of the service
 * in front of it. Run as its own process by api.bench.ts; prints `listening <port>` once it accepts requests.
 */
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

const app = express();
app.get('/bare', (_req, res) => {
  res.json({ data: { ok: true }, meta: { request_id: 'bench' } });
});

const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
