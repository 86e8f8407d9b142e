import { ACCESS_CLIENTS, ACCESS_KEYS, type AccessClientDoc, type AccessKeyDoc } from '../../projections/access.js';
import type { ReadStore } from '../readStore/readStore.js';
import { assertNever } from '../domain/decider.js';
import type { AccessContext, KeyEnvironment } from '../access/accessContext.js';
import { AccessRefused } from '../access/accessRefusals.js';
import { limitPolicyOf } from '../limits/planLimits.js';
import { environmentOfApiKey, hashApiKey } from '../access/apiKeys.js';

/**
 * What a presented key grants. Null when the key does not verify: not a well-formed key, unknown, or its
 * prefix naming another environment than it was issued for; callers answer every null with the same 401.
 * A key that verifies but may not be used gets its exact reason as a 403 AccessRefused, checked in this
 * order: the key (revoked, deactivated, expired, rotation overlap ended), the client (suspended, inactive), the plan
 * (deactivated), the subscription when one is recorded (status, period start, period end, unpaid trial end,
 * unpaid grace end), Evaluation Mode (a live key, a paused evaluation).
 * Runs on every request: a hash and two `get`s.
 *
 * The key is found by equality on its SHA-256 hash rather than compared in constant time: timing can at
 * most reveal something about a hash, and finding a key from its hash means inverting SHA-256.
 */
export async function lookupAccess(readStore: ReadStore, presentedKey: string, now: Date = new Date()): Promise<AccessContext | null> {
  const environment = environmentOfApiKey(presentedKey);
  // Every presented value, well-formed or not (or empty), costs one hash and one lookup, so the 401s for a
  // missing, malformed and unknown key take the same path and the same time. A malformed value cannot
  // find a key: that would take a SHA-256 collision.
  const key = await readStore.get<AccessKeyDoc>(ACCESS_KEYS, hashApiKey(presentedKey));
  if (environment === null || !key || key.environment !== environment) return null;
  const client = await readStore.get<AccessClientDoc>(ACCESS_CLIENTS, key.client_id);
  // The access projection writes a key only after its client; a key without one has not been projected whole.
  if (!client) return null;
  refuseUnusable(key, client, now);
  return { ...clientContextOf(client, environment), keyId: key.id };
}

/**
 * What a client document grants one environment, made once per document and environment: the embedded
 * store hands out the same frozen document until it changes, so every request of a client shares the sets
 * and the policy instead of building them again.
 */
const clientContexts = new WeakMap<AccessClientDoc, Partial<Record<KeyEnvironment, Omit<AccessContext, 'keyId'>>>>();

function clientContextOf(client: AccessClientDoc, environment: KeyEnvironment): Omit<AccessContext, 'keyId'> {
  let contexts = clientContexts.get(client);
  if (!contexts) {
    contexts = {};
    clientContexts.set(client, contexts);
  }
  return (contexts[environment] ??= {
    clientId: client.id,
    environment,
    plan: client.plan,
    scopes: new Set(client.scopes),
    entitlements: new Set(client.entitlements),
    requestSigning: client.controls.request_signing,
    networkControls: client.controls.environments[environment],
    liveDomain: client.controls.environments.live.domain,
    restriction: client.restriction,
    evaluation:
      client.access_mode.mode === 'evaluation'
        ? { sample: new Set(client.access_mode.sample_project_ids), startedAt: client.access_mode.started_at }
        : null,
    detailFields: client.detail_fields === null ? null : new Set(client.detail_fields),
    limitPolicy: limitPolicyOf(client.limits, environment),
  });
}

function refuseUnusable(key: AccessKeyDoc, client: AccessClientDoc, now: Date): void {
  switch (key.status) {
    case 'active':
      break;
    case 'revoked':
      throw new AccessRefused('API_KEY_REVOKED');
    case 'inactive':
      throw new AccessRefused('API_KEY_INACTIVE');
    default:
      return assertNever(key.status);
  }
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) {
    throw new AccessRefused('API_KEY_EXPIRED', { expired_at: key.expires_at });
  }
  if (key.rotation_ends_at !== null && Date.parse(key.rotation_ends_at) <= now.getTime()) {
    throw new AccessRefused('API_KEY_ROTATION_ENDED', { rotation_ended_at: key.rotation_ends_at, successor_key_id: key.successor_key_id });
  }
  switch (client.status) {
    case 'active':
      break;
    case 'suspended':
      throw new AccessRefused('CLIENT_SUSPENDED');
    case 'inactive':
      throw new AccessRefused('CLIENT_INACTIVE');
    default:
      return assertNever(client.status);
  }
  if (!client.plan_active) throw new AccessRefused('PLAN_INACTIVE');
  if (client.subscription) refuseOutsideSubscription(client.subscription, now.getTime());
  if (client.access_mode.mode === 'evaluation') {
    if (key.environment === 'live') throw new AccessRefused('EVALUATION_TEST_ONLY');
    if (client.access_mode.paused) throw new AccessRefused('EVALUATION_ACCESS_PAUSED');
  }
}

const DAY_MS = 86_400_000;

function refuseOutsideSubscription(subscription: NonNullable<AccessClientDoc['subscription']>, now: number): void {
  if (subscription.status !== 'active') throw new AccessRefused('SUBSCRIPTION_INACTIVE', { status: subscription.status });
  if (now < Date.parse(subscription.period_start))
    throw new AccessRefused('SUBSCRIPTION_NOT_STARTED', { starts_at: subscription.period_start });
  if (subscription.period_end !== null && now >= Date.parse(subscription.period_end)) {
    throw new AccessRefused('SUBSCRIPTION_EXPIRED', { expired_at: subscription.period_end });
  }
  if (subscription.paid) return;
  if (subscription.trial_ends_at !== null && now >= Date.parse(subscription.trial_ends_at)) {
    throw new AccessRefused('TRIAL_ENDED', { trial_ended_at: subscription.trial_ends_at });
  }
  if (subscription.payment_due_at !== null) {
    const graceEndsAt = Date.parse(subscription.payment_due_at) + subscription.grace_days * DAY_MS;
    if (now >= graceEndsAt) throw new AccessRefused('GRACE_PERIOD_ENDED', { grace_period_ended_at: new Date(graceEndsAt).toISOString() });
  }
}
