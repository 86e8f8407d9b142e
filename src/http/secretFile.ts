import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../dataDir.js';

export interface SecretFile {
  secret: string;
  path: string;
  /** True on the start that generated the file. */
  created: boolean;
  permissionsTooOpen: boolean;
}

/**
 * A secret kept in `dataDir/fileName` for embedded mode: generated on first use (32 random bytes, base64url)
 * with mode 0600. The secret is written to a file of this call's own and then hard-linked to its name, which
 * fails if the name exists: the file appears whole or not at all, so processes starting together (api
 * replicas and a worker on one fresh DATA_DIR) end up with the same secret, and none reads it half-written.
 */
export async function ensureSecretFile(dataDir: string, fileName: string, minLength: number): Promise<SecretFile> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = join(dataDir, fileName);
  const candidate = join(dataDir, `.${fileName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let created = true;
  try {
    await writeFile(candidate, `${randomBytes(32).toString('base64url')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await link(candidate, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    await rm(candidate, { force: true });
  }
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < minLength || /\s/.test(secret)) {
    throw new Error(`${path} must hold one secret of at least ${minLength} characters; delete it to generate a new one.`);
  }
  const permissionsTooOpen = ((await stat(path)).mode & 0o077) !== 0;
  return { secret, path, created, permissionsTooOpen };
}
