import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually, GiveUp } from './eventually.js';

/**
 * A redis-server of a suite's own, for what the shared Redis on 6379 (used by other suites in parallel)
 * cannot give: stopping and starting it, or server-wide figures (INFO commandstats) no other suite adds to.
 */

export function onPath(binary: string): string | null {
  const directories = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const directory of directories) {
    const candidate = join(directory, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export const redisServerBinary = onPath('redis-server');

/** True when a Redis answers PING on the port within a short deadline. */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** One redis-server child on a fixed loopback port, without persistence, that can be stopped and started again. */
export class OwnRedis {
  private child: ChildProcess | null = null;
  private output = '';
  private readonly dir = mkdtempSync(join(tmpdir(), 'own-redis-'));

  constructor(
    private readonly binary: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      this.binary,
      ['--save', '', '--appendonly', 'no', '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stdout!.on('data', (data) => (this.output += data));
    child.stderr!.on('data', (data) => (this.output += data));
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    try {
      await eventually('redis-server to answer PING', async () => {
        if (this.child !== child) throw new GiveUp(`redis-server exited at start:\n${this.output}`);
        return answersPing(this.port);
      });
    } catch (error) {
      this.kill();
      throw error;
    }
  }

  /** SIGTERM, then waits for the process to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** For afterAll: whatever state the test left it in. */
  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  dispose(): void {
    this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Reads one hash field with a short-lived client of the test's own. */
  async hget(key: string, field: string): Promise<string | null> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      return await client.hget(key, field);
    } finally {
      client.disconnect();
    }
  }
}
