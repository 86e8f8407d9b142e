import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../dataDir.js';
import type { Logger } from '../logger.js';

/*
 * Uploads are staged in DATA_DIR/uploads/ (0700) before anything else happens to them: sniffing and decoding
 * need the whole file, and the blob store gets it only once it is known to be what it claims. A staged file
 * is removed once its request is answered, whatever the outcome. Names carry the writing process's id, so
 * that at start the files of processes no longer running (a crash, a kill -9) are removed, and only those:
 * another process sharing DATA_DIR may be receiving its own.
 */

const STAGING_NAME = /^(\d+)-[0-9a-f-]+$/;
/** A file older than this is a leftover whatever its process id says (an id reused after a restart). */
const STALE_MS = 24 * 60 * 60 * 1000;

export interface StagedFile {
  path: string;
  size: number;
  remove(): Promise<void>;
}

export class UploadTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upload exceeds ${limitBytes} bytes`);
  }
}

export class UploadAborted extends Error {
  constructor() {
    super('the client stopped sending the upload');
  }
}

export interface UploadStaging {
  readonly dir: string;
  /**
   * Copies `source` into a new staging file, at most `limitBytes` of it: past that, or when the source fails
   * or ends early, it stops reading (without destroying the source: the request is still answered), removes
   * the file and rejects (UploadTooLarge, UploadAborted, or the source's error).
   */
  stage(source: Readable, limitBytes: number): Promise<StagedFile>;
}

/** Creates DATA_DIR/uploads/ (0700) and removes what earlier processes left there. */
export async function openUploadStaging(dataDir: string, logger?: Logger): Promise<UploadStaging> {
  const dir = join(dataDir, 'uploads');
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
  const removed = await removeLeftovers(dir);
  if (removed > 0) logger?.info({ dir, removed }, 'removed upload staging files left by earlier processes');
  return {
    dir,
    async stage(source, limitBytes) {
      const path = join(dir, `${process.pid}-${randomUUID()}`);
      const remove = () => rm(path, { force: true });
      try {
        const size = await copyLimited(source, path, limitBytes);
        return { path, size, remove };
      } catch (error) {
        await remove();
        throw error;
      }
    },
  };
}

async function removeLeftovers(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const owner = STAGING_NAME.exec(name)?.[1];
    const stale = owner === undefined || Number(owner) === process.pid || !isRunning(Number(owner)) || (await isOlderThan(path, STALE_MS));
    if (!stale) continue;
    await rm(path, { force: true, recursive: true });
    removed++;
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isOlderThan(path: string, ms: number): Promise<boolean> {
  const stats = await stat(path).catch(() => null);
  return stats !== null && Date.now() - stats.mtimeMs > ms;
}

/**
 * Reads `source` chunk by chunk into a new file. Reading stops on the first byte past the limit; the source
 * is left paused and unread rather than destroyed, so the caller can still answer the request.
 */
function copyLimited(source: Readable, path: string, limitBytes: number): Promise<number> {
  const file = createWriteStream(path, { flags: 'wx', mode: PRIVATE_FILE_MODE });
  return new Promise<number>((resolve, reject) => {
    let size = 0;
    let ended = false;
    const stop = (error: unknown) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', stop);
      source.off('close', onClose);
      file.destroy();
      // The file stream closes before the caller removes the file.
      finished(file).then(
        () => reject(error),
        () => reject(error),
      );
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        source.pause();
        stop(new UploadTooLarge(limitBytes));
        return;
      }
      if (!file.write(chunk)) {
        source.pause();
        file.once('drain', () => source.resume());
      }
    };
    const onEnd = () => {
      ended = true;
      source.off('data', onData);
      source.off('error', stop);
      source.off('close', onClose);
      file.end();
      finished(file).then(() => resolve(size), reject);
    };
    const onClose = () => {
      if (!ended) stop(new UploadAborted());
    };
    file.once('error', stop);
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', stop);
    source.once('close', onClose);
  });
}
