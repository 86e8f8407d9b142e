import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { killNpmStart, npmRun, npmStart, NPM_START_PATIENCE_MS, type NpmStart } from '../support/npmStart.js';

/*
 * kill -9 during an upload, against the service as the README starts it (`npm start`, embedded stores on
 * DATA_DIR), then a restart on the same DATA_DIR: whatever the moment of the kill, no blob with partial bytes
 * is visible, the upload staging folder and the blob store's temporary files of the dead process are gone,
 * and no event names bytes that are not stored. The moments: while the body is still arriving (the bytes are
 * in DATA_DIR/uploads only), while the blob store writes the checked file (DATA_DIR/blobs/tmp), and once the
 * blob is published but before the command's event is appended.
 */

const SHA256 = /^[0-9a-f]{64}$/;
const MEBIBYTE = 1024 * 1024;
/** Below UPLOAD_MAX_IMAGE_BYTES (25 MB by default), so that the service takes the whole body. */
const UPLOAD_LIMIT = 25 * 1000 * 1000;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** A real JPEG of about 20 MB: noise barely compresses. */
async function largeJpeg(): Promise<Buffer> {
  const bytes = await sharp({
    create: { width: 4600, height: 3400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .jpeg({ quality: 100 })
    .toBuffer();
  expect(bytes.length).toBeGreaterThan(15 * MEBIBYTE);
  expect(bytes.length).toBeLessThan(UPLOAD_LIMIT);
  return bytes;
}

/** Every string under a `key` field that is a SHA-256: how events and representations name stored files. */
function fileKeysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) fileKeysIn(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [field, item] of Object.entries(value)) {
      if (field === 'key' && typeof item === 'string' && SHA256.test(item)) into.add(item);
      else fileKeysIn(item, into);
    }
  }
  return into;
}

/** A POST whose body the test sends when it chooses; `outcome` settles with the answer or the connection's end. */
function openUpload(origin: string, path: string, token: string, contentLength: number) {
  const req = http.request(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'image/jpeg', 'content-length': String(contentLength) },
  });
  const outcome = new Promise<{ status: number } | { error: string }>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode! });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
  const write = (bytes: Buffer) => new Promise<void>((resolve, reject) => req.write(bytes, (error) => (error ? reject(error) : resolve())));
  return { req, outcome, write };
}

describe('kill -9 during an upload, then a restart on the same DATA_DIR', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-upload-kill-'));
  const blobsDir = join(dataDir, 'blobs');
  const blobsTmpDir = join(blobsDir, 'tmp');
  const stagingDir = join(dataDir, 'uploads');
  const started: NpmStart[] = [];
  /** The service the next test works on: each test kills it and leaves a restarted one. */
  let service: NpmStart;
  let adminToken: string;
  let projectId: number;
  let picture: Buffer;

  const start = async () => {
    const restarted = await npmStart(dataDir, { SEED_DEMO: 'true', SEED_PROJECTS: '3', LOG_LEVEL: 'warn' });
    started.push(restarted);
    return restarted;
  };

  /** SIGKILL to the service process itself: npm relays only the signals a process can catch. */
  const kill = (pid: number) => process.kill(pid, 'SIGKILL');

  const galleryPath = () => `/admin/v1/projects/${projectId}/gallery?file_name=large.jpg`;

  const adminProject = async () => {
    const answer = await request(service.origin, `/admin/v1/projects/${projectId}`, { token: adminToken });
    expect(answer.status).toBe(200);
    return answer.body.data as { revision: number };
  };

  /** The blobs as the embedded store lays them out: blobs/ab/<sha256>, with blobs/ab/<sha256>.json beside it. */
  const storedBlobs = (): Array<{ sha256: string; path: string }> =>
    readdirSync(blobsDir)
      .filter((dir) => /^[0-9a-f]{2}$/.test(dir))
      .flatMap((dir) =>
        readdirSync(join(blobsDir, dir))
          .filter((name) => SHA256.test(name))
          .map((name) => ({ sha256: name, path: join(blobsDir, dir, name) })),
      );
  const isStored = (key: string) => existsSync(join(blobsDir, key.slice(0, 2), key));

  /** Read-only, beside the running service: the SQLite event store is in WAL mode. */
  const keysNamedByEvents = (): Set<string> => {
    const database = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const keys = new Set<string>();
      for (const row of database.prepare('SELECT data FROM events').iterate() as Iterable<{ data: string }>)
        fileKeysIn(JSON.parse(row.data), keys);
      return keys;
    } finally {
      database.close();
    }
  };

  /** What must hold after every restart, whatever the moment of the kill before it. */
  async function expectNothingHalfDone(deadPid: number): Promise<void> {
    expect(readdirSync(stagingDir), 'DATA_DIR/uploads after the start').toEqual([]);
    expect(
      readdirSync(blobsTmpDir).filter((name) => name.startsWith(`${deadPid}-`)),
      `DATA_DIR/blobs/tmp files of the killed process ${deadPid}`,
    ).toEqual([]);

    const blobs = storedBlobs();
    expect(blobs.length).toBeGreaterThan(0);
    for (const blob of blobs) {
      expect(await sha256OfFile(blob.path), `the bytes of blob ${blob.sha256}`).toBe(blob.sha256);
      const meta = JSON.parse(readFileSync(`${blob.path}.json`, 'utf8')) as { size: number };
      expect(statSync(blob.path).size, `the size of blob ${blob.sha256}`).toBe(meta.size);
    }

    const named = keysNamedByEvents();
    expect(named.size).toBeGreaterThan(0);
    expect(
      [...named].filter((key) => !isStored(key)),
      'keys named by events with no stored blob',
    ).toEqual([]);
    const represented = fileKeysIn(await adminProject());
    expect(represented.size).toBeGreaterThan(0);
    expect(
      [...represented].filter((key) => !isStored(key)),
      `keys of project ${projectId} with no stored blob`,
    ).toEqual([]);
  }

  beforeAll(async () => {
    picture = await largeJpeg();
    service = await start();
    // As the README says: the admin token is generated into DATA_DIR, the demo keys too.
    adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const demoKey = /^DEMO_API_KEY_LIVE=(.+)$/m.exec(readFileSync(join(dataDir, 'demo-api-keys'), 'utf8'))![1]!;
    const projects = await request(service.origin, '/v1/projects?per_page=1', { token: demoKey });
    expect(projects.status).toBe(200);
    projectId = projects.body.data[0].id as number;
  }, NPM_START_PATIENCE_MS + 60_000);

  afterAll(() => {
    for (const each of started) killNpmStart(each);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'when the service is killed while the body is still arriving, then after a restart the staged part is gone, no blob holds part of it and nothing was appended',
    async () => {
      const { revision } = await adminProject();
      const pid = service.servicePid();
      const upload = openUpload(service.origin, galleryPath(), adminToken, picture.length);
      // Sent slowly: a mebibyte at a time, the next once the service has written the last to its staging file.
      const sent = 4 * MEBIBYTE;
      for (let offset = 0; offset < sent; offset += MEBIBYTE) {
        await upload.write(picture.subarray(offset, offset + MEBIBYTE));
        await eventually(`the service to stage ${offset + MEBIBYTE} bytes`, () => {
          const staged = readdirSync(stagingDir);
          return staged.length === 1 && statSync(join(stagingDir, staged[0]!)).size === offset + MEBIBYTE;
        });
      }

      kill(pid);
      await service.exited;
      expect(await upload.outcome).toHaveProperty('error');
      // What the kill left: the part received, in a staging file named by the dead process.
      const left = readdirSync(stagingDir);
      expect(left).toEqual([expect.stringMatching(new RegExp(`^${pid}-`))]);
      expect(statSync(join(stagingDir, left[0]!)).size).toBe(sent);

      service = await start();
      await expectNothingHalfDone(pid);
      expect(isStored(sha256(picture.subarray(0, sent)))).toBe(false);
      expect((await adminProject()).revision).toBe(revision);
    },
    3 * NPM_START_PATIENCE_MS,
  );

  it(
    'when the service is killed while the blob store writes the received file, then after a restart its temporary file is gone, the picture is not stored and nothing was appended',
    async () => {
      const { revision } = await adminProject();
      const pid = service.servicePid();
      // The blob store's temporary file of the bytes: <pid>-<uuid>, without the .json or .link suffix.
      const blobWrite = new RegExp(`^${pid}-[0-9a-f-]{36}$`);
      let watcher: FSWatcher | undefined;
      const killed = new Promise<void>((resolve) => {
        watcher = watch(blobsTmpDir, (_event, name) => {
          if (name === null || !blobWrite.test(name) || !existsSync(join(blobsTmpDir, name))) return;
          watcher!.close();
          kill(pid);
          resolve();
        });
      });
      const upload = openUpload(service.origin, galleryPath(), adminToken, picture.length);
      upload.req.end(picture);

      await killed;
      await service.exited;
      expect(await upload.outcome).toHaveProperty('error');
      // Killed mid-write: the temporary file is still there, the blob is not.
      expect(readdirSync(blobsTmpDir).filter((name) => blobWrite.test(name))).toHaveLength(1);
      expect(isStored(sha256(picture))).toBe(false);

      service = await start();
      await expectNothingHalfDone(pid);
      expect(isStored(sha256(picture))).toBe(false);
      expect((await adminProject()).revision).toBe(revision);
    },
    3 * NPM_START_PATIENCE_MS,
  );

  it(
    'when the service is killed once the picture is stored but before its event is appended, then after a restart the blob is whole, no event names it, and the garbage collector removes it',
    async () => {
      const key = sha256(picture);
      const { revision } = await adminProject();
      const pid = service.servicePid();
      // Another process appending to the same event store (`npm run seed`, a process of another role: the
      // embedded store serialises them on its write lock) holds the lock, so the service can store the picture
      // but not append the event that names it, whatever the speed of the machine. It waits for the lock
      // (SQLite's busy timeout, 5 s) and is killed meanwhile.
      const otherWriter = new Database(join(dataDir, 'events.sqlite'), { fileMustExist: true });
      try {
        otherWriter.exec('BEGIN IMMEDIATE');
        const upload = openUpload(service.origin, galleryPath(), adminToken, picture.length);
        upload.req.end(picture);
        await eventually('the picture to be stored', () => isStored(key), { timeoutMs: NPM_START_PATIENCE_MS });
        kill(pid);
        await service.exited;
        expect(await upload.outcome).toHaveProperty('error');
      } finally {
        otherWriter.exec('ROLLBACK');
        otherWriter.close();
      }
      expect(isStored(key)).toBe(true);

      service = await start();
      await expectNothingHalfDone(pid);
      expect(await sha256OfFile(join(blobsDir, key.slice(0, 2), key))).toBe(key);
      expect(keysNamedByEvents().has(key)).toBe(false);
      expect((await adminProject()).revision).toBe(revision);

      // README (Uploads): such a blob is left unreferenced, and the blob garbage collector removes it.
      const gc = await npmRun(dataDir, 'blobs:gc', ['--grace-hours', '0']);
      expect(gc.code, gc.stderr).toBe(0);
      expect(isStored(key)).toBe(false);
      await expectNothingHalfDone(pid);
    },
    3 * NPM_START_PATIENCE_MS,
  );
});
