import type { CommandMeta } from '../domain/decider.js';
import type { Webhook, WebhookEvent } from './webhook.js';

/**
 * The port through which a webhook command learns what lies outside its aggregate: how many webhooks the
 * client has (the cap). Read from the webhooks read model, so webhooks created a moment ago may not be
 * counted yet. Only handlers use it; deciders get its answers as WebhookFacts.
 */
export interface WebhookReferences {
  /** Webhooks of the client that are not deleted. */
  webhookCountOf(clientId: number): Promise<number>;
}

/** What a webhook slice looks up; its `references(command, state)` names it. */
export interface WebhookLookup {
  webhookCountOf?: number;
}

/** The answers: null where the lookup did not ask. */
export interface WebhookFacts {
  webhookCount: number | null;
}

export const noWebhookFacts: WebhookFacts = { webhookCount: null };

export async function readWebhookFacts(port: WebhookReferences, lookup: WebhookLookup): Promise<WebhookFacts> {
  return { webhookCount: lookup.webhookCountOf === undefined ? null : await port.webhookCountOf(lookup.webhookCountOf) };
}

/** What a webhook decider is handed besides the command: the clock, the actor, the id and the facts. */
export type WebhookCommandMeta = CommandMeta & { webhookId: string; references: WebhookFacts };

/** One webhook command as its file in commands/webhooks/ defines it (see CommandSlice, whose ids are numbers). */
export interface WebhookSlice<Command> {
  decide(command: Command, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[];
  references?(command: Command, webhook: Webhook | null): WebhookLookup;
}
