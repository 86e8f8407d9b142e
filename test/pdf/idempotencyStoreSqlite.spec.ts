import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteIdempotencyStore } from '../../src/pdf/sqliteIdempotencyStore.js';
import { idempotencyStoreContract } from './idempotencyStoreContract.js';

const dir = mkdtempSync(join(tmpdir(), 'idempotency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileSequence = 0;

idempotencyStoreContract('SQLite', async (times) =>
  createSqliteIdempotencyStore({ ...times, file: join(dir, `keys-${++fileSequence}.sqlite`) }),
);

describe('SQLite idempotency store file', () => {
  it('when it is created, then only its owner may read it and a store opened on it again remembers the keys', async () => {
    const file = join(dir, 'data', 'idempotency.sqlite');
    const times = { retentionMs: 86_400_000, inFlightLeaseMs: 40_000 };
    const first = createSqliteIdempotencyStore<{ pages: number }>({ ...times, file });
    const reservation = await first.reserve(1, 'key', 'hash');
    if (reservation.status !== 'new') throw new Error('expected a new reservation');
    await first.complete(1, 'key', reservation.token, { pages: 3 });
    await first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const reopened = createSqliteIdempotencyStore<{ pages: number }>({ ...times, file });
    expect(await reopened.reserve(1, 'key', 'hash')).toEqual({ status: 'completed', result: { pages: 3 } });
    await reopened.close();
  });
});
