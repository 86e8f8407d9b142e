import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentControls } from '../../src/access/client.js';
import { normaliseAddress, normaliseHost, originHost } from '../../src/http/networkControls.js';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';

const none: EnvironmentControls = { domain: null, ip_allow: [], ip_deny: [] };

interface Keys {
  live: string;
  test: string;
}

/** A fresh client with a live and a test key and these controls, projected. */
async function clientWith(api: ApiFixture, live: Partial<EnvironmentControls>, test: Partial<EnvironmentControls> = {}): Promise<Keys> {
  const { key, clientId } = await api.issue();
  const testKey = await api.admin('POST', `/clients/${clientId}/keys`, { environment: 'test' });
  expect(testKey.status).toBe(201);
  const set = await api.admin('PUT', `/clients/${clientId}/controls`, {
    request_signing: false,
    environments: { live: { ...none, ...live }, test: { ...none, ...test } },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  await api.settle();
  return { live: key, test: testKey.body.data.key as string };
}

function expectRefused(answer: { status: number; body: any }, code: string, details: Record<string, unknown>): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body.error).toEqual({ code, message: expect.any(String), details });
}

describe('network controls on /v1, socket peer not trusted', () => {
  let api: ApiFixture;

  beforeAll(async () => {
    api = await startApiFixture();
  });

  afterAll(async () => {
    await api.close();
  });

  describe('IP_DENIED', () => {
    it('when the client address is on the deny list, then 403 IP_DENIED names the address seen', async () => {
      const keys = await clientWith(api, { ip_deny: ['127.0.0.1/32'] });
      expectRefused(await api.get('/projects', keys.live), 'IP_DENIED', { ip: '127.0.0.1' });
    });

    it('when the address is on both the allow and the deny list, then the deny list wins', async () => {
      const keys = await clientWith(api, { ip_allow: ['127.0.0.0/8'], ip_deny: ['127.0.0.1'] });
      expectRefused(await api.get('/projects', keys.live), 'IP_DENIED', { ip: '127.0.0.1' });
    });

    it('when the deny list holds only other blocks, IPv6 loopback among them, then the request is served', async () => {
      const keys = await clientWith(api, { ip_deny: ['::1/128', '10.0.0.0/8', '127.0.0.2/32'] });
      expect((await api.get('/projects', keys.live)).status).toBe(200);
    });

    it('when the test environment denies the address, then only the test key is refused', async () => {
      const keys = await clientWith(api, {}, { ip_deny: ['127.0.0.0/8'] });
      expect((await api.get('/projects', keys.live)).status).toBe(200);
      expectRefused(await api.get('/projects', keys.test), 'IP_DENIED', { ip: '127.0.0.1' });
    });
  });

  describe('IP_NOT_ALLOWED', () => {
    it('when the allow list holds only other blocks (an IPv6 block does not match an IPv4 client), then 403 IP_NOT_ALLOWED', async () => {
      const keys = await clientWith(api, { ip_allow: ['::1/128', '10.0.0.0/8'] });
      expectRefused(await api.get('/projects', keys.live), 'IP_NOT_ALLOWED', { ip: '127.0.0.1' });
    });

    it('when the allow list holds the client address, then the request is served', async () => {
      const keys = await clientWith(api, { ip_allow: ['::1/128', '127.0.0.1/32'] });
      expect((await api.get('/projects', keys.live)).status).toBe(200);
    });

    it('when the peer is not a trusted proxy, then X-Forwarded-For is ignored', async () => {
      const allowed = await clientWith(api, { ip_allow: ['203.0.113.0/24'] });
      const forwarded = { headers: { 'x-forwarded-for': '203.0.113.9' } };
      expectRefused(await api.get('/projects', allowed.live, forwarded), 'IP_NOT_ALLOWED', { ip: '127.0.0.1' });
      const denied = await clientWith(api, { ip_deny: ['127.0.0.1/32'] });
      expectRefused(await api.get('/projects', denied.live, forwarded), 'IP_DENIED', { ip: '127.0.0.1' });
      const garbage = { headers: { 'x-forwarded-for': 'not-an-address' } };
      expectRefused(await api.get('/projects', denied.live, garbage), 'IP_DENIED', { ip: '127.0.0.1' });
    });

    it('when the address is refused and the domain is missing too, then the IP answer comes first', async () => {
      const keys = await clientWith(api, { domain: 'portal.example.com', ip_allow: ['10.0.0.0/8'] });
      expectRefused(await api.get('/projects', keys.live), 'IP_NOT_ALLOWED', { ip: '127.0.0.1' });
    });
  });

  describe('DOMAIN_NOT_ALLOWED', () => {
    let keys: Keys;

    beforeAll(async () => {
      keys = await clientWith(api, { domain: 'portal.example.com' });
    });

    it('when a domain is configured and a server-to-server request sends no X-Client-Domain, then 403 says the header is required', async () => {
      expectRefused(await api.get('/projects', keys.live), 'DOMAIN_NOT_ALLOWED', {
        header: 'X-Client-Domain',
        reason: expect.stringContaining('must send X-Client-Domain'),
      });
    });

    it('when X-Client-Domain names another host, then 403 names the host received and not the authorised one', async () => {
      const answer = await api.get('/projects', keys.live, { headers: { 'x-client-domain': 'Other.Example.com' } });
      expectRefused(answer, 'DOMAIN_NOT_ALLOWED', { header: 'X-Client-Domain', received: 'other.example.com' });
      expect(JSON.stringify(answer.body)).not.toContain('portal.example.com');
    });

    it('when X-Client-Domain carries a scheme, port, path or wildcard, then it is no host name and never matches', async () => {
      for (const value of ['https://portal.example.com', 'portal.example.com:443', 'portal.example.com/app', '*.example.com']) {
        const answer = await api.get('/projects', keys.live, { headers: { 'x-client-domain': value } });
        expectRefused(answer, 'DOMAIN_NOT_ALLOWED', { header: 'X-Client-Domain', received: value });
      }
    });

    it('when X-Client-Domain matches in another case and with a trailing dot, then the request is served', async () => {
      expect((await api.get('/projects', keys.live, { headers: { 'x-client-domain': 'portal.example.com' } })).status).toBe(200);
      expect((await api.get('/projects', keys.live, { headers: { 'x-client-domain': 'Portal.EXAMPLE.com.' } })).status).toBe(200);
    });

    it('when a browser Origin matches but X-Client-Domain does not, then the domain answer comes first', async () => {
      const answer = await api.get('/projects', keys.live, {
        headers: { origin: 'https://portal.example.com', 'x-client-domain': 'other.example.com' },
      });
      expectRefused(answer, 'DOMAIN_NOT_ALLOWED', { header: 'X-Client-Domain', received: 'other.example.com' });
    });

    it('when no domain is configured, then neither X-Client-Domain nor Origin is checked', async () => {
      const open = await clientWith(api, {});
      expect((await api.get('/projects', open.live)).status).toBe(200);
      expect((await api.get('/projects', open.live, { headers: { 'x-client-domain': 'https://anything', origin: 'null' } })).status).toBe(
        200,
      );
    });
  });

  describe('ORIGIN_MISMATCH', () => {
    let keys: Keys;

    beforeAll(async () => {
      keys = await clientWith(api, { domain: 'portal.example.com' });
    });

    it('when a browser Origin names another host, then 403 ORIGIN_MISMATCH names the host received', async () => {
      const answer = await api.get('/projects', keys.live, { headers: { origin: 'https://evil.example.com' } });
      expectRefused(answer, 'ORIGIN_MISMATCH', { header: 'Origin', received: 'evil.example.com' });
    });

    it('when the Origin is opaque (null) or carries a path, then it never matches', async () => {
      expectRefused(await api.get('/projects', keys.live, { headers: { origin: 'null' } }), 'ORIGIN_MISMATCH', {
        header: 'Origin',
        received: 'null',
      });
      const withPath = 'https://portal.example.com/app';
      expectRefused(await api.get('/projects', keys.live, { headers: { origin: withPath } }), 'ORIGIN_MISMATCH', {
        header: 'Origin',
        received: withPath,
      });
    });

    it('when a browser Origin host matches, whatever its case and port, then it is served without X-Client-Domain', async () => {
      expect((await api.get('/projects', keys.live, { headers: { origin: 'https://PORTAL.example.com:8443' } })).status).toBe(200);
      const both = { origin: 'http://portal.example.com', 'x-client-domain': 'portal.example.com' };
      expect((await api.get('/projects', keys.live, { headers: both })).status).toBe(200);
    });
  });

  describe('a test key in a live context', () => {
    let keys: Keys;
    let unauthenticated: { status: number; body: any; headers: Headers };

    beforeAll(async () => {
      keys = await clientWith(api, { domain: 'portal.example.com' }, { domain: 'sandbox.example.com' });
      unauthenticated = await api.get('/projects', `svc_test_${'A'.repeat(43)}`);
    });

    it('when a test key is sent with the live domain in X-Client-Domain or Origin, then it gets the one 401 UNAUTHENTICATED body', async () => {
      const liveContexts: Array<Record<string, string>> = [
        { 'x-client-domain': 'Portal.example.com' },
        { origin: 'https://portal.example.com' },
      ];
      for (const headers of liveContexts) {
        const answer = await api.get('/projects', keys.test, { headers });
        expect(answer.status, JSON.stringify(headers)).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer');
        expect(answer.body.error).toEqual(unauthenticated.body.error);
        expect(answer.body.error).toEqual({ code: 'UNAUTHENTICATED', message: expect.any(String), details: {} });
      }
    });

    it('when the test key is also from a denied address, then the 401 still comes first', async () => {
      const denied = await clientWith(api, { domain: 'portal.example.com' }, { ip_deny: ['127.0.0.1/32'] });
      const answer = await api.get('/projects', denied.test, { headers: { 'x-client-domain': 'portal.example.com' } });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toEqual(unauthenticated.body.error);
    });

    it('when the test key names its own test domain, or the live key the live domain, then both are served', async () => {
      expect((await api.get('/projects', keys.test, { headers: { 'x-client-domain': 'sandbox.example.com' } })).status).toBe(200);
      expect((await api.get('/projects', keys.live, { headers: { 'x-client-domain': 'portal.example.com' } })).status).toBe(200);
    });

    it('when both environments share the one domain, then naming it is no live context and the test key is served', async () => {
      const shared = await clientWith(api, { domain: 'portal.example.com' }, { domain: 'portal.example.com' });
      expect((await api.get('/projects', shared.test, { headers: { 'x-client-domain': 'portal.example.com' } })).status).toBe(200);
    });
  });
});

describe('network controls on /v1 behind a trusted proxy', () => {
  let api: ApiFixture;

  beforeAll(async () => {
    api = await startApiFixture({ env: { TRUSTED_PROXIES: '127.0.0.1/32,10.0.0.0/8' } });
  });

  afterAll(async () => {
    await api.close();
  });

  const via = (forwardedFor: string) => ({ headers: { 'x-forwarded-for': forwardedFor } });

  it('when a trusted proxy forwards, then the right-most untrusted X-Forwarded-For address is the client', async () => {
    const keys = await clientWith(api, { ip_deny: ['203.0.113.0/24'] });
    expectRefused(await api.get('/projects', keys.live, via('203.0.113.9')), 'IP_DENIED', { ip: '203.0.113.9' });
    expectRefused(await api.get('/projects', keys.live, via('203.0.113.9, 10.1.2.3')), 'IP_DENIED', { ip: '203.0.113.9' });
    // A client cannot hide behind addresses it writes itself: only the proxy's own entry counts.
    expect((await api.get('/projects', keys.live, via('203.0.113.9, 198.51.100.1'))).status).toBe(200);
  });

  it('when the forwarded client is IPv6 or IPv4-mapped, then it is matched in its own family', async () => {
    const keys = await clientWith(api, { ip_allow: ['2001:db8::/32', '198.51.100.0/24'] });
    expect((await api.get('/projects', keys.live, via('2001:db8::5'))).status).toBe(200);
    expect((await api.get('/projects', keys.live, via('::ffff:198.51.100.1'))).status).toBe(200);
    expectRefused(await api.get('/projects', keys.live, via('2001:DB9::1')), 'IP_NOT_ALLOWED', { ip: '2001:db9::1' });
    expectRefused(await api.get('/projects', keys.live, via('::ffff:192.0.2.1')), 'IP_NOT_ALLOWED', { ip: '192.0.2.1' });
  });

  it('when a trusted proxy sends no X-Forwarded-For, or only trusted entries, then the left-most trusted address is the client', async () => {
    const keys = await clientWith(api, { ip_allow: ['198.51.100.0/24'] });
    expectRefused(await api.get('/projects', keys.live), 'IP_NOT_ALLOWED', { ip: '127.0.0.1' });
    expectRefused(await api.get('/projects', keys.live, via('10.9.9.9, 10.1.1.1')), 'IP_NOT_ALLOWED', { ip: '10.9.9.9' });
  });

  it('when the X-Forwarded-For entry that decides is not an address, then 400 names the header', async () => {
    const keys = await clientWith(api, { ip_deny: ['203.0.113.0/24'] });
    const answer = await api.get('/projects', keys.live, via('203.0.113.9, unknown'));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('X-Forwarded-For'),
      details: { header: 'X-Forwarded-For', received: 'unknown' },
    });
    // Entries left of the client's are the client's own writing and are never parsed.
    expect((await api.get('/projects', keys.live, via('junk, 198.51.100.1'))).status).toBe(200);
  });
});

describe('address and host helpers', () => {
  it('when a dual-stack socket reports an IPv4 peer as IPv4-mapped IPv6, then it is read as IPv4', () => {
    expect(normaliseAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normaliseAddress('::FFFF:10.0.0.1')).toBe('10.0.0.1');
    expect(normaliseAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(normaliseAddress('::1')).toBe('::1');
  });

  it('when hosts are normalised, then case and a trailing dot go, and anything but a bare host name is null', () => {
    expect(normaliseHost(' Portal.Example.COM. ')).toBe('portal.example.com');
    for (const value of ['', 'portal.example.com:443', 'https://portal.example.com', '*.example.com', 'a,b'])
      expect(normaliseHost(value)).toBeNull();
  });

  it('when an Origin is read, then only an http(s) scheme, host and port are accepted and the host is returned', () => {
    expect(originHost('https://Portal.example.com:8443')).toBe('portal.example.com');
    expect(originHost('http://portal.example.com')).toBe('portal.example.com');
    for (const value of ['null', 'file:///etc', 'https://portal.example.com/x', 'https://u@portal.example.com', 'portal.example.com']) {
      expect(originHost(value), value).toBeNull();
    }
  });
});
