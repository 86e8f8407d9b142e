import { z } from 'zod';
import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { PlanLimits } from '../limits/planLimits.js';
import { planPdfSettingsOf, type PlanPdfSettings } from '../pdf/pdfSettings.js';
import type { DetailField, Entitlement, Scope } from './accessContext.js';

export const planKeySchema = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case')
  .meta({ description: 'Lowercase kebab-case, unique among plans, at most 64 characters.', example: 'professional' });

export interface PlanFields extends PlanPdfSettings {
  /**
   * What clients are registered with and what the API reports as the caller's plan. It never changes, so
   * it stays a stable name in contracts, logs and the access read model.
   */
  key: string;
  name: string;
  scopes: Scope[];
  entitlements: Entitlement[];
  /** An inactive plan takes no new clients and grants the clients on it nothing. */
  active: boolean;
  /** The detail-only project fields its clients see (others answer null); null = all of them. */
  detail_fields: DetailField[] | null;
  /** Rate limits and quotas; null = DEFAULT_PLAN_LIMITS. */
  limits: PlanLimits | null;
}

export type PlanEvent =
  | DomainEvent<
      'PlanDefined',
      Omit<PlanFields, 'detail_fields' | 'limits' | keyof PlanPdfSettings> &
        /** Absent in events recorded before plans had brochure settings: the defaults. */
        Partial<PlanPdfSettings> & {
          /** Absent in events recorded before plans could limit detail fields: all of them. */
          detail_fields?: DetailField[] | null;
          /** Absent in events recorded before plans carried limits: the defaults. */
          limits?: PlanLimits | null;
          plan_id: number;
          at: string;
        }
    >
  | DomainEvent<'PlanRevised', { plan_id: number; changes: Partial<Omit<PlanFields, 'key'>>; at: string }>;

/** The folded Plan; the aggregate's state is null before PlanDefined. */
export type Plan = PlanFields;

export const planStream = (id: number): string => `plan-${id}`;

export function evolvePlan(plan: Plan | null, event: PlanEvent): Plan | null {
  switch (event.type) {
    case 'PlanDefined': {
      const { key, name, scopes, entitlements, active, detail_fields, limits } = event.data;
      return {
        key,
        name,
        scopes,
        entitlements,
        active,
        detail_fields: detail_fields ?? null,
        limits: limits ?? null,
        ...planPdfSettingsOf(event.data),
      };
    }
    case 'PlanRevised':
      return plan && { ...plan, ...event.data.changes };
    default:
      return assertNever(event);
  }
}

export const planAggregate: Aggregate<Plan | null, PlanEvent> = {
  category: 'plan',
  streamName: planStream,
  initialState: () => null,
  evolve: evolvePlan,
  slug: { resourceType: 'plan', of: (plan) => plan?.key, field: 'body.key' },
};
