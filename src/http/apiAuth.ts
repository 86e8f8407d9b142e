import type { NextFunction, Request, Response } from 'express';
import type { AccessContext, Entitlement, Scope } from '../access/accessContext.js';
import { lookupAccess } from './lookupAccess.js';
import { ApiError } from '../domain/errors.js';
import type { ReadStore } from '../readStore/readStore.js';
import { Unauthenticated } from './httpErrors.js';
import { findRequestContext } from './requestContext.js';

const ACCESS_KEY = 'access';

/** Query parameters clients put keys in by habit; any value shaped like one of our keys counts too. */
const KEY_QUERY_PARAMETERS = new Set(['api_key', 'apikey', 'key', 'access_token', 'token']);
const LOOKS_LIKE_KEY = /svc_(live|test)_/;

/**
 * A key in the query string is refused before anything else: URLs end up in logs, proxies and browser
 * history, so such a key is never used (not even looked up) and the caller is told why.
 */
export class KeyInQueryString extends ApiError {
  constructor() {
    super(
      400,
      'API_KEY_IN_QUERY',
      'API keys are accepted only in the Authorization header (Bearer). A key sent in a URL must be treated as exposed and rotated.',
    );
  }
}

/**
 * 403 for a verified key that lacks what an endpoint needs. Both lists are always in `details`, so a
 * related-resource batch names everything missing at once; the code says which kind is missing
 * (INSUFFICIENT_SCOPE whenever a scope is).
 */
export class MissingGrants extends ApiError {
  constructor(missingScopes: Scope[], missingEntitlements: Entitlement[]) {
    const scopeMissing = missingScopes.length > 0;
    super(
      403,
      scopeMissing ? 'INSUFFICIENT_SCOPE' : 'ENTITLEMENT_REQUIRED',
      scopeMissing
        ? `This key lacks the scope ${missingScopes.join(', ')}.`
        : `The plan lacks the entitlement ${missingEntitlements.join(', ')}.`,
      { missing_scopes: missingScopes, missing_entitlements: missingEntitlements },
    );
  }
}

function keyInQuery(req: Request): boolean {
  for (const [name, value] of Object.entries(req.query)) {
    if (KEY_QUERY_PARAMETERS.has(name.toLowerCase())) return true;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'string' && LOOKS_LIKE_KEY.test(item))) return true;
  }
  return false;
}

/**
 * A check of a verified key's request beyond the key itself (network controls, request signing): throws an
 * ApiError to refuse it. Checks run in the order given, after the key, client and plan checks of lookupAccess.
 */
export type RequestCheck = (req: Request, access: AccessContext, presentedKey: string) => void | Promise<void>;

/**
 * `Authorization: Bearer <key>` for /v1. Every failure to verify (no header, another scheme, a malformed or
 * unknown key) gets the one 401 body, so nothing is learnt about accounts from the difference; a verified
 * key that may not be used gets its exact 403 (lookupAccess, then `checks`).
 */
export function apiAuth(readStore: ReadStore, checks: readonly RequestCheck[] = [], clock: () => Date = () => new Date()) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (keyInQuery(req)) throw new KeyInQueryString();
    const presented = /^Bearer +(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const access = await lookupAccess(readStore, presented ?? '', clock());
    if (!access) throw new Unauthenticated();
    // Logged with the request, refused by a check below or not.
    const context = findRequestContext(res);
    if (context) context.clientId = access.clientId;
    for (const check of checks) await check(req, access, presented ?? '');
    res.locals[ACCESS_KEY] = access;
    res.setHeader('X-Access-Mode', access.evaluation === null ? 'commercial' : 'evaluation');
    res.setHeader('X-Sandbox', String(access.environment === 'test'));
    next();
  };
}

export function accessOf(res: Response): AccessContext {
  const access = res.locals[ACCESS_KEY] as AccessContext | undefined;
  if (!access) throw new Error('The API authentication middleware is not mounted.');
  return access;
}

export function requireGrants(access: AccessContext, scopes: readonly Scope[], entitlements: readonly Entitlement[]): void {
  const missingScopes = scopes.filter((scope) => !access.scopes.has(scope));
  const missingEntitlements = entitlements.filter((entitlement) => !access.entitlements.has(entitlement));
  if (missingScopes.length > 0 || missingEntitlements.length > 0) throw new MissingGrants(missingScopes, missingEntitlements);
}
