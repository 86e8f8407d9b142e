/**
 * A consumer in a process of its own, for the tests of competing processes and of kill -9 mid-job. Run with
 * `node --import tsx test/jobQueue/consumerProcess.ts` and its settings as JSON in CONSUMER_SETTINGS. It
 * prints `loaded` once its queue is open, `ready` once consuming (after a `go` line on stdin when
 * `waitForGo`), and `started <id> <attempt>` as each job starts.
 *
 * mode `hang`: every job runs until the process is killed. mode `record`: each run marks its job running in
 * the shared `recordFile` (a run that finds it already marked records an overlap), works `workMs`, then
 * records the job done.
 */
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createBullmqJobQueue } from '../../src/jobQueue/bullmqJobQueue.js';
import type { Job, JobOutcome, JobQueue } from '../../src/jobQueue/jobQueue.js';
import { createSqliteJobQueue } from '../../src/jobQueue/sqliteJobQueue.js';

export interface ConsumerSettings {
  adapter: 'sqlite' | 'bullmq';
  queue: string;
  /** sqlite: the jobs file. */
  file?: string;
  /** bullmq: the server and key prefix. */
  redisUrl?: string;
  prefix?: string;
  leaseMs: number;
  concurrency: number;
  mode: 'hang' | 'record';
  recordFile?: string;
  workMs?: number;
  waitForGo?: boolean;
}

const settings = JSON.parse(process.env.CONSUMER_SETTINGS ?? '{}') as ConsumerSettings;
const queueSettings = { leaseMs: settings.leaseMs, completedRetentionMs: 3_600_000 };

const queue: JobQueue =
  settings.adapter === 'sqlite'
    ? createSqliteJobQueue({ ...queueSettings, file: settings.file!, queue: settings.queue, pollIntervalMs: 20 })
    : createBullmqJobQueue({ ...queueSettings, redisUrl: settings.redisUrl!, prefix: settings.prefix!, queue: settings.queue });

function recorder(file: string) {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS running (id TEXT PRIMARY KEY);
    CREATE TABLE IF NOT EXISTS overlaps (id TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS done (id TEXT NOT NULL, pid INTEGER NOT NULL);
  `);
  const markRunning = db.prepare<[string]>('INSERT INTO running (id) VALUES (?)');
  const recordOverlap = db.prepare<[string]>('INSERT INTO overlaps (id) VALUES (?)');
  const finish = db.transaction((id: string) => {
    db.prepare<[string]>('DELETE FROM running WHERE id = ?').run(id);
    db.prepare<[string, number]>('INSERT INTO done (id, pid) VALUES (?, ?)').run(id, process.pid);
  });
  return {
    start(id: string) {
      try {
        markRunning.run(id);
      } catch {
        recordOverlap.run(id);
      }
    },
    finish,
  };
}

const record = settings.mode === 'record' ? recorder(settings.recordFile!) : null;

async function handle(job: Job): Promise<JobOutcome> {
  process.stdout.write(`started ${job.id} ${job.attempt}\n`);
  if (!record) return new Promise<never>(() => {});
  record.start(job.id);
  await new Promise((resolve) => setTimeout(resolve, settings.workMs ?? 0));
  record.finish(job.id);
  return { status: 'completed' };
}

process.stdout.write('loaded\n');
if (settings.waitForGo) {
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
}
queue.consume(handle, { concurrency: settings.concurrency });
process.stdout.write('ready\n');
