import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { KeyEnvironment } from './accessContext.js';

export const API_KEY_STATUSES = ['active', 'inactive', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/**
 * An issued API key. The key itself exists only in the response that issued it: events and state hold
 * its SHA-256 hash (to recognise it) and a hint (to tell it apart from the client's other keys).
 */
export interface ApiKey {
  client_id: number;
  environment: KeyEnvironment;
  key_hash: string;
  hint: string;
  status: ApiKeyStatus;
  issued_at: string;
  /** After this instant the key is refused with API_KEY_EXPIRED; null = it does not expire. */
  expires_at: string | null;
  revoked_at: string | null;
  /** Set by rotation: the key that replaces this one, and when this one stops working (API_KEY_ROTATION_ENDED). */
  successor_key_id: number | null;
  rotation_ends_at: string | null;
}

export type ApiKeyEvent =
  | DomainEvent<
      'ApiKeyIssued',
      {
        api_key_id: number;
        client_id: number;
        environment: KeyEnvironment;
        key_hash: string;
        hint: string;
        /** Absent in events recorded before keys could expire. */
        expires_at?: string | null;
        /** The key this one replaces, when it was issued by a rotation. */
        rotated_from?: number | null;
        at: string;
      }
    >
  | DomainEvent<'ApiKeyRotated', { api_key_id: number; client_id: number; successor_key_id: number; rotation_ends_at: string; at: string }>
  | DomainEvent<'ApiKeyRevoked', { api_key_id: number; client_id: number; at: string }>
  | DomainEvent<'ApiKeyDeactivated', { api_key_id: number; client_id: number; at: string }>
  | DomainEvent<'ApiKeyReactivated', { api_key_id: number; client_id: number; at: string }>;

export const apiKeyStream = (id: number): string => `apiKey-${id}`;

export function evolveApiKey(apiKey: ApiKey | null, event: ApiKeyEvent): ApiKey | null {
  switch (event.type) {
    case 'ApiKeyIssued': {
      const { client_id, environment, key_hash, hint, expires_at, at } = event.data;
      return {
        client_id,
        environment,
        key_hash,
        hint,
        status: 'active',
        issued_at: at,
        expires_at: expires_at ?? null,
        revoked_at: null,
        successor_key_id: null,
        rotation_ends_at: null,
      };
    }
    case 'ApiKeyRevoked':
      return apiKey && { ...apiKey, status: 'revoked', revoked_at: event.data.at };
    case 'ApiKeyDeactivated':
      return apiKey && { ...apiKey, status: 'inactive' };
    case 'ApiKeyReactivated':
      return apiKey && { ...apiKey, status: 'active' };
    case 'ApiKeyRotated':
      return apiKey && { ...apiKey, successor_key_id: event.data.successor_key_id, rotation_ends_at: event.data.rotation_ends_at };
    default:
      return assertNever(event);
  }
}

export const apiKeyAggregate: Aggregate<ApiKey | null, ApiKeyEvent> = {
  category: 'apiKey',
  streamName: apiKeyStream,
  initialState: () => null,
  evolve: evolveApiKey,
};
