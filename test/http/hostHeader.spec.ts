import { request as httpRequest } from 'node:http';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostGuard, type LookupAll } from '../../src/http/hostGuard.js';
import { imageRef, minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/** A published project whose cover image makes the detail carry links built on `{base_url}`. */
const projectWithCover: StreamEvent[] = [
  projectCreated(1, {}, minute(1)),
  projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 11, caption: null, position: 0, image: imageRef('cover') } }, minute(1)),
  projectEvent('ProjectPublished', 1, {}, minute(1)),
];

/** GET with a Host header of our choosing (fetch does not let a caller set it). */
function getWithHost(baseUrl: string, path: string, host: string, key: string): Promise<{ status: number; body: string }> {
  const { hostname: address, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: address, port, path, headers: { host, authorization: `Bearer ${key}` } }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const FORGED_HOSTS = [
  'evil.example',
  'evil.example:8080',
  'localhost.evil.example',
  // Resolves to 127.0.0.1 through public DNS: a dotted name is never taken on what it resolves to.
  '127.0.0.1.nip.io',
  '10.255.255.1',
  '[2001:db8::1]',
  'localhost@evil.example',
  'localhost:80/evil.example',
];

describe('the Host header when PUBLIC_BASE_URL is unset', () => {
  let api: ApiFixture;
  let key: string;
  let port: string;
  let log = '';

  beforeAll(async () => {
    api = await startApiFixture({ env: { LOG_LEVEL: 'warn' }, logDestination: { write: (line: string) => void (log += line) } });
    await api.given([...publishedReferenceCatalogue(), ...projectWithCover]);
    key = await api.key();
    port = new URL(api.app.baseUrl).port;
  });
  afterAll(() => api.close());

  for (const host of FORGED_HOSTS) {
    it(`when a request says Host: ${host}, then 400 HOST_NOT_ALLOWED names the header and the body never holds that host`, async () => {
      const answer = await getWithHost(api.app.baseUrl, '/v1/projects/1', host, key);

      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.body);
      expect(body.error).toEqual({
        code: 'HOST_NOT_ALLOWED',
        message: expect.stringMatching(/PUBLIC_BASE_URL/),
        details: { header: 'Host' },
      });
      expect(answer.body).not.toContain('evil.example');
      expect(answer.body).not.toContain(host);
    });
  }

  it('when a list or a batch is asked with a forged Host, then it is refused too', async () => {
    for (const path of ['/v1/projects', '/v1/projects?ids=1&view=detail', '/v1/developers']) {
      const answer = await getWithHost(api.app.baseUrl, path, 'evil.example', key);
      expect(answer.status, path).toBe(400);
      expect(answer.body).not.toContain('evil.example');
    }
  });

  for (const local of ['localhost', '127.0.0.1', '[::1]', hostname().toLowerCase()]) {
    it(`when a request says Host: ${local}:<port>, then links are built on it`, async () => {
      const answer = await getWithHost(api.app.baseUrl, '/v1/projects/1', `${local}:${port}`, key);

      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data.cover_image.url).toBe(`http://${local}:${port}/v1/media/11/cover.webp`);
    });
  }

  it('when the service starts without PUBLIC_BASE_URL, then one warning says so and which Hosts are accepted', () => {
    const warnings = log
      .split('\n')
      .filter((line) => line.includes('PUBLIC_BASE_URL is unset'))
      .map((line) => JSON.parse(line));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].accepted_hosts).toContain('localhost');
    expect(warnings[0].accepted_hosts).toContain(hostname().toLowerCase());
  });
});

describe('the Host header when PUBLIC_BASE_URL is set', () => {
  let api: ApiFixture;
  let key: string;
  let log = '';

  beforeAll(async () => {
    api = await startApiFixture({
      env: { PUBLIC_BASE_URL: 'https://api.example.com/v1/', LOG_LEVEL: 'warn' },
      logDestination: { write: (line: string) => void (log += line) },
    });
    await api.given([...publishedReferenceCatalogue(), ...projectWithCover]);
    key = await api.key();
  });
  afterAll(() => api.close());

  it('when a request says Host: evil.example, then it is served and its links are built on PUBLIC_BASE_URL', async () => {
    const answer = await getWithHost(api.app.baseUrl, '/v1/projects/1', 'evil.example', key);

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.cover_image.url).toBe('https://api.example.com/v1/media/11/cover.webp');
    expect(answer.body).not.toContain('evil.example');
    expect(log).not.toContain('PUBLIC_BASE_URL is unset');
  });
});

describe('the host guard', () => {
  const request = (host: string) => ({ protocol: 'http', get: () => host });

  it('when a single-label name resolves only to this machine, then it is accepted after one lookup, remembered after that', async () => {
    const asked: string[] = [];
    const lookup: LookupAll = async (name) => {
      asked.push(name);
      return name === 'devbox'
        ? [{ address: '127.0.0.1', family: 4 }]
        : [
            { address: '127.0.0.1', family: 4 },
            { address: '192.0.2.10', family: 4 },
          ];
    };
    const guard = createHostGuard({ lookup });

    expect(await guard.baseUrlOf(request('devbox:8080'))).toBe('http://devbox:8080/v1');
    expect(guard.baseUrlOf(request('devbox:8080'))).toBe('http://devbox:8080/v1');
    await expect(guard.baseUrlOf(request('elsewhere'))).rejects.toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(() => guard.baseUrlOf(request('elsewhere'))).toThrow(expect.objectContaining({ code: 'HOST_NOT_ALLOWED' }));
    expect(asked).toEqual(['devbox', 'elsewhere']);
  });

  it('when concurrent requests bring the same new name, then they share one lookup', async () => {
    let lookups = 0;
    const guard = createHostGuard({
      lookup: async () => {
        lookups += 1;
        return [{ address: '::1', family: 6 }];
      },
    });

    const answers = await Promise.all([1, 2, 3].map(async () => guard.baseUrlOf(request('devbox'))));

    expect(answers).toEqual(['http://devbox/v1', 'http://devbox/v1', 'http://devbox/v1']);
    expect(lookups).toBe(1);
  });

  it('when more distinct Hosts arrive than it remembers, then the oldest verdict is forgotten and memory stays bounded', async () => {
    const asked: string[] = [];
    const guard = createHostGuard({
      maxHosts: 2,
      lookup: async (name) => {
        asked.push(name);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });

    for (const name of ['one', 'two', 'three', 'three', 'one']) await guard.baseUrlOf(request(name));

    expect(asked).toEqual(['one', 'two', 'three', 'one']);
  });

  it('when a dotted name is asked, then it is refused without any lookup', () => {
    const guard = createHostGuard({ lookup: async () => expect.unreachable('no lookup for a dotted name') });
    expect(() => guard.baseUrlOf(request('maps.example.com'))).toThrow(expect.objectContaining({ code: 'HOST_NOT_ALLOWED' }));
  });
});
