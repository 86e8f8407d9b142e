import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ADMIN_TOKEN_MIN_LENGTH } from '../config.js';
import { Unauthenticated } from './httpErrors.js';
import { ensureSecretFile } from './secretFile.js';

/** Who admin commands are recorded as (there is one admin credential). */
export const ADMIN_ACTOR = 'admin';

export const ADMIN_TOKEN_FILE_NAME = 'admin-token';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * `Authorization: Bearer <token>`. Digests are compared (equal length, constant time), so neither the
 * token's content nor its length leaks through timing; every failure gets the same 401.
 */
export function adminAuth(adminToken: string) {
  const expectedDigest = sha256(adminToken);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const match = /^Bearer +([^\s]+)$/i.exec(req.get('authorization') ?? '');
    const presented = match?.[1];
    if (presented === undefined || !timingSafeEqual(sha256(presented), expectedDigest)) {
      next(new Unauthenticated());
      return;
    }
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
