import { z } from 'zod';
import { KEY_ENVIRONMENTS } from '../../src/access/accessContext.js';
import { clientAsSeen, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import type { ApiKey, ApiKeyEvent } from '../../src/access/apiKey.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';

export const issueApiKeySchema = z
  .object({
    environment: z
      .enum(KEY_ENVIRONMENTS)
      .meta({ description: 'live: production, billed (`svc_live_` key); test: sandbox, never billed (`svc_test_` key).' }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the key stops working (403 API_KEY_EXPIRED from then on); omitted = never. Must be in the future.' }),
  })
  .strict();

/**
 * What the handler adds to the body: the client from the path, the client revision If-Match names (a key is
 * issued only to the client as the caller saw it), and the hash and hint of the key it generated. The key is
 * random, so it is made outside the decider, and it never reaches a decider or an event.
 */
export type IssueApiKey = z.infer<typeof issueApiKeySchema> & {
  client_id: number;
  key_hash: string;
  hint: string;
  rotated_from?: number;
  expected_client_revision?: number;
};

/** The client the key is issued to. */
export function references(command: IssueApiKey): AccessLookup {
  return { clients: [command.client_id] };
}

const KEY_HASH = /^[0-9a-f]{64}$/;

/** The client must exist (404) and, with If-Match, be at the revision the caller saw (409). */
export function decide(
  command: IssueApiKey,
  apiKey: ApiKey | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): ApiKeyEvent[] {
  // Not input errors but bugs of the caller: a key passed where only its hash may go would be stored for good.
  if (!KEY_HASH.test(command.key_hash)) throw new Error('key_hash must be the SHA-256 hex digest of the key.');
  if (!new RegExp(`^svc_${command.environment}_[A-Za-z0-9_-]{4}…$`).test(command.hint)) {
    throw new Error(`The hint must be the ${command.environment} prefix and 4 characters of the key.`);
  }
  clientAsSeen(command.client_id, command.expected_client_revision, meta.references);
  if (apiKey) throw new Conflict(`API key ${meta.id} already exists.`);
  const expiresAt = command.expires_at === undefined ? null : new Date(command.expires_at).toISOString();
  if (expiresAt !== null && expiresAt <= meta.now) throw new ValidationFailed({ 'body.expires_at': 'must be in the future' });
  const { client_id, environment, key_hash, hint } = command;
  const rotation = command.rotated_from === undefined ? {} : { rotated_from: command.rotated_from };
  return [
    {
      type: 'ApiKeyIssued',
      data: { api_key_id: meta.id, client_id, environment, key_hash, hint, expires_at: expiresAt, ...rotation, at: meta.now },
    },
  ];
}
