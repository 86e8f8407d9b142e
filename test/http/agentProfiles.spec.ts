import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { pictureBytes, sha256 } from '../support/storedFiles.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const IMAGE_LIMIT = 300_000;

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | FormData | string;
}

const json = (value: unknown, headers: Record<string, string> = {}): Sent => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});
const raw = (bytes: Buffer, contentType: string): Sent => ({ headers: { 'content-type': contentType }, body: bytes });

function form(fields: Record<string, string>, picture: { bytes: Buffer; type: string; name: string }): Sent {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append('picture', new Blob([picture.bytes], { type: picture.type }), picture.name);
  return { body };
}

const profileFields = {
  agent_name: 'Sara Haddad',
  company_name: 'Marina Homes',
  email: 'sara@marina-homes.example',
  phone: '+971 50 123 4567',
};

describe('agent profiles through the admin API', () => {
  let app: TestApp;
  let dataDir: string;
  let clientId: number;
  let otherClientId: number;

  async function send(path: string, { method = 'POST', headers = {}, body }: Sent = {}) {
    const response = await fetch(`${app.baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${app.adminToken}`, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  }

  /** Runs a command that must succeed and answers its data. */
  async function accepted(path: string, sent: Sent = {}) {
    const answer = await send(path, sent);
    if (answer.status >= 300) throw new Error(`${sent.method ?? 'POST'} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /** Sends a request that must be refused: nothing is appended and nothing is left in staging. */
  async function refused(path: string, sent: Sent) {
    const headBefore = await app.eventStore.headPosition();
    const answer = await send(path, sent);
    expect(await app.eventStore.headPosition()).toBe(headBefore);
    expect(readdirSync(join(dataDir, 'uploads'))).toEqual([]);
    return answer;
  }

  async function settle() {
    await app.projector.waitForPosition((await app.eventStore.headPosition())!, 10_000);
  }

  const media = (path: string) => fetch(`${app.baseUrl}/v1/media/${path}`, { redirect: 'manual' });
  const createProfile = async (overrides: Record<string, unknown> = {}, client = clientId) =>
    accepted(`/clients/${client}/agent-profiles`, json({ ...profileFields, ...overrides }));

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-profiles-'));
    app = await startTestApp({ env: { DATA_DIR: dataDir, UPLOAD_MAX_IMAGE_BYTES: String(IMAGE_LIMIT) } });
    await accepted('/plans', json({ key: 'agency', name: 'Agency', scopes: [], entitlements: [] }));
    clientId = (await accepted('/clients', json({ name: 'Marina Homes', plan: 'agency' }))).id;
    otherClientId = (await accepted('/clients', json({ name: 'Creek Realty', plan: 'agency' }))).id;
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a profile is created with its portrait as a multipart part, then it is a draft whose picture facts are read from the file', async () => {
    const bytes = await pictureBytes({ width: 900, height: 1200, seed: 1 });
    const answer = await send(
      `/clients/${clientId}/agent-profiles`,
      form({ ...profileFields, whatsapp: '+971 50 765 4321' }, { bytes, type: 'image/jpeg', name: 'sara.jpg' }),
    );

    expect(answer.status).toBe(201);
    expect(answer.headers.get('etag')).toBe('"0"');
    expect(answer.body.data).toMatchObject({
      client_id: clientId,
      ...profileFields,
      whatsapp: '+971 50 765 4321',
      status: 'draft',
      deleted: false,
      revision: 0,
      picture: {
        key: sha256(bytes),
        file_name: 'sara.jpg',
        content_type: 'image/jpeg',
        width: 900,
        height: 1200,
        size_bytes: bytes.length,
      },
    });
    await settle();
    const read = await send(`/agent-profiles/${answer.body.data.id}`, { method: 'GET' });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(answer.body.data);
    const served = await media(`agent-profile-${answer.body.data.id}/${sha256(bytes)}-800.webp`);
    expect(served.status).toBe(200);
    const metadata = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect(metadata).toMatchObject({ format: 'webp', width: 800, height: 1067 });
  });

  it("when the client has an account token, then the account form of the portrait's address serves it in every width", async () => {
    const bytes = await pictureBytes({ width: 1000, height: 1250, seed: 9 });
    const profile = await accepted(
      `/clients/${clientId}/agent-profiles`,
      form(profileFields, { bytes, type: 'image/jpeg', name: 'p.jpg' }),
    );
    await accepted(`/clients/${clientId}/account-token`, { method: 'PUT', ...json({ account_token: 'marina-homes' }) });
    await settle();

    for (const [suffix, width] of [
      ['.webp', 1000],
      ['-1600.webp', 1000],
      ['-800.webp', 800],
      ['-400.webp', 400],
    ] as const) {
      const served = await media(`c/marina-homes/agent-profile-${profile.id}/${sha256(bytes)}${suffix}`);
      expect(served.status, suffix).toBe(200);
      expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).width, suffix).toBe(width);
    }
    expect((await media(`c/unknown-token/agent-profile-${profile.id}/${sha256(bytes)}.webp`)).status).toBe(404);
  });

  it('when the portrait is replaced by raw bytes, then it gets a new key and the old address redirects to the new one', async () => {
    const first = await pictureBytes({ width: 600, height: 800, seed: 2 });
    const profile = await accepted(
      `/clients/${clientId}/agent-profiles`,
      form(profileFields, { bytes: first, type: 'image/jpeg', name: 'a.jpg' }),
    );
    const second = await pictureBytes({ width: 500, height: 700, format: 'png', seed: 3 });

    const replaced = await accepted(`/agent-profiles/${profile.id}/picture?file_name=portrait.png`, {
      method: 'PUT',
      ...raw(second, 'image/png'),
    });

    expect(replaced.picture).toMatchObject({ key: sha256(second), file_name: 'portrait.png', content_type: 'image/png', width: 500 });
    expect(replaced.revision).toBe(1);
    await settle();
    const old = await media(`agent-profile-${profile.id}/${sha256(first)}-400.webp`);
    expect(old.status).toBe(307);
    expect(old.headers.get('location')).toBe(`${sha256(second)}-400.webp`);
    expect((await media(`agent-profile-${profile.id}/${sha256(second)}-original.png`)).status).toBe(200);
  });

  it('when a profile is revised with a portrait in a multipart PATCH, then its fields and picture change together', async () => {
    const profile = await createProfile();
    const bytes = await pictureBytes({ width: 400, height: 500, format: 'webp', seed: 4 });
    const revised = await accepted(`/agent-profiles/${profile.id}`, {
      method: 'PATCH',
      ...form({ company_name: 'Creek Homes' }, { bytes, type: 'image/webp', name: 'new.webp' }),
    });
    expect(revised).toMatchObject({
      company_name: 'Creek Homes',
      picture: { key: sha256(bytes), content_type: 'image/webp' },
      revision: 2,
    });
  });

  describe('refused portraits', () => {
    let profileId: number;
    beforeAll(async () => {
      profileId = (await createProfile()).id;
    });

    it('when a PNG is sent as image/jpeg, then 422 FILE_CONTENT_MISMATCH naming body.picture, and nothing is appended or stored', async () => {
      const bytes = await pictureBytes({ format: 'png', seed: 5 });
      const answer = await refused(`/agent-profiles/${profileId}/picture`, { method: 'PUT', ...raw(bytes, 'image/jpeg') });
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({
        code: 'FILE_CONTENT_MISMATCH',
        details: { field: 'body.picture', detected_type: 'image/png' },
      });
      expect(await app.blobStore.stat(sha256(bytes))).toBeNull();
    });

    it('when a JPEG is cut short, then 422 FILE_CORRUPT, and nothing is appended or stored', async () => {
      const whole = await pictureBytes({ width: 400, height: 300, seed: 6 });
      const truncated = whole.subarray(0, Math.floor(whole.length / 2));
      const answer = await refused(`/agent-profiles/${profileId}/picture`, { method: 'PUT', ...raw(truncated, 'image/jpeg') });
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'FILE_CORRUPT', details: { field: 'body.picture' } });
      expect(await app.blobStore.stat(sha256(truncated))).toBeNull();
    });

    it('when the portrait is over UPLOAD_MAX_IMAGE_BYTES, then 413 PAYLOAD_TOO_LARGE, and nothing is appended', async () => {
      const bytes = Buffer.concat([await pictureBytes({ format: 'png', seed: 7 }), Buffer.alloc(IMAGE_LIMIT)]);
      const answer = await refused(
        `/clients/${clientId}/agent-profiles`,
        form(profileFields, { bytes, type: 'image/png', name: 'big.png' }),
      );
      expect(answer.status).toBe(413);
      expect(answer.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { field: 'body.picture', limit_bytes: IMAGE_LIMIT } });
    });

    it('when the body is a PDF, then 415 lists the image types the portrait takes', async () => {
      const answer = await refused(`/agent-profiles/${profileId}/picture`, {
        method: 'PUT',
        ...raw(Buffer.from('%PDF-1.4\n'), 'application/pdf'),
      });
      expect(answer.status).toBe(415);
      expect(answer.body.error.details.accepted_types).toEqual(expect.arrayContaining(['image/jpeg', 'image/png', 'image/webp']));
    });

    it('when a JSON picture names no stored file, then 422 naming body.picture.key', async () => {
      const ghost = { key: 'f'.repeat(64), file_name: 'x.jpg', content_type: 'image/jpeg', width: 10, height: 10, size_bytes: 10 };
      const answer = await refused(`/agent-profiles/${profileId}/picture`, { method: 'PUT', ...json({ picture: ghost }) });
      expect(answer.status).toBe(422);
      expect(answer.body.error.details.fields).toHaveProperty(['body.picture.key']);
    });
  });

  it('when a profile goes through review, then draft → submitted → approved, an edit sends it back, a rejection carries its reason', async () => {
    const profile = await createProfile();
    const path = `/agent-profiles/${profile.id}`;
    expect((await accepted(`${path}/submit`)).status).toBe('submitted');
    expect((await accepted(`${path}/approve`)).status).toBe('approved');
    expect((await accepted(`${path}/approve`)).revision).toBe(2);

    const edited = await accepted(path, { method: 'PATCH', ...json({ phone: '+971 4 123 4567' }) });
    expect(edited).toMatchObject({ phone: '+971 4 123 4567', status: 'submitted', revision: 4 });

    const rejected = await accepted(`${path}/reject`, json({ reason: 'Use the office number' }));
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'Use the office number' });
    const approveRejected = await refused(`${path}/approve`, {});
    expect(approveRejected).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT', details: { status: 'rejected' } } } });

    await accepted(`${path}/submit`);
    expect(await accepted(`${path}/approve`)).toMatchObject({ status: 'approved', rejection_reason: null });
  });

  it('when a profile is deleted, then it answers 404 to reads and commands, leaves its client list, and its portrait address is gone', async () => {
    const bytes = await pictureBytes({ width: 300, height: 400, seed: 8 });
    const profile = await accepted(
      `/clients/${clientId}/agent-profiles`,
      form(profileFields, { bytes, type: 'image/jpeg', name: 'p.jpg' }),
    );
    const deleted = await accepted(`/agent-profiles/${profile.id}`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ id: profile.id, deleted: true });
    await settle();

    expect((await send(`/agent-profiles/${profile.id}`, { method: 'GET' })).status).toBe(404);
    expect((await refused(`/agent-profiles/${profile.id}`, { method: 'PATCH', ...json({ agent_name: 'X' }) })).status).toBe(404);
    expect((await refused(`/agent-profiles/${profile.id}`, { method: 'DELETE' })).status).toBe(404);
    const listed = await accepted(`/clients/${clientId}/agent-profiles`, { method: 'GET' });
    expect(listed.map((item: { id: number }) => item.id)).not.toContain(profile.id);
    expect((await media(`agent-profile-${profile.id}/${sha256(bytes)}.webp`)).status).toBe(404);
  });

  it("when a client's profiles are listed, then only its own are, by id, and another client's list has only theirs", async () => {
    const own = await createProfile({ agent_name: 'Omar' });
    const other = await createProfile({ agent_name: 'Lina' }, otherClientId);
    await settle();

    const ownList = (await accepted(`/clients/${clientId}/agent-profiles`, { method: 'GET' })) as Array<{ id: number; client_id: number }>;
    const otherList = (await accepted(`/clients/${otherClientId}/agent-profiles`, { method: 'GET' })) as Array<{ id: number }>;
    expect(ownList.every((item) => item.client_id === clientId)).toBe(true);
    expect(ownList.map((item) => item.id)).toContain(own.id);
    expect(ownList.map((item) => item.id)).toEqual([...ownList.map((item) => item.id)].sort((a, b) => a - b));
    expect(otherList.map((item) => item.id)).toEqual([other.id]);
  });

  it('when a client or a profile does not exist, then 404; bad fields are 422 naming them; a stale If-Match is 409', async () => {
    expect((await refused('/clients/999/agent-profiles', json(profileFields))).status).toBe(404);
    expect((await send('/clients/999/agent-profiles', { method: 'GET' })).status).toBe(404);
    expect((await send('/agent-profiles/999', { method: 'GET' })).status).toBe(404);

    const invalid = await refused(`/clients/${clientId}/agent-profiles`, json({ ...profileFields, email: 'sara', phone: '0501234567' }));
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.error.details.fields).sort()).toEqual(['body.email', 'body.phone']);

    const profile = await createProfile();
    const stale = await refused(`/agent-profiles/${profile.id}`, {
      method: 'PATCH',
      ...json({ agent_name: 'New' }, { 'if-match': '"5"' }),
    });
    expect(stale.status).toBe(409);
    const current = await send(`/agent-profiles/${profile.id}`, { method: 'PATCH', ...json({ agent_name: 'New' }, { 'if-match': '"0"' }) });
    expect(current.status).toBe(200);
    const staleClient = await refused(`/clients/${clientId}/agent-profiles`, json(profileFields, { 'if-match': '"99"' }));
    expect(staleClient.status).toBe(409);
  });
});
