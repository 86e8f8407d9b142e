import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import { apiKeyAggregate, type ApiKey, type ApiKeyEvent } from '../../src/access/apiKey.js';
import { apiKeyHint, generateApiKey, hashApiKey } from '../../src/access/apiKeys.js';
import { loadAggregate, staleRevision, type CommandDeps, type CommandResult } from '../../src/domain/commandHandler.js';
import { createWithSlice, updateWithSlice, type FactsReader } from '../../src/domain/commandSlice.js';
import * as issueApiKey from './issueApiKey.js';
import * as revokeApiKey from './revokeApiKey.js';
import * as rotateApiKey from './rotateApiKey.js';

/*
 * The api-key commands whose handling is more than deciding one slice: a key is random, so it is generated
 * here, outside the deciders; a rotation writes two streams.
 */

type AccessFactsReader = FactsReader<AccessLookup, AccessFacts>;

/** A key just issued: the stored key (hash and hint only) and the key itself, which leaves the service once. */
export interface IssuedApiKey {
  result: CommandResult<ApiKey | null, ApiKeyEvent>;
  key: string;
}

/**
 * Issues a key to a client. The key is random, so it is generated here, outside the decider, which sees only
 * its hash and hint.
 */
export async function issueApiKeyTo(
  deps: CommandDeps,
  facts: AccessFactsReader,
  request: Omit<issueApiKey.IssueApiKey, 'key_hash' | 'hint'> & { actor: string },
): Promise<IssuedApiKey> {
  const { actor, ...fields } = request;
  const key = generateApiKey(fields.environment);
  const result = await createWithSlice(deps, facts, {
    aggregate: apiKeyAggregate,
    actor,
    command: { ...fields, key_hash: hashApiKey(key), hint: apiKeyHint(key) },
    slice: issueApiKey,
  });
  return { result, key };
}

/**
 * Rotation spans two streams: the successor is issued first, then the old key records its overlap. Should
 * the second append be refused (the old key changed meanwhile), the successor, whose secret nobody has
 * seen, is revoked again before the 409 answers, so no working key is left behind.
 */
export async function rotateApiKeyOf(
  deps: CommandDeps,
  facts: AccessFactsReader,
  request: { clientId: number; keyId: number; overlap_seconds?: number; expectedRevision?: number; actor: string },
): Promise<IssuedApiKey> {
  const { clientId, keyId, actor } = request;
  const loaded = await loadAggregate(deps.eventStore, apiKeyAggregate, keyId);
  const old = rotateApiKey.assertRotatable({ client_id: clientId }, loaded?.state ?? null, keyId);
  const revision = loaded!.revision;
  if (request.expectedRevision !== undefined && request.expectedRevision !== revision)
    throw staleRevision(request.expectedRevision, revision);
  const successor = await issueApiKeyTo(deps, facts, { environment: old.environment, client_id: clientId, rotated_from: keyId, actor });
  try {
    await updateWithSlice(deps, facts, {
      aggregate: apiKeyAggregate,
      id: keyId,
      expectedRevision: revision,
      actor,
      command: {
        ...(request.overlap_seconds === undefined ? {} : { overlap_seconds: request.overlap_seconds }),
        client_id: clientId,
        successor_key_id: successor.result.id,
      },
      slice: rotateApiKey,
    });
  } catch (error) {
    await updateWithSlice(deps, facts, {
      aggregate: apiKeyAggregate,
      id: successor.result.id,
      actor,
      command: { client_id: clientId },
      slice: revokeApiKey,
    });
    throw error;
  }
  return successor;
}
