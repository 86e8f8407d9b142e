import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { checkpointNameOf, type Projection } from '../../src/projectionEngine/projection.js';
import type { ProjectorLease } from '../../src/projectionEngine/projectorLease.js';
import { startProjector, type Projector, type ProjectorOptions } from '../../src/projectionEngine/runtime.js';
import { createSqliteProjectorLease } from '../../src/projectionEngine/sqliteProjectorLease.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { StaleFencingTokenError, type ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import { capturingLogger, recordingWrites, silentLogger, type LogLine } from '../support/projectionHarness.js';

/*
 * Projectors in one process standing in for projector processes: they share the event store, the read store
 * and a lease file (each through its own lease store, so each is another holder). The lease clock is the
 * test's, so that a lease expires when the test says.
 */

const TTL_MS = 10_000;
const COUNTS = 'event_counts';

/**
 * Counts the events it applies, on purpose without an idempotency guard: an event applied by two projectors,
 * or twice by one, shows up in the count.
 */
const eventCounter: Projection = {
  name: 'eventCounter',
  version: 1,
  collections: [COUNTS],
  indexes: {},
  handles: ['ProjectCreated', 'ProjectRevised'],
  async apply(_event, ctx) {
    const current = await ctx.get<{ _id: string; applied: number }>(COUNTS, 'all');
    ctx.put(COUNTS, { _id: 'all', applied: (current?.applied ?? 0) + 1 });
  },
};

const revision = (minutes: number) => projectEvent('ProjectRevised', 1, { changes: { name: `Name ${minutes}` } }, minute(minutes));

const dir = mkdtempSync(join(tmpdir(), 'leased-projector-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileSequence = 0;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  eventStore: EventStore;
  readStore: ReadStore;
  clock: { nowMs: number };
  /** Another holder on the shared lease file. */
  newLease(): ProjectorLease;
}

function setup(): Setup {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore();
  const clock = { nowMs: Date.UTC(2025, 0, 1) };
  const file = join(dir, `leases-${++fileSequence}.sqlite`);
  cleanups.push(
    () => eventStore.close(),
    () => readStore.close(),
  );
  return {
    eventStore,
    readStore,
    clock,
    newLease: () => {
      const lease = createSqliteProjectorLease({ file, ttlMs: TTL_MS, now: () => clock.nowMs });
      cleanups.push(() => lease.close());
      return lease;
    },
  };
}

async function started(options: ProjectorOptions): Promise<Projector> {
  const projector = await startProjector(options);
  cleanups.push(() => projector.stop());
  return projector;
}

const messages = (lines: readonly LogLine[]) => lines.map((line) => line.msg);
const appliedCount = async (readStore: ReadStore) => (await readStore.get<{ _id: string; applied: number }>(COUNTS, 'all'))?.applied;

describe('leased projector', () => {
  it('when two projectors start on one lease, then only the first projects; the second stands by and still sees positions reached', async () => {
    const { eventStore, readStore, newLease } = setup();
    const first = capturingLogger();
    const second = capturingLogger();
    const secondWrites = recordingWrites(readStore);
    const active = await started({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: first.logger,
      lease: { store: newLease() },
    });
    const standby = await started({
      eventStore,
      readStore: secondWrites.readStore,
      projections: [eventCounter],
      logger: second.logger,
      lease: { store: newLease(), retryIntervalMs: 20 },
    });

    const head = await appendEvents(eventStore, [projectCreated(1), revision(1), revision(2)]);
    await active.waitForPosition(head, 5_000);
    await standby.waitForPosition(head, 5_000);

    expect(await appliedCount(readStore)).toBe(3);
    expect(secondWrites.writes).toEqual([]);
    expect(messages(first.lines)).toContain('lease acquired');
    expect(first.lines.find((line) => line.msg === 'lease acquired')).toMatchObject({ projection: 'eventCounter', lease: 'eventCounter' });
    expect(messages(second.lines)).toContain('standby: another process holds the lease');
    expect(messages(second.lines)).not.toContain('lease acquired');
  });

  it('when the active projector stops, then the standby takes over from the checkpoint and applies each later event once', async () => {
    const { eventStore, readStore, newLease } = setup();
    const second = capturingLogger();
    const active = await startProjector({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: silentLogger(),
      lease: { store: newLease() },
    });
    const standby = await started({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: second.logger,
      lease: { store: newLease(), retryIntervalMs: 20 },
    });
    const before = await appendEvents(eventStore, [projectCreated(1), revision(1)]);
    await active.waitForPosition(before, 5_000);

    await active.stop();
    const after = await appendEvents(eventStore, [revision(2), revision(3), revision(4)]);

    await standby.waitForPosition(after, 5_000);
    expect(await appliedCount(readStore)).toBe(5);
    expect(messages(second.lines)).toContain('lease acquired');
  });

  it('when the lease expires and its renewal is refused, then the projection stops at once and another projector takes over', async () => {
    const { eventStore, readStore, clock, newLease } = setup();
    const first = capturingLogger();
    const active = await started({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: first.logger,
      lease: { store: newLease(), renewIntervalMs: 20 },
    });
    const successor = await started({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: silentLogger(),
      lease: { store: newLease(), retryIntervalMs: 20 },
    });
    const before = await appendEvents(eventStore, [projectCreated(1)]);
    await active.waitForPosition(before, 5_000);

    clock.nowMs += TTL_MS + 1;

    const lost = await eventually('the lease lost', () => first.lines.find((line) => line.msg === 'lease lost; its work stopped'));
    expect(lost).toMatchObject({ lease: 'eventCounter', reason: expect.stringMatching(/renewal was refused/) });
    const after = await appendEvents(eventStore, [revision(1), revision(2)]);
    await successor.waitForPosition(after, 5_000);
    expect(await appliedCount(readStore)).toBe(3);
  });

  it('when an old leader paused mid-batch past its lease resumes after the new leader wrote, then its write is refused and it stands by', async () => {
    const { eventStore, readStore, clock, newLease } = setup();
    const old = capturingLogger();
    let resume: () => void = () => undefined;
    let paused: Promise<void> | null = null;
    const pausable: ReadStore = {
      ...readStore,
      async write(ops, checkpoints) {
        if (paused) await paused;
        return readStore.write(ops, checkpoints);
      },
    };
    // Renewals never come: the old leader is paused (a stop-the-world pause, SIGSTOP) as far as its lease goes.
    const oldLeader = await started({
      eventStore,
      readStore: pausable,
      projections: [eventCounter],
      logger: old.logger,
      lease: { store: newLease(), renewIntervalMs: 2 ** 30 },
    });
    const newLeader = await started({
      eventStore,
      readStore,
      projections: [eventCounter],
      logger: silentLogger(),
      lease: { store: newLease(), retryIntervalMs: 20 },
    });
    const before = await appendEvents(eventStore, [projectCreated(1), revision(1)]);
    await oldLeader.waitForPosition(before, 5_000);

    paused = new Promise((resolve) => (resume = resolve));
    const held = await appendEvents(eventStore, [revision(2)]);
    clock.nowMs += TTL_MS + 1;
    await newLeader.waitForPosition(held, 5_000);
    resume();

    const lost = await eventually('the old leader fenced off', () => old.lines.find((line) => line.msg === 'lease lost; its work stopped'));
    expect(lost).toMatchObject({ reason: expect.stringMatching(/read store refused the checkpoint/) });
    const after = await appendEvents(eventStore, [revision(3)]);
    await newLeader.waitForPosition(after, 5_000);
    expect(await appliedCount(readStore)).toBe(4);
  });

  it('when the read model was built by an earlier projection version, then the holder rebuilds it and the promoted checkpoint carries its token', async () => {
    const { eventStore, readStore, clock, newLease } = setup();
    const earlier: Projection = { ...eventCounter, version: 1 };
    const current: Projection = { ...eventCounter, version: 2 };
    const head = await appendEvents(eventStore, [projectCreated(1), revision(1)]);
    const first = await startProjector({ eventStore, readStore, projections: [earlier], logger: silentLogger() });
    await first.waitForPosition(head, 5_000);
    await first.stop();
    const { logger, lines } = capturingLogger();

    await started({ eventStore, readStore, projections: [current], logger, lease: { store: newLease() } });

    expect(messages(lines)).toContain('read models rebuilt');
    expect(await readStore.getCheckpoint(checkpointNameOf(current))).toBe(head);
    // The first token of a fresh lease file is its clock.
    await expect(
      readStore.write([], [{ name: checkpointNameOf(current), position: head, fencingToken: clock.nowMs - 1 }]),
    ).rejects.toBeInstanceOf(StaleFencingTokenError);
  });
});
