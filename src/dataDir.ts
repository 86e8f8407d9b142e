import { closeSync, mkdirSync, openSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './logger.js';

/**
 * DATA_DIR holds key hashes, client data and the generated secrets: only the service's user may list it
 * or read anything in it.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const OPEN_TO_OTHERS = 0o077;

export function makePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates a SQLite database file owner-only before SQLite opens it. SQLite creates a database's -wal, -shm
 * and -journal files with the database file's own mode (whatever the umask), so they are private too; and
 * unlike a umask set around the open, this changes no process-wide state that other code (or a worker
 * thread, which cannot set one) would create files under meanwhile. An existing file keeps its mode:
 * ensurePrivateDataDir fixes those at start.
 */
export function createPrivateDatabaseFile(file: string): void {
  if (file === '' || file === ':memory:') return;
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
}

interface ModeChange {
  path: string;
  from: string;
  to: string;
}

interface ModeFailure {
  path: string;
  code: string;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/**
 * Creates `dir` 0700, or makes an existing one 0700 with every file under it 0600 (data an earlier version
 * wrote with the default 0755/0644). Logs one warning naming each path and mode it changed, and each it
 * could not change (e.g. owned by another user: the service still starts); never anything's contents.
 * Symbolic links are left alone, since chmod would change what they point to.
 */
export async function ensurePrivateDataDir(dir: string, logger: Logger): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const changed: ModeChange[] = [];
  const failed: ModeFailure[] = [];

  const makePrivate = async (path: string, mode: number, privateMode: number) => {
    if ((mode & OPEN_TO_OTHERS) === 0) return;
    try {
      await chmod(path, privateMode);
      changed.push({ path, from: octal(mode), to: octal(privateMode) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      // Gone since it was listed (a temporary file renamed into place by another process).
      if (code !== 'ENOENT') failed.push({ path, code });
    }
  };

  const visit = async (path: string) => {
    const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (stats === null) return;
    if (stats.isDirectory()) {
      await makePrivate(path, stats.mode, PRIVATE_DIR_MODE);
      for (const name of await readdir(path)) await visit(join(path, name));
    } else if (stats.isFile()) {
      await makePrivate(path, stats.mode, PRIVATE_FILE_MODE);
    }
  };

  await visit(dir);
  if (changed.length > 0 || failed.length > 0) {
    logger.warn(
      { dataDir: dir, changed, ...(failed.length > 0 ? { failed } : {}) },
      `DATA_DIR was readable by other users: made ${changed.length} path(s) owner-only` +
        (failed.length > 0 ? `; ${failed.length} could not be changed` : ''),
    );
  }
}
