import { describe, expect, it } from 'vitest';
import { decide as issueApiKey, type IssueApiKey } from '../../commands/apiKeys/issueApiKey.js';
import { decide as deactivateApiKey } from '../../commands/apiKeys/deactivateApiKey.js';
import { decide as reactivateApiKey } from '../../commands/apiKeys/reactivateApiKey.js';
import { decide as revokeApiKey } from '../../commands/apiKeys/revokeApiKey.js';
import { decide as rotateApiKey } from '../../commands/apiKeys/rotateApiKey.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { apiKeyAggregate, type ApiKeyEvent } from '../../src/access/apiKey.js';
import { apiKeyHint, generateApiKey, hashApiKey } from '../../src/access/apiKeys.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;
/** Client 4 exists, at revision 0. */
const references = accessFacts({ clients: { 4: { revision: 0, plan_id: 2 } } });
const issueMeta = { ...defaultMeta, references };
const KEY_HASH = 'a3'.repeat(32);

const anIssue = (overrides: Partial<IssueApiKey> = {}): IssueApiKey => ({
  environment: 'live',
  client_id: 4,
  key_hash: KEY_HASH,
  hint: 'svc_live_AbCd…',
  ...overrides,
});

const issued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: { api_key_id: 1, client_id: 4, environment: 'live', key_hash: KEY_HASH, hint: 'svc_live_AbCd…', at: '2024-01-01T00:00:00.000Z' },
};
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { api_key_id: 1, client_id: 4, at: '2024-02-01T00:00:00.000Z' } };

describe('issueApiKey', () => {
  const spec = deciderSpec(apiKeyAggregate, issueApiKey, { references });

  it('when a key is issued, then ApiKeyIssued carries its client, environment, hash and hint, never the key', () => {
    const key = generateApiKey('test');
    spec
      .given([])
      .when(anIssue({ environment: 'test', key_hash: hashApiKey(key), hint: apiKeyHint(key) }), { id: 9 })
      .then([
        {
          type: 'ApiKeyIssued',
          data: {
            api_key_id: 9,
            client_id: 4,
            environment: 'test',
            key_hash: hashApiKey(key),
            hint: `${key.slice(0, 13)}…`,
            expires_at: null,
            at,
          },
        },
      ]);
  });

  it('when the key itself is passed where its hash belongs, then the decider refuses to record it', () => {
    expect(() => issueApiKey(anIssue({ key_hash: generateApiKey('live') }), null, issueMeta)).toThrow(/SHA-256/);
  });

  it('when the hint is longer than a prefix and four characters, then the decider refuses to record it', () => {
    const key = generateApiKey('live');
    expect(() => issueApiKey(anIssue({ hint: key }), null, issueMeta)).toThrow(/hint/);
  });

  it('when the hint names the other environment, then the decider refuses to record it', () => {
    expect(() => issueApiKey(anIssue({ environment: 'test' }), null, issueMeta)).toThrow(/hint/);
  });

  it('when the key already exists, then it is refused with CONFLICT', () => {
    spec.given([issued]).when(anIssue()).thenThrows('CONFLICT');
  });
});

describe('revokeApiKey', () => {
  const spec = deciderSpec(apiKeyAggregate, revokeApiKey);

  it('when an active key is revoked through its client, then ApiKeyRevoked is emitted', () => {
    spec
      .given([issued])
      .when({ client_id: 4 })
      .then([{ type: 'ApiKeyRevoked', data: { api_key_id: 1, client_id: 4, at } }]);
  });

  it('when it is already revoked, then nothing is emitted', () => {
    spec.given([issued, revoked]).when({ client_id: 4 }).then([]);
  });

  it('when the key belongs to another client, then it is refused with NOT_FOUND', () => {
    spec.given([issued]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
  });

  it('when the key does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ client_id: 4 }).thenThrows('NOT_FOUND');
  });
});

describe('deactivateApiKey and reactivateApiKey', () => {
  const deactivate = deciderSpec(apiKeyAggregate, deactivateApiKey);
  const reactivate = deciderSpec(apiKeyAggregate, reactivateApiKey);
  const deactivated: ApiKeyEvent = { type: 'ApiKeyDeactivated', data: { api_key_id: 1, client_id: 4, at } };

  it('when an active key is deactivated, then ApiKeyDeactivated is emitted; again, nothing', () => {
    deactivate.given([issued]).when({ client_id: 4 }).then([deactivated]);
    deactivate.given([issued, deactivated]).when({ client_id: 4 }).then([]);
  });

  it('when an inactive key is reactivated, then ApiKeyReactivated is emitted; an active one, nothing', () => {
    reactivate
      .given([issued, deactivated])
      .when({ client_id: 4 })
      .then([{ type: 'ApiKeyReactivated', data: { api_key_id: 1, client_id: 4, at } }]);
    reactivate.given([issued]).when({ client_id: 4 }).then([]);
  });

  it('when the key is revoked, then neither may change it (CONFLICT)', () => {
    deactivate.given([issued, revoked]).when({ client_id: 4 }).thenThrows('CONFLICT');
    reactivate.given([issued, revoked]).when({ client_id: 4 }).thenThrows('CONFLICT');
  });

  it('when the key belongs to another client, then NOT_FOUND', () => {
    deactivate.given([issued]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
    reactivate.given([issued, deactivated]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
  });
});

describe('issueApiKey with an expiry', () => {
  const spec = deciderSpec(apiKeyAggregate, issueApiKey, { references });

  it('when the expiry is in the future, then ApiKeyIssued records it in UTC', () => {
    spec
      .given([])
      .when(anIssue({ expires_at: '2030-01-01T04:00:00+04:00' }))
      .then([
        {
          type: 'ApiKeyIssued',
          data: {
            api_key_id: 1,
            client_id: 4,
            environment: 'live',
            key_hash: KEY_HASH,
            hint: 'svc_live_AbCd…',
            expires_at: '2030-01-01T00:00:00.000Z',
            at,
          },
        },
      ]);
  });

  it('when the expiry is not in the future, then VALIDATION_FAILED names body.expires_at', () => {
    spec
      .given([])
      .when(anIssue({ expires_at: at }))
      .thenThrows('VALIDATION_FAILED');
  });
});

describe('rotateApiKey', () => {
  const spec = deciderSpec(apiKeyAggregate, rotateApiKey);
  const rotated: ApiKeyEvent = {
    type: 'ApiKeyRotated',
    data: { api_key_id: 1, client_id: 4, successor_key_id: 2, rotation_ends_at: '2024-05-02T10:00:00.000Z', at },
  };

  it('when an active key is rotated without an overlap, then ApiKeyRotated names its successor and ends a day later', () => {
    spec.given([issued]).when({ client_id: 4, successor_key_id: 2 }).then([rotated]);
  });

  it('when an overlap is given, then the rotation ends that many seconds later', () => {
    spec
      .given([issued])
      .when({ client_id: 4, successor_key_id: 2, overlap_seconds: 60 })
      .then([{ type: 'ApiKeyRotated', data: { ...rotated.data, rotation_ends_at: '2024-05-01T10:01:00.000Z' } } as ApiKeyEvent]);
  });

  it('when the key was already rotated, is inactive or revoked, then CONFLICT', () => {
    spec.given([issued, rotated]).when({ client_id: 4, successor_key_id: 3 }).thenThrows('CONFLICT');
    spec
      .given([issued, { type: 'ApiKeyDeactivated', data: { api_key_id: 1, client_id: 4, at } }])
      .when({ client_id: 4, successor_key_id: 3 })
      .thenThrows('CONFLICT');
    spec.given([issued, revoked]).when({ client_id: 4, successor_key_id: 3 }).thenThrows('CONFLICT');
  });

  it('when the key belongs to another client, then NOT_FOUND', () => {
    spec.given([issued]).when({ client_id: 5, successor_key_id: 2 }).thenThrows('NOT_FOUND');
  });
});
