import type { Logger } from 'pino';
import type { LeaseGrant, ProjectorLease } from './projectorLease.js';

/** What a lease guards, once started: stopped when the lease is lost or given up. */
export interface LeasedWork {
  stop(): Promise<void>;
}

export interface LeaseSettings {
  store: ProjectorLease;
  /** How often a held lease is renewed; a third of its time to live by default. */
  renewIntervalMs?: number;
  /** How often a standby asks for the lease; a tenth of its time to live by default, so a takeover waits little past the expiry. */
  retryIntervalMs?: number;
}

export interface LeaseKeeperOptions extends LeaseSettings {
  name: string;
  logger: Logger;
  /**
   * Starts the work the lease guards; its checkpoint writes carry `grant.token`. `signal` aborts when the
   * lease is lost before the start finished (a rebuild stops then). The work calls `lose` when the read store
   * refused its token: another holder has written since, so this one must stop at once.
   */
  start(grant: LeaseGrant, signal: AbortSignal, lose: (reason: string) => void): Promise<LeasedWork>;
}

/** How long a standby whose start of the work failed (a rebuild, say) waits before it takes the lease again. */
const START_FAILURE_BACKOFF_MS = 30_000;

interface Holding {
  grant: LeaseGrant;
  renewals: NodeJS.Timeout;
  /** performance.now() when the store last confirmed the holding (asked at). */
  confirmedAt: number;
  abort: AbortController;
  work: LeasedWork | null;
  ended: boolean;
}

/**
 * Holds one lease for one piece of work: takes it when free, renews it while the work runs, stops the work
 * the moment the lease is lost (a renewal refused, none confirmed within the time to live, or the read store
 * refusing the work's token), and stands by meanwhile, asking again on an interval. Only one holder's work
 * runs at a time; should two overlap (a holder paused past its expiry), the fencing token stops the older.
 */
export class LeaseKeeper {
  private holding: Holding | null = null;
  private retries: NodeJS.Timeout | null = null;
  private retrying = false;
  private standbyLogged = false;
  /** A failed request for the lease is logged once per run of failures (a Redis outage would log one a second). */
  private askFailureLogged = false;
  private stopped = false;
  private readonly renewIntervalMs: number;
  private readonly retryIntervalMs: number;

  constructor(private readonly options: LeaseKeeperOptions) {
    const { ttlMs } = options.store;
    this.renewIntervalMs = options.renewIntervalMs ?? Math.max(1, Math.floor(ttlMs / 3));
    this.retryIntervalMs = options.retryIntervalMs ?? Math.max(1, Math.floor(ttlMs / 10));
  }

  get name(): string {
    return this.options.name;
  }

  /** Aborts when the lease held now is lost; null while none is held. */
  get signal(): AbortSignal | null {
    return this.holding?.abort.signal ?? null;
  }

  /** The lease is held and its work runs. */
  get active(): boolean {
    return this.holding?.work != null;
  }

  /** Takes the lease if it is free and starts renewing it; the work is started by startWork. Null otherwise. */
  async take(): Promise<LeaseGrant | null> {
    if (this.stopped) return null;
    if (this.holding) return this.holding.grant;
    const { store, logger, name } = this.options;
    const askedAt = performance.now();
    let grant: LeaseGrant | null;
    try {
      grant = await store.acquire(name);
    } catch (error) {
      if (!this.askFailureLogged) logger.warn({ err: error, lease: name }, 'could not ask for the lease; standing by');
      this.askFailureLogged = true;
      return null;
    }
    this.askFailureLogged = false;
    if (!grant) return null;
    if (this.stopped) {
      await store.release(grant).catch(() => undefined);
      return null;
    }
    const holding: Holding = {
      grant,
      renewals: setInterval(() => void this.renew(holding), this.renewIntervalMs),
      confirmedAt: askedAt,
      abort: new AbortController(),
      work: null,
      ended: false,
    };
    holding.renewals.unref();
    this.holding = holding;
    this.standbyLogged = false;
    logger.info({ lease: name, token: grant.token, holder: store.holder }, 'lease acquired');
    return grant;
  }

  /** Starts the work of the lease taken; a start that fails gives the lease up and rejects. */
  async startWork(): Promise<void> {
    const holding = this.holding;
    if (!holding || holding.work) return;
    try {
      const work = await this.options.start(holding.grant, holding.abort.signal, (reason) => void this.lose(holding, reason));
      if (holding.ended) {
        await work.stop();
        return;
      }
      holding.work = work;
    } catch (error) {
      // Lost meanwhile: already reported and standing by.
      if (holding.ended) return;
      await this.end(holding);
      throw error;
    }
  }

  /**
   * Asks for the lease on the interval (the first time after `afterMs`) until it is taken and its work
   * started, or the keeper stops.
   */
  standBy(afterMs = 0): void {
    if (this.stopped || this.retries || this.holding) return;
    if (!this.standbyLogged) {
      this.standbyLogged = true;
      this.options.logger.info({ lease: this.options.name, retryMs: this.retryIntervalMs }, 'standby: another process holds the lease');
    }
    const askOnInterval = () => {
      this.retries = setInterval(() => void this.retry(), this.retryIntervalMs);
      this.retries.unref();
    };
    if (afterMs <= 0) {
      askOnInterval();
      return;
    }
    this.retries = setTimeout(askOnInterval, afterMs);
    this.retries.unref();
  }

  /** Stops the work (if running) and gives the lease up, so that a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retries) clearInterval(this.retries);
    this.retries = null;
    if (this.holding) await this.end(this.holding);
  }

  private async retry(): Promise<void> {
    if (this.retrying || this.holding || this.stopped) return;
    this.retrying = true;
    try {
      if (!(await this.take())) return;
      if (this.retries) clearInterval(this.retries);
      this.retries = null;
      try {
        await this.startWork();
      } catch (error) {
        this.options.logger.error(
          { err: error, lease: this.options.name, retryInMs: START_FAILURE_BACKOFF_MS },
          'could not start the work of the lease; gave it up',
        );
        this.standBy(START_FAILURE_BACKOFF_MS);
      }
    } finally {
      this.retrying = false;
    }
  }

  private async renew(holding: Holding): Promise<void> {
    if (holding.ended) return;
    const askedAt = performance.now();
    try {
      if (await this.options.store.renew(holding.grant)) {
        holding.confirmedAt = askedAt;
        return;
      }
      await this.lose(holding, 'the renewal was refused: the lease expired or another process took it');
    } catch (error) {
      // Kept while the next renewal can still confirm it within the time to live.
      if (askedAt - holding.confirmedAt + this.renewIntervalMs < this.options.store.ttlMs) {
        this.options.logger.warn({ err: error, lease: this.options.name }, 'could not renew the lease; trying again');
        return;
      }
      await this.lose(holding, 'the lease could not be renewed within its time to live');
    }
  }

  private async lose(holding: Holding, reason: string): Promise<void> {
    if (holding.ended || holding !== this.holding) return;
    this.options.logger.warn({ lease: this.options.name, token: holding.grant.token, reason }, 'lease lost; its work stopped');
    await this.end(holding);
    this.standBy();
  }

  /** The work stops before the lease is released, so that no successor writes while it still does. */
  private async end(holding: Holding): Promise<void> {
    holding.ended = true;
    clearInterval(holding.renewals);
    holding.abort.abort();
    try {
      await holding.work?.stop();
    } catch (error) {
      this.options.logger.error({ err: error, lease: this.options.name }, 'the work of the lease failed to stop');
    }
    await this.options.store.release(holding.grant).catch(() => undefined);
    if (this.holding === holding) this.holding = null;
  }
}
