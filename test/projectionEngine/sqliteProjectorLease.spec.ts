import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteProjectorLease } from '../../src/projectionEngine/sqliteProjectorLease.js';
import { projectorLeaseContract } from './projectorLeaseContract.js';

const dir = mkdtempSync(join(tmpdir(), 'projector-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

projectorLeaseContract('SQLite', async (ttlMs) => createSqliteProjectorLease({ file: join(dir, 'contract', 'leases.sqlite'), ttlMs }));

describe('SQLite projector lease', () => {
  const TTL_MS = 10_000;

  it('when the clock passes the time to live, then the lease is free: expiry follows the injected clock', async () => {
    const clock = { nowMs: Date.UTC(2025, 0, 1) };
    const file = join(dir, 'clock.sqlite');
    const first = createSqliteProjectorLease({ file, ttlMs: TTL_MS, now: () => clock.nowMs });
    const second = createSqliteProjectorLease({ file, ttlMs: TTL_MS, now: () => clock.nowMs });
    const grant = await first.acquire('projects');
    expect(grant).not.toBeNull();

    clock.nowMs += TTL_MS - 1;
    expect(await second.acquire('projects')).toBeNull();
    expect(await first.renew(grant!)).toBe(true);
    clock.nowMs += TTL_MS - 1;
    expect(await second.acquire('projects')).toBeNull();
    clock.nowMs += 1;
    const taken = await second.acquire('projects');

    expect(taken?.token).toBeGreaterThan(grant!.token);
    await Promise.all([first.close(), second.close()]);
  });

  it('when the lease file was lost, then tokens still exceed earlier ones, since they are never below the clock', async () => {
    const clock = { nowMs: Date.UTC(2025, 0, 1) };
    const before = createSqliteProjectorLease({ file: join(dir, 'lost-1.sqlite'), ttlMs: TTL_MS, now: () => clock.nowMs });
    const earlier = await before.acquire('projects');
    await before.close();

    clock.nowMs += 1;
    const after = createSqliteProjectorLease({ file: join(dir, 'lost-2.sqlite'), ttlMs: TTL_MS, now: () => clock.nowMs });
    const later = await after.acquire('projects');

    expect(earlier?.token).toBe(clock.nowMs - 1);
    expect(later?.token).toBeGreaterThan(earlier!.token);
    await after.close();
  });

  it('when the holding process on this host is gone (kill -9), then another takes the lease before it expires', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const file = join(dir, 'dead-holder.sqlite');
    const dead = createSqliteProjectorLease({ file, ttlMs: TTL_MS, holder: `${hostname()}:${child.pid}:0123456789ab` });
    const survivor = createSqliteProjectorLease({ file, ttlMs: TTL_MS });
    expect(await dead.acquire('projects')).not.toBeNull();
    expect(await survivor.acquire('projects')).toBeNull();

    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(await survivor.acquire('projects')).not.toBeNull();
    await Promise.all([dead.close(), survivor.close()]);
  });

  it('when a holder on another host holds the lease, then it counts as alive until it expires', async () => {
    const file = join(dir, 'other-host.sqlite');
    const remote = createSqliteProjectorLease({ file, ttlMs: TTL_MS, holder: `not-${hostname()}:1:0123456789ab` });
    const local = createSqliteProjectorLease({ file, ttlMs: TTL_MS });
    expect(await remote.acquire('projects')).not.toBeNull();

    expect(await local.acquire('projects')).toBeNull();
    await Promise.all([remote.close(), local.close()]);
  });

  it('when the file is created, then only its owner may read it', async () => {
    const file = join(dir, 'data', 'leases.sqlite');
    const store = createSqliteProjectorLease({ file, ttlMs: TTL_MS });
    await store.acquire('projects');
    await store.close();

    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
