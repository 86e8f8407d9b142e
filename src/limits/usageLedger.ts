import { randomBytes } from 'node:crypto';
import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';
import type { Logger } from '../logger.js';
import type { ReadStore, WriteOp } from '../readStore/readStore.js';
import {
  dhakaDayOf,
  dhakaMonthKey,
  type Clock,
  type ConsumeRequest,
  type ConsumeResult,
  type Limits,
  type OveragePrice,
  type UsageFloor,
} from './limits.js';

/**
 * Durable usage: what the limiter counted, written to the read store so that daily and monthly usage
 * survives a restart of the service and the loss of Redis's counters, and so that overage can be invoiced.
 *
 * Each process writes only its own documents (one per client environment and month, named by its writer
 * id), so replicas never overwrite each other and a write is a plain idempotent put:
 *   - `month_used` and `days` are the highest totals the limiter reported to this writer. With Redis the
 *     limiter's totals are everyone's, so the durable figure is the highest over the writers' documents.
 *   - `overage` is the units this writer let through past the monthly allowance, per price: the invoiced
 *     figure is the sum over the writers' documents.
 * The `usage` collection is not a projection: replays leave it alone.
 */
export const USAGE_COLLECTION = 'usage';

export interface OverageLine extends OveragePrice {
  units: number;
}

export type UsageDoc = {
  _id: string;
  client_id: number;
  environment: KeyEnvironment;
  /** `YYYY-MM`, Asia/Dhaka. */
  month: string;
  writer: string;
  month_used: number;
  /** `YYYY-MM-DD` (Asia/Dhaka) to the day's units. */
  days: Record<string, number>;
  overage: OverageLine[];
  updated_at: string;
};

/** How often a process writes the usage it counted; at most this much is lost if the process dies. */
export const USAGE_FLUSH_INTERVAL_MS = 5_000;

const usageDocId = (clientId: number, environment: KeyEnvironment, month: string, writer: string) =>
  `${clientId}:${environment}:${month}:${writer}`;

/** One client environment's month as this process knows it. */
interface MonthUsage {
  clientId: number;
  environment: KeyEnvironment;
  month: string;
  monthUsed: number;
  days: Map<string, number>;
  /** This writer's own overage units, by `price currency`. */
  overage: Map<string, OverageLine>;
  /** Bumped on every change; the flush that wrote `flushedVersion` left the rest to the next one. */
  version: number;
  flushedVersion: number;
  /** The durable figures of every writer, read once per process and merged in. */
  durable: Promise<void> | null;
  /** Set once `durable` has been merged in. */
  loaded: boolean;
}

export interface UsageLedger {
  /**
   * The usage known for the client environment's day and month at `atMs`, read from the store on the first
   * call of each month and answered without waiting after that.
   */
  floor(clientId: number, environment: KeyEnvironment, atMs: number): UsageFloor | Promise<UsageFloor>;
  /** Notes what the limiter answered: its totals and, for an overage request, the units to invoice. */
  observe(clientId: number, environment: KeyEnvironment, result: ConsumeResult, overagePrice: OveragePrice | null): void;
  /** Writes whatever changed since the last flush. */
  flush(): Promise<void>;
  /** Stops the periodic flush and flushes once more. */
  close(): Promise<void>;
}

export function createUsageLedger(
  readStore: ReadStore,
  options: { logger: Logger; now?: Clock; flushIntervalMs?: number; writer?: string },
): UsageLedger {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const writer = options.writer ?? `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  const months = new Map<string, MonthUsage>();
  const indexes = readStore.ensureIndexes(USAGE_COLLECTION, [
    {
      keys: [
        ['client_id', 1],
        ['environment', 1],
        ['month', 1],
      ],
    },
  ]);
  let flushing: Promise<void> | null = null;
  let flushFailing = false;

  // The last month looked up: a busy client's requests find theirs without building its key.
  let lastUsage: MonthUsage | null = null;

  function monthUsage(clientId: number, environment: KeyEnvironment, month: string): MonthUsage {
    if (lastUsage !== null && lastUsage.clientId === clientId && lastUsage.environment === environment && lastUsage.month === month) {
      return lastUsage;
    }
    const key = `${clientId}:${environment}:${month}`;
    let usage = months.get(key);
    if (!usage) {
      usage = {
        clientId,
        environment,
        month,
        monthUsed: 0,
        days: new Map(),
        overage: new Map(),
        version: 0,
        flushedVersion: 0,
        durable: null,
        loaded: false,
      };
      months.set(key, usage);
    }
    lastUsage = usage;
    return usage;
  }

  const knownFloor = (usage: MonthUsage, dayKey: string): UsageFloor => ({
    dayKey,
    day: usage.days.get(dayKey) ?? 0,
    monthKey: usage.month,
    month: usage.monthUsed,
  });

  function raiseDay(usage: MonthUsage, day: string, used: number): boolean {
    if ((usage.days.get(day) ?? 0) >= used) return false;
    usage.days.set(day, used);
    return true;
  }

  async function loadDurable(usage: MonthUsage): Promise<void> {
    await indexes;
    const { items } = await readStore.find<UsageDoc>(USAGE_COLLECTION, {
      filter: { client_id: usage.clientId, environment: usage.environment, month: usage.month },
    });
    for (const doc of items) {
      usage.monthUsed = Math.max(usage.monthUsed, doc.month_used);
      for (const [day, used] of Object.entries(doc.days)) raiseDay(usage, day, used);
    }
  }

  async function flushOnce(): Promise<void> {
    const pending = [...months.values()].filter((usage) => usage.version !== usage.flushedVersion);
    if (pending.length === 0) return;
    const updatedAt = new Date(now()).toISOString();
    const written = pending.map((usage) => ({ usage, version: usage.version }));
    const ops: WriteOp[] = pending.map((usage) => {
      const doc: UsageDoc = {
        _id: usageDocId(usage.clientId, usage.environment, usage.month, writer),
        client_id: usage.clientId,
        environment: usage.environment,
        month: usage.month,
        writer,
        month_used: usage.monthUsed,
        days: Object.fromEntries(usage.days),
        overage: [...usage.overage.values()].map((line) => ({ ...line })),
        updated_at: updatedAt,
      };
      return { op: 'put', collection: USAGE_COLLECTION, doc };
    });
    await indexes;
    await readStore.write(ops);
    for (const { usage, version } of written) usage.flushedVersion = version;
    // A finished month no request of this process touches again needs no place in memory.
    const currentMonth = dhakaMonthKey(new Date(now()));
    for (const [key, usage] of months) {
      if (usage.month !== currentMonth && usage.version === usage.flushedVersion) {
        months.delete(key);
        if (lastUsage === usage) lastUsage = null;
      }
    }
  }

  function flush(): Promise<void> {
    flushing ??= flushOnce().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  const timer = setInterval(() => {
    flush().then(
      () => {
        if (flushFailing) logger.info({ component: 'usage' }, 'usage is written to the read store again');
        flushFailing = false;
      },
      (error: unknown) => {
        // Kept in memory and written by a later flush; logged once per outage, not every interval.
        if (!flushFailing) logger.warn({ component: 'usage', err: error }, 'usage could not be written to the read store; retrying');
        flushFailing = true;
      },
    );
  }, options.flushIntervalMs ?? USAGE_FLUSH_INTERVAL_MS);
  timer.unref();

  return {
    floor(clientId, environment, atMs) {
      const { dayKey, monthKey } = dhakaDayOf(atMs);
      const usage = monthUsage(clientId, environment, monthKey);
      if (usage.loaded) return knownFloor(usage, dayKey);
      usage.durable ??= loadDurable(usage).then(
        () => {
          usage.loaded = true;
        },
        (error: unknown) => {
          usage.durable = null;
          throw error;
        },
      );
      return usage.durable.then(() => knownFloor(usage, dayKey));
    },

    observe(clientId, environment, result, overagePrice) {
      // The day the limiter counted in: the one its daily reset ends (the same shared day as the consume's).
      const { dayKey, monthKey } = dhakaDayOf(result.daily.resetAt.getTime() - 1);
      const usage = monthUsage(clientId, environment, monthKey);
      let changed = raiseDay(usage, dayKey, result.daily.used);
      if (result.monthly.used > usage.monthUsed) {
        usage.monthUsed = result.monthly.used;
        changed = true;
      }
      if (result.allowed && result.overageUnits > 0 && overagePrice) {
        const priceKey = `${overagePrice.price_per_request} ${overagePrice.currency}`;
        const line = usage.overage.get(priceKey) ?? { ...overagePrice, units: 0 };
        line.units += result.overageUnits;
        usage.overage.set(priceKey, line);
        changed = true;
      }
      if (changed) usage.version += 1;
    },

    flush,

    async close() {
      clearInterval(timer);
      // A flush already under way may have started before the last requests: wait for it, then write those.
      await flushing?.catch(() => undefined);
      await flush();
    },
  };
}

/**
 * The limiter with durable usage: each consume starts from the usage known for the period (so a restarted
 * process or an emptied Redis continues from it) and reports what it counted to the ledger.
 */
export function withUsageLedger(limits: Limits, ledger: UsageLedger, now: Clock = Date.now): Limits {
  async function consumeObserved(request: ConsumeRequest, usageFloor: UsageFloor): Promise<ConsumeResult> {
    const result = await limits.consume({ ...request, usageFloor });
    ledger.observe(request.clientId, request.environment, result, request.policy.overage);
    return result;
  }

  return {
    consume(request) {
      const floor = ledger.floor(request.clientId, request.environment, now());
      return floor instanceof Promise ? floor.then((usageFloor) => consumeObserved(request, usageFloor)) : consumeObserved(request, floor);
    },
    async close() {
      await Promise.all([ledger.close(), limits.close()]);
    },
  };
}

/** Decimal places a price may have (planLimits.ts allows up to 6). */
const PRICE_SCALE = 6;

/** `units x price` exactly, as a decimal string: overage prices are fractions of a minor unit. */
export function overageAmount(pricePerRequest: string, units: number): string {
  const [whole, fraction = ''] = pricePerRequest.split('.');
  const scaled = BigInt(whole! + fraction.padEnd(PRICE_SCALE, '0')) * BigInt(units);
  const digits = scaled.toString().padStart(PRICE_SCALE + 1, '0');
  const integerPart = digits.slice(0, -PRICE_SCALE);
  const fractionPart = digits.slice(-PRICE_SCALE).replace(/0+$/, '').padEnd(2, '0');
  return `${integerPart}.${fractionPart}`;
}

export interface EnvironmentUsageReport {
  environment: KeyEnvironment;
  units: number;
  days: Array<{ date: string; units: number }>;
  overage_units: number;
  overage: Array<OverageLine & { amount: string }>;
}

export interface UsageReport {
  client_id: number;
  month: string;
  time_zone: 'Asia/Dhaka';
  environments: EnvironmentUsageReport[];
}

/**
 * A client's usage in one month from every writer's documents: units and days are the highest totals any
 * writer recorded, overage the sum of what each let through, per price. Environments without usage are
 * left out.
 */
export async function readUsageReport(readStore: ReadStore, clientId: number, month: string): Promise<UsageReport> {
  const { items } = await readStore.find<UsageDoc>(USAGE_COLLECTION, { filter: { client_id: clientId, month } });
  const environments: EnvironmentUsageReport[] = [];
  for (const environment of ['live', 'test'] as const) {
    const docs = items.filter((doc) => doc.environment === environment);
    if (docs.length === 0) continue;
    const days = new Map<string, number>();
    const overage = new Map<string, OverageLine>();
    let units = 0;
    for (const doc of docs) {
      units = Math.max(units, doc.month_used);
      for (const [day, used] of Object.entries(doc.days)) days.set(day, Math.max(days.get(day) ?? 0, used));
      for (const line of doc.overage) {
        const key = `${line.price_per_request} ${line.currency}`;
        const total = overage.get(key) ?? { price_per_request: line.price_per_request, currency: line.currency, units: 0 };
        total.units += line.units;
        overage.set(key, total);
      }
    }
    const overageLines = [...overage.values()].map((line) => ({ ...line, amount: overageAmount(line.price_per_request, line.units) }));
    environments.push({
      environment,
      units,
      days: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([date, dayUnits]) => ({ date, units: dayUnits })),
      overage_units: overageLines.reduce((sum, line) => sum + line.units, 0),
      overage: overageLines,
    });
  }
  return { client_id: clientId, month, time_zone: 'Asia/Dhaka', environments };
}
