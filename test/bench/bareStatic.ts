/**
 * The benchmark's baseline for (f): a bare express.static serving one folder (the cached derivative's bytes,
 * under the same file name), with the same caching headers the service sends for an image address. Run as its
 * own process by api.bench.ts with the folder as its argument; prints `listening <port>` once it accepts
 * requests.
 */
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

const folder = process.argv[2];
if (!folder) {
  process.stderr.write('usage: bareStatic.ts <folder>\n');
  process.exit(2);
}

const app = express();
app.use(express.static(folder, { immutable: true, maxAge: '1y' }));

const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
