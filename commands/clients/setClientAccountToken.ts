import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ACCOUNT_TOKEN_PATTERN, type Client, type ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const accountTokenSchema = z.string().regex(ACCOUNT_TOKEN_PATTERN, 'must be 4 to 64 letters, digits, _ or -').meta({
  description: 'Names the account-specific image addresses {base_url}/media/c/{account_token}/...; unique among clients.',
  example: 'marina-homes',
});

/** null removes the token: its account-specific image addresses answer 404 from then on. */
export const setClientAccountTokenSchema = z.object({ account_token: accountTokenSchema.nullable() }).strict();

export type SetClientAccountToken = z.infer<typeof setClientAccountTokenSchema>;

/**
 * A token for a client that has none of its own to carry over: 128 random bits, base64url (22 characters).
 * It is not a secret (it appears in public image addresses); randomness only keeps tokens from colliding
 * and from naming the client. Made by the route, outside the decider, which stays pure.
 */
export const generateAccountToken = (): string => randomBytes(16).toString('base64url');

/**
 * Sets, replaces or removes the token; setting the token the client has changes nothing. Uniqueness across
 * clients is the command handler's (the client aggregate reserves its token as a slug: 409 when another
 * client holds it).
 */
export function decide(command: SetClientAccountToken, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.account_token === command.account_token) return [];
  return [{ type: 'ClientAccountTokenSet', data: { client_id: meta.id, account_token: command.account_token, at: meta.now } }];
}
