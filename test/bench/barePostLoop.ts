/**
 * The baseline of the webhook bench's (g): a raw fetch POST loop, in its own process, sending the bodies of
 * a JSON-lines file (each line `{ "url": ..., "body": ... }`) to their receiver with `concurrency` in flight,
 * each with the headers a delivery carries. Prints `done <milliseconds> <count> <non-2xx>` and exits.
 *
 * usage: tsx test/bench/barePostLoop.ts <file> <concurrency>
 */
import { readFileSync } from 'node:fs';

const [file, concurrencyText] = process.argv.slice(2);
if (!file || !concurrencyText) {
  process.stderr.write('usage: barePostLoop.ts <file> <concurrency>\n');
  process.exit(2);
}
const posts = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as { url: string; body: string });

let next = 0;
let refused = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrencyText) }, async () => {
    while (next < posts.length) {
      const post = posts[next++]!;
      const response = await fetch(post.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'bench-baseline',
          'x-service-event': 'project.updated',
          'x-service-event-id': 'evt_baseline',
          'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
          'x-service-signature': `v1=${'0'.repeat(64)}`,
        },
        body: post.body,
        redirect: 'manual',
      });
      await response.arrayBuffer();
      if (response.status < 200 || response.status >= 300) refused += 1;
    }
  }),
);
process.stdout.write(`done ${performance.now() - started} ${posts.length} ${refused}\n`);
