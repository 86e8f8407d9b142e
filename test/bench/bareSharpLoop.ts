/**
 * The benchmark's baseline for (e): a plain sharp loop with nothing of the service around it, run as its own
 * process by api.bench.ts. It renders the 800 px derivative exactly as src/media/imageDerivatives.ts does
 * (auto-orient, resize to the width without enlarging, WebP at the service's quality, ICC profile kept), from
 * the master's file into memory, with sharp's default settings.
 *
 * Prints `ready`, then answers each line of stdin, `{"files": [...], "concurrency": N}`, once every file has
 * been rendered once with N renders in flight, with one line `{"seconds": S, "latencies": [ms, ...]}`:
 * the wall time of the batch and each render's time from its start to its output.
 */
import { createInterface } from 'node:readline';
import sharp from 'sharp';
import { WEBP_QUALITY } from '../../src/media/imageDerivatives.js';

interface Batch {
  files: string[];
  concurrency: number;
}

const WIDTH = 800;

async function render(file: string): Promise<void> {
  await sharp(file).rotate().resize({ width: WIDTH, withoutEnlargement: true }).keepIccProfile().webp({ quality: WEBP_QUALITY }).toBuffer();
}

async function run({ files, concurrency }: Batch): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      const started = performance.now();
      await render(file);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: (performance.now() - started) / 1000, latencies };
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await run(JSON.parse(line) as Batch))}\n`);
}
