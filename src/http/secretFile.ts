import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
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
 * with mode 0600. The file is created exclusively, so two processes starting together end up with the same
 * secret.
 */
export async function ensureSecretFile(dataDir: string, fileName: string, minLength: number): Promise<SecretFile> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = join(dataDir, fileName);
  let created = true;
  try {
    await writeFile(path, `${randomBytes(32).toString('base64url')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  }
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < minLength || /\s/.test(secret)) {
    throw new Error(`${path} must hold one secret of at least ${minLength} characters; delete it to generate a new one.`);
  }
  const permissionsTooOpen = ((await stat(path)).mode & 0o077) !== 0;
  return { secret, path, created, permissionsTooOpen };
}
