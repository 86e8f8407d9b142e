import { setTimeout as sleep } from 'node:timers/promises';
import { ACCESS_CLIENTS, type AccessClientDoc } from '../../projections/access.js';
import { PROJECT_CHANGES, projectChangeId, type ProjectChangeDoc } from '../../projections/changeFeed.js';
import { COMMUNITIES, type CommunityDoc } from '../../projections/communities.js';
import { DEVELOPERS, type DeveloperDoc } from '../../projections/developers.js';
import { PROJECTS, type ProjectDoc } from '../../projections/projects.js';
import { STATES, type StateDoc } from '../../projections/states.js';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import {
  catalogueScopeOf,
  communityInScope,
  developerInScope,
  projectVisibleIn,
  type CatalogueScope,
  type ScopedAccess,
} from '../../queries/catalogueScope.js';
import { communityRepresentation, developerRepresentation, projectReferences, projectSummary } from '../../queries/representations.js';
import type { EventStore, RecordedEvent, Subscription } from '../../src/eventStore/eventStore.js';
import type { NewJob, JobQueue } from '../../src/jobQueue/jobQueue.js';
import type { Logger } from '../../src/logger.js';
import { LeaseKeeper, type LeaseSettings } from '../../src/projectionEngine/leaseKeeper.js';
import { positionNumber } from '../../src/projectionEngine/projection.js';
import { StaleFencingTokenError, type ReadStore } from '../../src/readStore/readStore.js';
import { webhookStream, type WebhookEventType } from '../../src/webhooks/webhook.js';
import { deliveryIdOf, publicEventIdOf, type WebhookDeliveryJob } from '../../src/webhooks/webhookDeliveries.js';
import { noticeOf, projectEventTypeFor, type CatalogueNotice, type ProjectChange } from './publicEvents.js';

/**
 * The dispatcher's own checkpoint in the read store's checkpoint table, beside the projections' and never
 * touched by them: a replay or a blue/green rebuild promotes the projections' checkpoints only, so it sends
 * nothing. Why there: it is durable and shared by every replica (MongoDB, or the embedded file), and writing
 * it costs no event in the log (a checkpoint stream in the event store would append an event per batch,
 * which every subscriber, this one included, would then read). Should the read store be lost altogether,
 * the dispatcher starts again at the head of the log, as on a first start: nothing is sent twice.
 */
export const WEBHOOK_DISPATCHER_CHECKPOINT = 'webhookDispatcher';

export interface WebhookDispatcherOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  queue: JobQueue;
  /** `{base_url}` of image addresses in `data` (ends in /v1). */
  publicBaseUrl: string;
  /**
   * Resolves once every read model has applied the log up to `position`: the body of an event is built from
   * the read models, so not before they show it (the projector's waitForPosition in process, else polling).
   */
  readModelsReached: (position: bigint) => Promise<void>;
  logger: Logger;
  batchSize?: number;
  /** Backoff after a failed batch: doubles from initialMs up to maxMs. */
  retry?: { initialMs?: number; maxMs?: number };
  /**
   * The lease named as the checkpoint: only the worker process holding it dispatches, the others stand by,
   * and its checkpoint writes carry the lease's fencing token (see src/projectionEngine/leaseKeeper.ts).
   * Without it, this dispatcher dispatches unguarded.
   */
  lease?: LeaseSettings;
}

export interface WebhookDispatcher {
  /** Resolves once the dispatcher has enqueued (and checkpointed) the log up to `position`. */
  waitForPosition(position: bigint, timeoutMs?: number): Promise<void>;
  /** Finishes the batch in flight and its checkpoint, then stops. */
  stop(): Promise<void>;
}

/** How often a standby dispatcher reads the checkpoint another process writes, for waitForPosition. */
const STANDBY_POLL_MS = 25;

/**
 * The event log is the outbox: each catalogue event after the checkpoint becomes, for every active webhook
 * subscribed to its public type whose client may see the record, one queued delivery with a deterministic
 * id (`{event_id}.{webhook_id}`); the queue ignores an id it already holds, so a crash between enqueue and
 * checkpoint only re-adds known ids. The checkpoint is written after the batch's jobs are added.
 *
 * With a lease, only one worker process dispatches at a time: the others stand by and take over when its
 * lease lapses (kill -9) or is released (a stop).
 */
export async function startWebhookDispatcher(options: WebhookDispatcherOptions): Promise<WebhookDispatcher> {
  const { lease, readStore, logger } = options;
  if (!lease) return startDispatching(options, null);
  let dispatching: WebhookDispatcher | null = null;
  const keeper = new LeaseKeeper({
    ...lease,
    name: WEBHOOK_DISPATCHER_CHECKPOINT,
    logger,
    start: async (grant, _signal, lose) => {
      const started = await startDispatching(options, { token: grant.token, refused: lose });
      dispatching = started;
      return {
        async stop() {
          if (dispatching === started) dispatching = null;
          await started.stop();
        },
      };
    },
  });
  if (await keeper.take()) await keeper.startWork();
  else keeper.standBy();
  return {
    async waitForPosition(position, timeoutMs = 10_000) {
      if (dispatching) return dispatching.waitForPosition(position, timeoutMs);
      // Dispatched elsewhere: its checkpoint tells.
      const giveUpAt = performance.now() + timeoutMs;
      for (;;) {
        const checkpoint = await readStore.getCheckpoint(WEBHOOK_DISPATCHER_CHECKPOINT);
        if (checkpoint !== null && checkpoint >= position) return;
        if (performance.now() >= giveUpAt)
          throw new Error(`The webhook dispatcher did not reach position ${position} within ${timeoutMs} ms.`);
        await sleep(STANDBY_POLL_MS);
      }
    },
    stop: () => keeper.stop(),
  };
}

/** A dispatcher's lease: its token goes with each checkpoint; a refusal of it ends the holding. */
interface DispatcherFencing {
  token: number;
  refused(reason: string): void;
}

async function startDispatching(options: WebhookDispatcherOptions, fencing: DispatcherFencing | null): Promise<WebhookDispatcher> {
  const { eventStore, readStore, logger } = options;
  const checkpointAt = (position: bigint) => ({
    name: WEBHOOK_DISPATCHER_CHECKPOINT,
    position,
    ...(fencing ? { fencingToken: fencing.token } : {}),
  });
  const retryInitialMs = options.retry?.initialMs ?? 250;
  const retryMaxMs = options.retry?.maxMs ?? 30_000;
  const webhookCreatedAt = new Map<string, bigint>();

  // No checkpoint yet (first start, or a lost read store): start at the head, so history is never sent.
  let committed = (await readStore.getCheckpoint(WEBHOOK_DISPATCHER_CHECKPOINT)) ?? (await eventStore.headPosition());
  if (committed !== null) await readStore.write([], [checkpointAt(committed)]);

  let subscription: Subscription | null = null;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  const waiters = new Set<{ position: bigint; resolve: () => void }>();

  const settleWaiters = () => {
    for (const waiter of waiters) {
      if (committed !== null && committed >= waiter.position) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  /** The global position of a webhook's creation: it receives only events recorded after it. */
  const createdAt = async (webhookId: string): Promise<bigint | null> => {
    const known = webhookCreatedAt.get(webhookId);
    if (known !== undefined) return known;
    const [first] = await eventStore.readStream(webhookStream(webhookId));
    if (!first) return null;
    webhookCreatedAt.set(webhookId, first.position);
    return first.position;
  };

  const handleBatch = async (events: RecordedEvent[]): Promise<void> => {
    const last = events.at(-1);
    if (!last) return;
    const notices = events.flatMap((event) => {
      const notice = noticeOf(event);
      return notice ? [{ event, notice }] : [];
    });
    if (notices.length > 0) {
      await options.readModelsReached(notices.at(-1)!.event.position);
      const subscribers = await activeSubscribers(readStore);
      if (subscribers.length > 0) {
        const batch = new DispatchBatch(readStore, options.publicBaseUrl);
        const jobs: NewJob[] = [];
        for (const { event, notice } of notices) {
          for (const webhook of subscribers) {
            const created = await createdAt(webhook.id);
            if (created === null || created >= event.position) continue;
            const job = await batch.jobFor(event, notice, webhook);
            if (job) jobs.push(job);
          }
        }
        if (jobs.length > 0) await options.queue.add(jobs);
      }
    }
    await readStore.write([], [checkpointAt(last.position)]);
    committed = last.position;
    failures = 0;
    settleWaiters();
  };

  const subscribe = () => {
    if (stopped) return;
    subscription = eventStore.subscribeToAll({
      ...(committed === null ? {} : { after: committed }),
      maxBatchSize: options.batchSize ?? 500,
      onBatch: handleBatch,
      onError: (error) => {
        if (stopped) return;
        if (error instanceof StaleFencingTokenError && fencing) {
          stopped = true;
          fencing.refused(`the read store refused the checkpoint: ${error.message}`);
          return;
        }
        failures += 1;
        const delayMs = Math.min(retryMaxMs, retryInitialMs * 2 ** Math.min(failures - 1, 20));
        logger.error(
          { err: error, checkpoint: String(committed), retryInMs: delayMs },
          'webhook dispatch failed; retrying from its checkpoint',
        );
        retryTimer = setTimeout(() => {
          retryTimer = null;
          subscribe();
        }, delayMs);
      },
    });
  };
  subscribe();
  logger.info({ checkpoint: committed === null ? null : String(committed) }, 'webhook dispatcher started');

  return {
    waitForPosition(position, timeoutMs = 10_000) {
      if (committed !== null && committed >= position) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          position,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`The webhook dispatcher did not reach position ${position} within ${timeoutMs} ms.`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      await subscription?.close();
      logger.info({ checkpoint: committed === null ? null : String(committed) }, 'webhook dispatcher stopped');
    },
  };
}

async function activeSubscribers(readStore: ReadStore): Promise<WebhookDoc[]> {
  const { items } = await readStore.find<WebhookDoc>(WEBHOOKS, { filter: { status: 'active', deleted: false } });
  return items;
}

/**
 * Builds the jobs of one batch, reading each record, client and scope once per batch. The read models have
 * reached the batch's last event, so `data` shows each record as it is then (at least as new as the event).
 */
class DispatchBatch {
  private readonly scopes = new Map<number, Promise<CatalogueScope | null>>();
  private readonly projectData = new Map<number, Promise<{ project: ProjectDoc; summary: object } | null>>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly publicBaseUrl: string,
  ) {}

  async jobFor(event: RecordedEvent, notice: CatalogueNotice, webhook: WebhookDoc): Promise<NewJob | null> {
    const scope = await this.scopeOf(webhook.client_id);
    if (!scope) return null;
    const found = await this.publicEventFor(event, notice, scope);
    if (!found || !webhook.events.includes(found.type)) return null;
    const eventId = publicEventIdOf(event.id);
    const at = (event.data as { at?: unknown }).at;
    const body = JSON.stringify({
      id: eventId,
      type: found.type,
      created_at: typeof at === 'string' ? at : event.recordedAt,
      data: { ...found.data, sequence: event.revision },
    });
    const job: WebhookDeliveryJob = { webhook_id: webhook.id, event_id: eventId, event_type: found.type, body };
    return { id: deliveryIdOf(eventId, webhook.id), data: job };
  }

  private async publicEventFor(
    event: RecordedEvent,
    notice: CatalogueNotice,
    scope: CatalogueScope,
  ): Promise<{ type: WebhookEventType; data: object } | null> {
    switch (notice.subject) {
      case 'project':
        return this.projectEvent(event, notice.projectId, notice.change, scope);
      case 'developer': {
        const developer = await this.readStore.get<DeveloperDoc>(DEVELOPERS, notice.developerId);
        if (!developer?.published || !developerInScope(scope, developer.id)) return null;
        return { type: 'developer.updated', data: developerRepresentation(developer, this.publicBaseUrl) };
      }
      case 'community': {
        const community = await this.readStore.get<CommunityDoc>(COMMUNITIES, notice.communityId);
        if (!community?.published || !communityInScope(scope, community.id)) return null;
        const state = (await this.readStore.get<StateDoc>(STATES, community.state_id)) ?? undefined;
        return { type: 'community.updated', data: communityRepresentation(community, state, this.publicBaseUrl) };
      }
    }
  }

  private async projectEvent(
    event: RecordedEvent,
    projectId: number,
    change: ProjectChange,
    scope: CatalogueScope,
  ): Promise<{ type: WebhookEventType; data: object } | null> {
    const represented = await this.projectOf(projectId);
    if (!represented) return null;
    const { project, summary } = represented;
    // Only events that may withdraw a project have a withdrawal to look up (the change feed records it).
    const withdrawnFrom =
      change === 'withdrawn' || change === 'revised'
        ? ((await this.readStore.get<ProjectChangeDoc>(PROJECT_CHANGES, projectChangeId(positionNumber(event))))
            ?.withdrawn_from_community_id ?? null)
        : null;
    const type = projectEventTypeFor(change, {
      withdrawn: withdrawnFrom !== null,
      before: withdrawnFrom !== null && projectVisibleIn(scope, project.id, withdrawnFrom),
      now: project.published && !project.deleted && projectVisibleIn(scope, project.id, project.community_id),
    });
    if (type === null) return null;
    return { type, data: type === 'project.deleted' ? { id: project.id, slug: project.slug } : summary };
  }

  private projectOf(projectId: number): Promise<{ project: ProjectDoc; summary: object } | null> {
    let found = this.projectData.get(projectId);
    if (!found) {
      found = (async () => {
        const project = await this.readStore.get<ProjectDoc>(PROJECTS, projectId);
        if (!project) return null;
        const references = await projectReferences(this.readStore, [project]);
        return { project, summary: projectSummary(project, references, this.publicBaseUrl) };
      })();
      this.projectData.set(projectId, found);
    }
    return found;
  }

  /** What the client may see; null when it may receive nothing (not active, plan inactive, no webhooks entitlement). */
  private scopeOf(clientId: number): Promise<CatalogueScope | null> {
    let scope = this.scopes.get(clientId);
    if (!scope) {
      scope = (async () => {
        const client = await this.readStore.get<AccessClientDoc>(ACCESS_CLIENTS, clientId);
        if (!client || client.status !== 'active' || !client.plan_active || !client.entitlements.includes('webhooks')) return null;
        const access = {
          restriction: client.restriction,
          evaluation:
            client.access_mode.mode === 'evaluation'
              ? { sample: new Set(client.access_mode.sample_project_ids), startedAt: client.access_mode.started_at }
              : null,
        } satisfies ScopedAccess;
        return catalogueScopeOf(this.readStore, access);
      })();
      this.scopes.set(clientId, scope);
    }
    return scope;
  }
}

/**
 * readModelsReached for a process without a projector: polls the projections' checkpoints in the read
 * store (written by a projector elsewhere) until each has reached the position.
 */
export function pollingReadModels(readStore: ReadStore, checkpointNames: readonly string[], intervalMs = 25) {
  return async (position: bigint): Promise<void> => {
    for (;;) {
      const checkpoints = await Promise.all(checkpointNames.map((name) => readStore.getCheckpoint(name)));
      if (checkpoints.every((checkpoint) => checkpoint !== null && checkpoint >= position)) return;
      await sleep(intervalMs);
    }
  };
}
