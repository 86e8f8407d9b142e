import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { request, type Answer } from '../support/http.js';
import { resolveIn } from '../support/openApiRules.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';

/** The service's clock, fixed: tests pick timestamps relative to it. */
const NOW = new Date('2026-03-01T12:00:00.000Z');
const NOW_SECONDS = NOW.getTime() / 1_000;
const TARGET = '/v1/projects?sort=name&per_page=5';

/** With REDIS_URL set the service under test keeps its nonces in Redis, as a deployment would. */
const redisEnv = (): Record<string, string> => (process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {});

interface Signing {
  method?: string;
  target?: string;
  timestamp?: number | string;
  nonce?: string;
}

const newNonce = () => randomBytes(16).toString('hex');

/**
 * Signing as a client would write it from Authentication rule 6: HMAC-SHA256 keyed with the API key over
 * timestamp, nonce, uppercase method, the request target as sent and the SHA-256 hex of the (empty) body,
 * joined by newlines; sent as `v1=<hex>`.
 */
function signedHeaders(key: string, signing: Signing = {}): Record<string, string> {
  const timestamp = String(signing.timestamp ?? NOW_SECONDS);
  const nonce = signing.nonce ?? newNonce();
  const bodySha256 = createHash('sha256').update('').digest('hex');
  const lines = [timestamp, nonce, (signing.method ?? 'GET').toUpperCase(), signing.target ?? TARGET, bodySha256];
  const signature = createHmac('sha256', key).update(lines.join('\n')).digest('hex');
  return { 'X-API-Timestamp': timestamp, 'X-API-Nonce': nonce, 'X-API-Signature': `v1=${signature}` };
}

let api: ApiFixture;
let signer: IssuedKey;
let nonSigner: IssuedKey;

const noControls = { domain: null, ip_allow: [], ip_deny: [] };

async function requireSigning(issued: IssuedKey, fixture: ApiFixture = api): Promise<void> {
  const answer = await fixture.admin('PUT', `/clients/${issued.clientId}/controls`, {
    request_signing: true,
    environments: { live: noControls, test: noControls },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  await fixture.settle();
}

function send(key: string, headers: Record<string, string>, target = TARGET, method = 'GET', fixture: ApiFixture = api): Promise<Answer> {
  return request(fixture.app.baseUrl, target, { method, token: key, headers });
}

function expectRefused(answer: Answer, code: string): Record<string, unknown> {
  expect(answer.status, JSON.stringify(answer.body)).toBe(401);
  expect(answer.body.error.code).toBe(code);
  return answer.body.error.details;
}

beforeAll(async () => {
  api = await startApiFixture({ clock: () => NOW, env: redisEnv() });
  await api.given([...publishedReferenceCatalogue(), projectCreated(1, {}, minute(1)), projectEvent('ProjectPublished', 1, {}, minute(1))]);
  signer = await api.issue();
  nonSigner = await api.issue();
  await requireSigning(signer);
});

afterAll(async () => {
  await api.close();
});

describe('request signing on /v1 (Authentication rule 6)', () => {
  it('when a signing client sends a correctly signed request, then it is answered', async () => {
    const answer = await send(signer.key, signedHeaders(signer.key));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.map((project: { id: number }) => project.id)).toEqual([1]);
  });

  it('when a signing client sends no signing headers, then 401 SIGNATURE_REQUIRED names all three', async () => {
    expect(expectRefused(await send(signer.key, {}), 'SIGNATURE_REQUIRED')).toEqual({
      missing_headers: ['X-API-Timestamp', 'X-API-Nonce', 'X-API-Signature'],
    });
  });

  it('when a signing client leaves out one header, then SIGNATURE_REQUIRED names just that one', async () => {
    const { 'X-API-Nonce': _nonce, ...withoutNonce } = signedHeaders(signer.key);
    expect(expectRefused(await send(signer.key, withoutNonce), 'SIGNATURE_REQUIRED')).toEqual({ missing_headers: ['X-API-Nonce'] });
  });

  it('when a client without signing sends no headers or bad signing headers, then they are ignored and it is answered', async () => {
    expect((await send(nonSigner.key, {})).status).toBe(200);
    const bad = { 'X-API-Timestamp': 'yesterday', 'X-API-Nonce': 'short', 'X-API-Signature': 'v1=00' };
    expect((await send(nonSigner.key, bad)).status).toBe(200);
    const replayed = signedHeaders(nonSigner.key);
    expect((await send(nonSigner.key, replayed)).status).toBe(200);
    expect((await send(nonSigner.key, replayed)).status).toBe(200);
  });

  it('when a signing header is malformed, then 401 SIGNATURE_INVALID names that header, never echoing its value', async () => {
    const malformed: Array<[string, Partial<Record<string, string>>]> = [
      ['X-API-Timestamp', { 'X-API-Timestamp': `${NOW_SECONDS}.5` }],
      ['X-API-Timestamp', { 'X-API-Timestamp': `-${NOW_SECONDS}` }],
      ['X-API-Timestamp', { 'X-API-Timestamp': '1.7e9' }],
      ['X-API-Nonce', { 'X-API-Nonce': 'n'.repeat(15) }],
      ['X-API-Nonce', { 'X-API-Nonce': 'n'.repeat(129) }],
      ['X-API-Nonce', { 'X-API-Nonce': 'sixteen chars wi' }],
      ['X-API-Nonce', { 'X-API-Nonce': `${'n'.repeat(16)}é` }],
      ['X-API-Signature', { 'X-API-Signature': 'a'.repeat(64) }],
      ['X-API-Signature', { 'X-API-Signature': `v2=${'a'.repeat(64)}` }],
      ['X-API-Signature', { 'X-API-Signature': `v1=${'a'.repeat(63)}` }],
      ['X-API-Signature', { 'X-API-Signature': `v1=${'g'.repeat(64)}` }],
    ];
    for (const [header, override] of malformed) {
      const headers = { ...signedHeaders(signer.key), ...override } as Record<string, string>;
      const details = expectRefused(await send(signer.key, headers), 'SIGNATURE_INVALID');
      expect(Object.keys(details.headers as object), JSON.stringify(override)).toEqual([header]);
      expect(JSON.stringify(details)).not.toContain(Object.values(override)[0]);
    }
  });

  it('when the nonce is 16 or 128 printable characters and the signature hex is uppercase, then it is answered', async () => {
    // Random parts keep them unique across runs sharing one Redis.
    for (const nonce of [randomBytes(8).toString('hex'), `${'!~{}:"'.repeat(18)}${randomBytes(10).toString('hex')}`]) {
      expect([16, 128]).toContain(nonce.length);
      expect((await send(signer.key, signedHeaders(signer.key, { nonce }))).status, nonce).toBe(200);
    }
    const headers = signedHeaders(signer.key);
    headers['X-API-Signature'] = `v1=${headers['X-API-Signature']!.slice(3).toUpperCase()}`;
    expect((await send(signer.key, headers)).status).toBe(200);
  });

  it('when the timestamp is exactly at the window edge on either side, then it is answered', async () => {
    for (const timestamp of [NOW_SECONDS - 300, NOW_SECONDS + 300]) {
      expect((await send(signer.key, signedHeaders(signer.key, { timestamp }))).status, String(timestamp)).toBe(200);
    }
  });

  it('when the timestamp is one second outside the window on either side, then 401 SIGNATURE_EXPIRED gives the server time and window', async () => {
    for (const timestamp of [NOW_SECONDS - 301, NOW_SECONDS + 301, 0]) {
      const details = expectRefused(await send(signer.key, signedHeaders(signer.key, { timestamp })), 'SIGNATURE_EXPIRED');
      expect(details).toEqual({ server_time: NOW_SECONDS, window_seconds: 300 });
    }
  });

  it('when the signature was made with another key or over another request, then 401 SIGNATURE_INVALID names X-API-Signature', async () => {
    const wrong: Record<string, string>[] = [
      signedHeaders(nonSigner.key),
      signedHeaders(signer.key, { target: '/v1/projects' }),
      signedHeaders(signer.key, { target: '/projects?sort=name&per_page=5' }),
      signedHeaders(signer.key, { method: 'HEAD' }),
    ];
    const tampered = signedHeaders(signer.key);
    tampered['X-API-Timestamp'] = String(NOW_SECONDS + 1);
    wrong.push(tampered);
    for (const headers of wrong) {
      const details = expectRefused(await send(signer.key, headers), 'SIGNATURE_INVALID');
      expect(Object.keys(details.headers as object)).toEqual(['X-API-Signature']);
    }
  });

  it('when the same nonce is sent twice, then the second request gets 401 NONCE_REUSED; a fresh nonce is answered', async () => {
    const headers = signedHeaders(signer.key);
    expect((await send(signer.key, headers)).status).toBe(200);
    expect(expectRefused(await send(signer.key, headers), 'NONCE_REUSED')).toEqual({ header: 'X-API-Nonce' });
    const sameNonceNewSignature = signedHeaders(signer.key, { nonce: headers['X-API-Nonce']!, timestamp: NOW_SECONDS - 10 });
    expectRefused(await send(signer.key, sameNonceNewSignature), 'NONCE_REUSED');
    expect((await send(signer.key, signedHeaders(signer.key))).status).toBe(200);
  });

  it('when a request with a wrong signature uses a nonce, then the nonce is not used up: the genuine request with it is answered', async () => {
    const genuine = signedHeaders(signer.key);
    const forged = { ...genuine, 'X-API-Signature': `v1=${'0'.repeat(64)}` };
    expectRefused(await send(signer.key, forged), 'SIGNATURE_INVALID');
    expect((await send(signer.key, genuine)).status).toBe(200);
  });

  it('when two signing clients use the same nonce, then both are answered (nonces are per client)', async () => {
    const other = await api.issue();
    await requireSigning(other);
    const nonce = newNonce();
    expect((await send(signer.key, signedHeaders(signer.key, { nonce }))).status).toBe(200);
    expect((await send(other.key, signedHeaders(other.key, { nonce }))).status).toBe(200);
  });

  it('when the query string is signed as sent, then it is answered; signed without it or reordered, then SIGNATURE_INVALID', async () => {
    const target = '/v1/projects?per_page=5&sort=name';
    expect((await send(signer.key, signedHeaders(signer.key, { target }), target)).status).toBe(200);
    for (const signedTarget of ['/v1/projects', '/v1/projects?sort=name&per_page=5']) {
      expectRefused(await send(signer.key, signedHeaders(signer.key, { target: signedTarget }), target), 'SIGNATURE_INVALID');
    }
  });

  it('when the target is percent-encoded, then the raw target as sent is what is signed, not its decoded form', async () => {
    const target = '/v1/projects?sort=%6Eame&per_page=5';
    expect((await send(signer.key, signedHeaders(signer.key, { target }), target)).status).toBe(200);
    expectRefused(await send(signer.key, signedHeaders(signer.key, { target: TARGET }), target), 'SIGNATURE_INVALID');
  });

  it('when a HEAD request is signed with the method HEAD, then it is answered; signed as GET, then SIGNATURE_INVALID', async () => {
    expect((await send(signer.key, signedHeaders(signer.key, { method: 'HEAD' }), TARGET, 'HEAD')).status).toBe(200);
    const answer = await send(signer.key, signedHeaders(signer.key, { method: 'GET' }), TARGET, 'HEAD');
    expect(answer.status).toBe(401);
  });

  it('when several things are wrong, then the first in the documented order answers: required, format, window, signature, nonce', async () => {
    const expired = NOW_SECONDS - 1_000;
    const { 'X-API-Signature': _signature, ...unsigned } = signedHeaders(signer.key, { timestamp: 'soon' });
    expectRefused(await send(signer.key, unsigned), 'SIGNATURE_REQUIRED');
    expectRefused(await send(signer.key, signedHeaders(signer.key, { timestamp: expired, nonce: 'short' })), 'SIGNATURE_INVALID');
    expectRefused(
      await send(signer.key, { ...signedHeaders(signer.key, { timestamp: expired }), 'X-API-Signature': `v1=${'0'.repeat(64)}` }),
      'SIGNATURE_EXPIRED',
    );
    const used = signedHeaders(signer.key);
    expect((await send(signer.key, used)).status).toBe(200);
    expectRefused(await send(signer.key, { ...used, 'X-API-Signature': `v1=${'0'.repeat(64)}` }), 'SIGNATURE_INVALID');
  });

  it('when the /v1 contract is read, then the 401 response lists the signing codes and documents the three headers', async () => {
    const document = parse((await request(api.app.baseUrl, '/v1/openapi.yaml')).body);
    const codes = resolveIn(document, document.components.schemas.UnauthenticatedError.properties.error).properties.code.enum;
    expect(codes).toEqual(
      expect.arrayContaining(['UNAUTHENTICATED', 'SIGNATURE_REQUIRED', 'SIGNATURE_INVALID', 'SIGNATURE_EXPIRED', 'NONCE_REUSED']),
    );
    const headerNames = document.paths['/projects'].get.parameters
      .map((parameter: { $ref?: string }) =>
        parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop()!] : parameter,
      )
      .filter((parameter: { in: string }) => parameter.in === 'header')
      .map((parameter: { name: string; required?: boolean }) => `${parameter.name}${parameter.required ? ' (required)' : ''}`);
    expect(headerNames).toEqual(expect.arrayContaining(['X-API-Timestamp', 'X-API-Nonce', 'X-API-Signature']));
  });
});

describe('SIGNATURE_WINDOW_SECONDS', () => {
  let narrow: ApiFixture;
  let client: IssuedKey;

  beforeAll(async () => {
    narrow = await startApiFixture({ clock: () => NOW, env: { ...redisEnv(), SIGNATURE_WINDOW_SECONDS: '60' } });
    client = await narrow.issue();
    await requireSigning(client, narrow);
  });

  afterAll(async () => {
    await narrow.close();
  });

  it('when the window is set to 60 seconds, then 60 seconds away is answered and 61 gets SIGNATURE_EXPIRED naming 60', async () => {
    const at = (timestamp: number) => send(client.key, signedHeaders(client.key, { timestamp }), TARGET, 'GET', narrow);
    expect((await at(NOW_SECONDS + 60)).status).toBe(200);
    expect(expectRefused(await at(NOW_SECONDS - 61), 'SIGNATURE_EXPIRED')).toEqual({ server_time: NOW_SECONDS, window_seconds: 60 });
  });
});
