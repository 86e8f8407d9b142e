import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ADMIN_EDITORS, EDITOR_TOKENS, type AdminEditorDoc, type EditorTokenDoc } from '../../projections/editors.js';
import { editorActorId, tokenIsLive, type EditorRole } from '../access/editor.js';
import { hashEditorToken } from '../access/editorTokens.js';
import { ADMIN_TOKEN_MIN_LENGTH } from '../config.js';
import { ApiError } from '../domain/errors.js';
import type { ReadStore } from '../readStore/readStore.js';
import { Unauthenticated } from './httpErrors.js';
import { blockListOf, clientAddress } from './networkControls.js';
import { ensureSecretFile } from './secretFile.js';

/** Who the bootstrap token's commands are recorded as: ADMIN_TOKEN is an `admin` with no account. */
export const ADMIN_ACTOR = 'bootstrap';

export const ADMIN_TOKEN_FILE_NAME = 'admin-token';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Who an authenticated admin request comes from. */
export interface AdminCaller {
  role: EditorRole;
  /** `bootstrap` or `editor:<id>`, as event metadata records it. */
  actor: string;
  /** Null for the bootstrap token. */
  editorId: number | null;
  tokenId: number | null;
  /** The client's address (see clientAddress); null when the socket had no peer any more. */
  clientAddress: string | null;
}

/**
 * 403 for an authenticated caller whose role may not run the operation: `allowed_roles` are every role that
 * may (least first, see EDITOR_ROLES), `required_role` the least of them, which refusals named when the roles
 * were a ladder and clients may still read.
 */
export class InsufficientRole extends ApiError {
  constructor(allowed: readonly EditorRole[], role: EditorRole) {
    super(403, 'INSUFFICIENT_ROLE', `This operation is for the roles ${allowed.join(', ')}; the caller's role is ${role}.`, {
      role,
      allowed_roles: allowed,
      required_role: allowed[0],
    });
  }
}

export function requireRole(caller: AdminCaller, allowed: readonly EditorRole[]): void {
  if (!allowed.includes(caller.role)) throw new InsufficientRole(allowed, caller.role);
}

const CALLER_KEY = 'adminCaller';

export function adminCallerOf(res: Response): AdminCaller {
  const caller = res.locals[CALLER_KEY] as AdminCaller | undefined;
  if (!caller) throw new Error('The admin authentication middleware is not mounted.');
  return caller;
}

/**
 * The account a presented editor token belongs to, if the token works: known (found by its SHA-256 hash, as
 * API keys are: finding a token from its hash means inverting SHA-256, so equality on the hash leaks nothing
 * worth a constant-time compare), not revoked, not expired, and its account active. A revocation, a
 * deactivation or a role change holds once the projector has applied it (milliseconds; see X-Consistent-After).
 */
async function editorCaller(readStore: ReadStore, presented: string, now: Date): Promise<Omit<AdminCaller, 'clientAddress'> | null> {
  const lookup = await readStore.get<EditorTokenDoc>(EDITOR_TOKENS, hashEditorToken(presented));
  if (!lookup) return null;
  const editor = await readStore.get<AdminEditorDoc>(ADMIN_EDITORS, lookup.editor_id);
  const token = editor?.tokens.find((candidate) => candidate.token_id === lookup.token_id);
  if (!editor?.active || !token || !tokenIsLive(token, now.toISOString())) return null;
  return { role: editor.role, actor: editorActorId(lookup.editor_id), editorId: lookup.editor_id, tokenId: lookup.token_id };
}

export interface AdminAuthDeps {
  adminToken: string;
  /** The editor accounts' read model (projections/editors.ts). */
  readStore: ReadStore;
  clock: () => Date;
  /** TRUSTED_PROXIES: whose X-Forwarded-For names the client address recorded with a command. */
  trustedProxies?: readonly string[];
  /** The roles every request must have one of (the /metrics scrape); omitted = each operation checks its own. */
  allowedRoles?: readonly EditorRole[];
}

/**
 * `Authorization: Bearer <token>`: the bootstrap token (ADMIN_TOKEN, role admin) or an editor account's
 * token. The bootstrap token's digest is compared in constant time, so neither its content nor its length
 * leaks through timing; an editor token is found by its hash. Every failure (no token, unknown, revoked,
 * expired, account deactivated) gets the same 401.
 */
export function adminAuth(deps: AdminAuthDeps) {
  const expectedDigest = sha256(deps.adminToken);
  const trusted = deps.trustedProxies && deps.trustedProxies.length > 0 ? blockListOf(deps.trustedProxies) : null;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const presented = /^Bearer +([^\s]+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented === undefined) throw new Unauthenticated();
    const caller = timingSafeEqual(sha256(presented), expectedDigest)
      ? { role: 'admin' as const, actor: ADMIN_ACTOR, editorId: null, tokenId: null }
      : await editorCaller(deps.readStore, presented, deps.clock());
    if (!caller) throw new Unauthenticated();
    const authenticated: AdminCaller = { ...caller, clientAddress: clientAddress(req, trusted) };
    if (deps.allowedRoles) requireRole(authenticated, deps.allowedRoles);
    res.locals[CALLER_KEY] = authenticated;
    next();
  };
}

export type AdminTokenSource =
  | { source: 'environment' }
  /** `created` is true on the start that generated the file. */
  | { source: 'file'; path: string; created: boolean; permissionsTooOpen: boolean };

/**
 * ADMIN_TOKEN when set; otherwise (embedded mode) the token kept in DATA_DIR/admin-token, generated on
 * first start (32 random bytes, base64url) with mode 0600. The file is created exclusively, so two
 * processes starting together end up with the same token.
 */
export async function resolveAdminToken(options: { adminToken?: string; dataDir: string }): Promise<{ token: string } & AdminTokenSource> {
  if (options.adminToken !== undefined) return { token: options.adminToken, source: 'environment' };
  const { secret, path, created, permissionsTooOpen } = await ensureSecretFile(
    options.dataDir,
    ADMIN_TOKEN_FILE_NAME,
    ADMIN_TOKEN_MIN_LENGTH,
  );
  return { token: secret, source: 'file', path, created, permissionsTooOpen };
}
