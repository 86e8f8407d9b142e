import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFeedProjection, PROJECT_CHANGES, type ProjectChangeDoc } from '../../projections/changeFeed.js';
import { allProjections } from '../../projections/index.js';
import { createEventStore } from '../../src/eventStore/createEventStore.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { createReadStore } from '../../src/readStore/createReadStore.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, minute, projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import { NPM_START_PATIENCE_MS } from '../support/npmStart.js';
import { killRoleProcess, logged, startRoleProcess, type RoleProcess } from '../support/roleProcess.js';

/*
 * Two `npm start -- --role projector` processes on one embedded DATA_DIR, as an operator runs an active
 * projector and a standby, with the lease in DATA_DIR/leases.sqlite and, when REDIS_URL is set, in Redis.
 * Events are appended straight to the event store file, as an API process would. Shown: only one projects;
 * a paused leader (SIGSTOP) loses its leases to the standby and, resumed, is fenced off and stands by; a
 * kill -9 of the active one is taken over within 15 s (the default 10 s lease); the read models catch up
 * with each event once.
 */

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.warn('Projector failover on the Redis lease skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379); the SQLite lease runs.');
}

/** README: Projector lease. */
const TAKEOVER_BOUND_MS = 15_000;
const PROJECTIONS = allProjections.length;
const CHECKPOINTS = allProjections.map(checkpointNameOf);

const LEASE_ACQUIRED = 'lease acquired';
const STANDBY = 'standby: another process holds the lease';
const LEASE_LOST = 'lease lost; its work stopped';

interface LeaseBackend {
  name: string;
  env: Record<string, string>;
  runs: boolean;
  /** Removes what the run left in the backend. */
  cleanUp(): Promise<void>;
}

const redisPrefix = `projector-failover-${randomBytes(4).toString('hex')}`;
const backends: LeaseBackend[] = [
  { name: 'the SQLite lease in DATA_DIR', env: {}, runs: true, cleanUp: async () => undefined },
  {
    name: 'the Redis lease',
    env: { REDIS_URL: redisUrl ?? '', JOB_QUEUE_PREFIX: redisPrefix },
    runs: redisUrl !== undefined,
    async cleanUp() {
      const redis = new Redis(redisUrl!);
      try {
        const keys = await redis.keys(`${redisPrefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    },
  },
];

let revisionMinute = 0;
const revisions = (projectId: number, count: number) =>
  Array.from({ length: count }, () => {
    revisionMinute += 1;
    return projectEvent('ProjectRevised', projectId, { changes: { name: `Name ${revisionMinute}` } }, minute(revisionMinute));
  });

for (const backend of backends) {
  describe.skipIf(!backend.runs)(`projector failover on ${backend.name}`, () => {
    let dataDir: string;
    let eventStore: EventStore;
    let readStore: ReadStore;
    const processes: RoleProcess[] = [];
    let first: RoleProcess;
    let second: RoleProcess;
    let firstHead: bigint;

    const startProjector = async (label: string) => {
      const started = await startRoleProcess(dataDir, 'projector', {
        env: { ...backend.env, LOG_LEVEL: 'info' },
        startedMessage: 'projector started',
        label,
      });
      processes.push(started);
      return started;
    };
    const count = (started: RoleProcess, message: string) => logged(started, message).length;

    /** Every projection's stored checkpoint is at `position` (none ever passes the head). */
    const caughtUpWith = (position: bigint) =>
      eventually(
        `every checkpoint at ${position}`,
        async () => {
          for (const name of CHECKPOINTS) if ((await readStore.getCheckpoint(name)) !== position) return false;
          return true;
        },
        { timeoutMs: NPM_START_PATIENCE_MS },
      );

    /** The change feed holds one entry per event it reports, exactly the log's: none lost, none twice. */
    const expectChangeFeedExact = async () => {
      const reported = (await eventStore.readAll({ maxCount: 100_000 })).filter((event) =>
        (changeFeedProjection.handles as readonly string[]).includes(event.type),
      );
      const { items, total } = await readStore.find<ProjectChangeDoc>(PROJECT_CHANGES, { sort: [['position', 1]] });
      expect(total).toBe(reported.length);
      expect(items.map((entry) => [entry.position, entry.event_type])).toEqual(
        reported.map((event) => [Number(event.position), event.type]),
      );
    };

    /** When `started` had taken every lease since its `before`-th acquisition: the time of the last, ms since the epoch. */
    const tookEveryLease = (started: RoleProcess, before: number) =>
      eventually(
        'the standby to take every projection lease',
        () => {
          const acquired = logged(started, LEASE_ACQUIRED).slice(before);
          return acquired.length >= PROJECTIONS && Math.max(...acquired.map((record) => record.time as number));
        },
        { timeoutMs: NPM_START_PATIENCE_MS },
      );

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'projector-failover-'));
      eventStore = createEventStore({ dataDir });
      readStore = createReadStore({ dataDir });
      await appendEvents(eventStore, referenceCatalogue());
      first = await startProjector('projector 1');
      second = await startProjector('projector 2');
      firstHead = await appendEvents(eventStore, [projectCreated(1), projectCreated(2), ...revisions(1, 3)]);
      await caughtUpWith(firstHead);
    }, NPM_START_PATIENCE_MS * 2);

    afterAll(async () => {
      for (const started of processes) killRoleProcess(started);
      await eventStore?.close();
      await readStore?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await backend.cleanUp();
    });

    it('when two projectors run, then the first holds every projection lease and projects; the second stands by for each', async () => {
      expect(count(first, LEASE_ACQUIRED)).toBe(PROJECTIONS);
      expect(count(first, STANDBY)).toBe(0);
      expect(count(second, LEASE_ACQUIRED)).toBe(0);
      expect(count(second, STANDBY)).toBe(PROJECTIONS);
      expect(new Set(logged(second, STANDBY).map((record) => record.lease))).toEqual(new Set(CHECKPOINTS));
      await expectChangeFeedExact();
    });

    it(
      'when the active projector is paused past its lease, then the standby takes over; resumed, the old one is fenced off and stands by',
      async () => {
        const pausedAt = Date.now();
        process.kill(first.servicePid(), 'SIGSTOP');
        try {
          const whilePaused = await appendEvents(eventStore, [projectCreated(3), ...revisions(3, 2)]);
          const tookOver = await tookEveryLease(second, 0);
          expect(tookOver - pausedAt).toBeLessThan(TAKEOVER_BOUND_MS);
          await caughtUpWith(whilePaused);
        } finally {
          process.kill(first.servicePid(), 'SIGCONT');
        }

        await eventually('the resumed projector to lose every lease', () => count(first, LEASE_LOST) >= PROJECTIONS, {
          timeoutMs: NPM_START_PATIENCE_MS,
        });
        await eventually('the resumed projector to stand by again', () => count(first, STANDBY) >= PROJECTIONS, {
          timeoutMs: NPM_START_PATIENCE_MS,
        });
        const afterResume = await appendEvents(eventStore, revisions(2, 3));
        await caughtUpWith(afterResume);
        expect(count(first, LEASE_ACQUIRED)).toBe(PROJECTIONS);
        await expectChangeFeedExact();
      },
      NPM_START_PATIENCE_MS * 2,
    );

    it(
      'when the active projector is killed with kill -9, then the standby takes over within 15 s and the read models catch up with each event once',
      async () => {
        const acquiredBefore = count(first, LEASE_ACQUIRED);
        const killedAt = Date.now();
        process.kill(second.servicePid(), 'SIGKILL');
        await second.exited;

        const whileDown = await appendEvents(eventStore, [projectCreated(4), ...revisions(4, 3), ...revisions(1, 2)]);
        const tookOver = await tookEveryLease(first, acquiredBefore);

        expect(tookOver - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);
        await caughtUpWith(whileDown);
        await expectChangeFeedExact();
        expect(first.child.exitCode, 'the projector that took over kept running').toBeNull();
      },
      NPM_START_PATIENCE_MS * 2,
    );
  });
}
