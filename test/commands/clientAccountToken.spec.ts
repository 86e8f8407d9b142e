import { describe, expect, it } from 'vitest';
import {
  decide as setClientAccountToken,
  generateAccountToken,
  setClientAccountTokenSchema,
} from '../../commands/clients/setClientAccountToken.js';
import { ACCOUNT_TOKEN_PATTERN, clientAggregate, type ClientEvent } from '../../src/access/client.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

const registered: ClientEvent = {
  type: 'ClientRegistered',
  data: { client_id: 1, name: 'Marina Homes', plan_id: 2, scopes: null, entitlements: null, at: '2024-01-01T00:00:00.000Z' },
};
const tokenSet = (account_token: string | null): ClientEvent => ({
  type: 'ClientAccountTokenSet',
  data: { client_id: 1, account_token, at: '2024-01-02T00:00:00.000Z' },
});

describe('setClientAccountToken', () => {
  const spec = deciderSpec(clientAggregate, setClientAccountToken);

  it('when a client without a token is given one, then ClientAccountTokenSet records it', () => {
    spec
      .given([registered])
      .when({ account_token: 'marina-homes' })
      .then([{ type: 'ClientAccountTokenSet', data: { client_id: 1, account_token: 'marina-homes', at } }]);
  });

  it('when the token is replaced, then the new one is recorded and the state holds it', () => {
    spec
      .given([registered, tokenSet('marina-homes')])
      .when({ account_token: 'marina-homes-2' })
      .then([{ type: 'ClientAccountTokenSet', data: { client_id: 1, account_token: 'marina-homes-2', at } }]);
    const state = [registered, tokenSet('marina-homes'), tokenSet('marina-homes-2')].reduce(clientAggregate.evolve, null);
    expect(state?.account_token).toBe('marina-homes-2');
    expect(clientAggregate.slug?.of(state)).toBe('marina-homes-2');
  });

  it('when the token is removed with null, then null is recorded and the client has no token to reserve', () => {
    spec
      .given([registered, tokenSet('marina-homes')])
      .when({ account_token: null })
      .then([{ type: 'ClientAccountTokenSet', data: { client_id: 1, account_token: null, at } }]);
    const state = [registered, tokenSet('marina-homes'), tokenSet(null)].reduce(clientAggregate.evolve, null);
    expect(clientAggregate.slug?.of(state)).toBeUndefined();
  });

  it('when the client already has that token (or has none and null is sent), then nothing is emitted', () => {
    spec
      .given([registered, tokenSet('marina-homes')])
      .when({ account_token: 'marina-homes' })
      .then([]);
    spec.given([registered]).when({ account_token: null }).then([]);
  });

  it('when the client does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ account_token: 'marina-homes' }).thenThrows('NOT_FOUND');
  });

  it('when a token is not 4 to 64 URL-safe characters, then the schema refuses it', () => {
    for (const account_token of ['abc', 'a'.repeat(65), 'with space', 'dot.ted', 'slash/ed', 'ümlaut', '']) {
      expect(setClientAccountTokenSchema.safeParse({ account_token }).success, account_token).toBe(false);
    }
    for (const account_token of ['abcd', 'a'.repeat(64), 'Marina_Homes-2024', null]) {
      expect(setClientAccountTokenSchema.safeParse({ account_token }).success, String(account_token)).toBe(true);
    }
    expect(setClientAccountTokenSchema.safeParse({}).success).toBe(false);
  });

  it('when tokens are generated, then each is 22 URL-safe characters and they differ', () => {
    const tokens = Array.from({ length: 100 }, generateAccountToken);
    for (const token of tokens) expect(token).toMatch(ACCOUNT_TOKEN_PATTERN);
    expect(tokens.every((token) => token.length === 22)).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
