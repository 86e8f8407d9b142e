import { z } from 'zod';
import { ENTITLEMENTS, SCOPES, type Entitlement, type Scope } from './grantNames.js';

const distinct = (items: readonly string[]) => new Set(items).size === items.length;

export const scopeListSchema = z
  .array(z.enum(SCOPES))
  .max(SCOPES.length)
  .refine(distinct, 'must not name a scope twice')
  .meta({
    description: 'Scopes as the spec names them, each at most once.',
    example: ['projects:read', 'developers:read'],
    uniqueItems: true,
  });

export const entitlementListSchema = z
  .array(z.enum(ENTITLEMENTS))
  .max(ENTITLEMENTS.length)
  .refine(distinct, 'must not name an entitlement twice')
  .meta({ description: 'Entitlements as the spec names them, each at most once.', example: ['images', 'floorplans'], uniqueItems: true });

/**
 * Grants are sets; they are kept in the spec's order so that the same set is always the same list, and a
 * revision that only reorders them changes nothing.
 */
function inSpecOrder<Grant extends string>(grants: readonly Grant[], order: readonly Grant[]): Grant[] {
  return order.filter((grant) => grants.includes(grant));
}

export const scopesInSpecOrder = (scopes: readonly Scope[]): Scope[] => inSpecOrder(scopes, SCOPES);
export const entitlementsInSpecOrder = (entitlements: readonly Entitlement[]): Entitlement[] => inSpecOrder(entitlements, ENTITLEMENTS);

export interface Grants {
  scopes: Scope[];
  entitlements: Entitlement[];
}

/**
 * What a client may use: its own lists where it has them (they replace the plan's, they do not add to
 * them), the plan's otherwise; nothing at all while the plan is inactive, so deactivating a plan takes
 * effect for every client on it even where lists are overridden.
 */
export function effectiveGrants(
  plan: Grants & { active: boolean },
  overrides: { scopes: Scope[] | null; entitlements: Entitlement[] | null },
): Grants {
  if (!plan.active) return { scopes: [], entitlements: [] };
  return { scopes: overrides.scopes ?? plan.scopes, entitlements: overrides.entitlements ?? plan.entitlements };
}
