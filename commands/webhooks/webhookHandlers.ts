import { staleRevision, type CommandDeps } from '../../src/domain/commandHandler.js';
import type { FactsReader } from '../../src/domain/commandSlice.js';
import { NotFound } from '../../src/domain/errors.js';
import { WrongExpectedRevisionError } from '../../src/eventStore/eventStore.js';
import { generateWebhookId, webhookAggregate, webhookStream, type Webhook, type WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookFacts, WebhookLookup, WebhookSlice } from '../../src/webhooks/webhookReferences.js';
import { generateWebhookSecret, type WebhookSecretBox } from '../../src/webhooks/webhookSecrets.js';
import * as createWebhook from './createWebhook.js';
import * as rotateWebhookSecret from './rotateWebhookSecret.js';

/*
 * Runs the webhook commands. A webhook's stream is named by its public id (webhookStream), so this is the
 * webhook's counterpart of src/domain/commandHandler.ts: read the stream, decide, append expecting the
 * revision read (a concurrent command in between is refused with 409 and nothing is written). Ids and
 * secrets are random, so they are made here, outside the deciders, which see secrets only sealed.
 */

export type WebhookFactsReader = FactsReader<WebhookLookup, WebhookFacts>;

export interface WebhookResult {
  id: string;
  webhook: Webhook;
  /** Stream revision after the command (unchanged when the decider emitted nothing). */
  revision: number;
  events: WebhookEvent[];
}

/** A webhook with the secret just generated for it, which leaves the service once. */
export interface WebhookWithSecret {
  result: WebhookResult;
  secret: string;
}

interface WebhookCommand<Command> {
  webhookId: string;
  actor: string;
  command: Command;
  slice: WebhookSlice<Command>;
  /** From If-Match; absent = the revision read. */
  expectedRevision?: number;
}

/** The webhook folded from its stream, or null (with revision null) when the stream does not exist. */
export async function loadWebhook(deps: Pick<CommandDeps, 'eventStore'>, webhookId: string) {
  const recorded = await deps.eventStore.readStream(webhookStream(webhookId));
  let webhook = webhookAggregate.initialState();
  for (const event of recorded) webhook = webhookAggregate.evolve(webhook, event as unknown as WebhookEvent);
  return { webhook, revision: recorded.at(-1)?.revision ?? null };
}

export async function runWebhookCommand<Command>(
  deps: CommandDeps,
  facts: WebhookFactsReader,
  request: WebhookCommand<Command>,
): Promise<WebhookResult> {
  const { webhookId, slice, command } = request;
  const loaded = await loadWebhook(deps, webhookId);
  if (request.expectedRevision !== undefined && request.expectedRevision !== loaded.revision) {
    throw staleRevision(request.expectedRevision, loaded.revision ?? -1);
  }
  const references = slice.references ? await facts.read(slice.references(command, loaded.webhook)) : facts.none;
  const now = deps.clock().toISOString();
  const events = slice.decide(command, loaded.webhook, { now, actor: request.actor, webhookId, references });
  const webhook = events.reduce<Webhook | null>((folded, event) => webhookAggregate.evolve(folded, event), loaded.webhook);
  if (!webhook) throw new NotFound(`Webhook ${webhookId} does not exist.`);
  if (events.length === 0) return { id: webhookId, webhook, revision: loaded.revision!, events };
  try {
    const appended = await deps.eventStore.appendToStream(
      webhookStream(webhookId),
      events.map((event) => ({ type: event.type, data: event.data, metadata: { actor: request.actor, at: now } })),
      { expectedRevision: loaded.revision ?? 'no_stream' },
    );
    return { id: webhookId, webhook, revision: appended.nextExpectedRevision, events };
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) {
      throw staleRevision(loaded.revision ?? -1, typeof error.actual === 'number' ? error.actual : -1);
    }
    throw error;
  }
}

/** Creates a webhook under a fresh public id with a fresh secret, sealed for that id. */
export async function createWebhookFor(
  deps: CommandDeps,
  facts: WebhookFactsReader,
  secrets: WebhookSecretBox,
  request: Omit<createWebhook.CreateWebhook, 'sealed_secret'> & { actor: string },
): Promise<WebhookWithSecret> {
  const { actor, ...fields } = request;
  const webhookId = generateWebhookId();
  const secret = generateWebhookSecret();
  const result = await runWebhookCommand(deps, facts, {
    webhookId,
    actor,
    command: { ...fields, sealed_secret: secrets.seal(webhookId, secret) },
    slice: createWebhook,
  });
  return { result, secret };
}

/** Gives the webhook a fresh secret; the replaced one keeps signing for `overlap_seconds`. */
export async function rotateWebhookSecretOf(
  deps: CommandDeps,
  facts: WebhookFactsReader,
  secrets: WebhookSecretBox,
  request: Omit<rotateWebhookSecret.RotateWebhookSecret, 'sealed_secret'> & { webhookId: string; actor: string },
): Promise<WebhookWithSecret> {
  const { webhookId, actor, ...fields } = request;
  const secret = generateWebhookSecret();
  const result = await runWebhookCommand(deps, facts, {
    webhookId,
    actor,
    command: { ...fields, sealed_secret: secrets.seal(webhookId, secret) },
    slice: rotateWebhookSecret,
  });
  return { result, secret };
}
