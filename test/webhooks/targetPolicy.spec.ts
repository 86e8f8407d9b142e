import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkWebhookTarget, WEBHOOK_DNS_TIMEOUT_MS, type Resolve, type WebhookTargetPolicy } from '../../src/webhooks/targetPolicy.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

const noPrivateNetworks: WebhookTargetPolicy = { allowedPrivateCidrs: [] };
const localDevelopment: WebhookTargetPolicy = { allowedPrivateCidrs: ['127.0.0.0/8', '10.20.0.0/16', 'fd12:3456::/32'] };

/** A resolver answering from a fixed table; a name not in it fails as getaddrinfo does. */
function dnsAnswering(table: Record<string, string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { asked });
}

const dns = dnsAnswering({
  'hooks.example.com': [PUBLIC_V4],
  'v6.example.com': [PUBLIC_V6],
  'dual.example.com': [PUBLIC_V4, PUBLIC_V6],
  'mixed.example.com': [PUBLIC_V4, '10.0.0.7'],
  'rebind.example.com': ['127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'internal.example.com': ['10.20.1.5'],
  'half-internal.example.com': ['10.20.1.5', PUBLIC_V4],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'nothing.example.com': [],
});

afterEach(() => {
  vi.useRealTimers();
});

describe('checkWebhookTarget', () => {
  describe('when the URL itself is unacceptable, then it is refused before any lookup', () => {
    it.each([
      ['not a URL', 'hooks.example.com/webhooks', /absolute URL/],
      ['another scheme', 'ftp://hooks.example.com/webhooks', /must use https/],
      ['plain http without allowed networks', 'http://hooks.example.com/webhooks', /must use https/],
      ['a user name', 'https://user@hooks.example.com/webhooks', /user name or password/],
      ['a user name and password', 'https://user:secret@hooks.example.com/webhooks', /user name or password/],
      ['a fragment', 'https://hooks.example.com/webhooks#part', /fragment/],
      ['an empty fragment', 'https://hooks.example.com/webhooks#', /fragment/],
      ['over 2048 characters', `https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048 characters/],
      ['surrounding spaces', ' https://hooks.example.com/webhooks', /spaces or control characters/],
      ['a newline inside', 'https://hooks.example.com/web\nhooks', /spaces or control characters/],
      ['a missing host', 'https://', /absolute URL/],
      ['an IPv4 literal with a fifth part', 'https://1.2.3.4.5/', /absolute URL/],
    ])('%s: %s', async (_case, url, reason) => {
      const resolve = dnsAnswering({});
      const check = await checkWebhookTarget(url, noPrivateNetworks, resolve);
      expect(check).toEqual({ ok: false, reason: expect.stringMatching(reason) });
      expect(resolve.asked).toEqual([]);
    });
  });

  describe('when the host is an address literal that is not public, then it is refused without a lookup', () => {
    it.each([
      ['loopback', 'https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
      ['loopback elsewhere in 127/8', 'https://127.8.9.10/hook', /loopback/],
      ['loopback as one decimal number', 'https://2130706433/hook', /127\.0\.0\.1 is a loopback address/],
      ['loopback in hex parts', 'https://0x7f.1/hook', /127\.0\.0\.1 is a loopback address/],
      ['loopback in octal', 'https://0177.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
      ['loopback shortened', 'https://127.1/hook', /127\.0\.0\.1 is a loopback address/],
      ['private 10/8', 'https://10.1.2.3/hook', /a private address/],
      ['private 172.16/12', 'https://172.31.255.1/hook', /a private address/],
      ['private 192.168/16', 'https://192.168.0.10/hook', /a private address/],
      ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', /cloud metadata/],
      ['link-local', 'https://169.254.10.1/hook', /link-local/],
      ['carrier-grade NAT', 'https://100.64.0.1/hook', /carrier-grade NAT/],
      ['unspecified', 'https://0.0.0.0/hook', /unspecified/],
      ['unspecified as zero', 'https://0/hook', /unspecified/],
      ['broadcast', 'https://255.255.255.255/hook', /broadcast/],
      ['multicast', 'https://224.0.0.1/hook', /multicast/],
      ['reserved 240/4', 'https://240.0.0.1/hook', /reserved/],
      ['documentation range', 'https://192.0.2.10/hook', /reserved/],
      ['IPv6 loopback', 'https://[::1]/hook', /::1 is a loopback address/],
      ['IPv6 unspecified', 'https://[::]/hook', /unspecified/],
      ['IPv6 link-local', 'https://[fe80::1]/hook', /link-local/],
      ['IPv6 unique-local', 'https://[fd00::1]/hook', /unique-local/],
      ['IPv6 site-local', 'https://[fec0::1]/hook', /site-local/],
      ['IPv6 multicast', 'https://[ff02::1]/hook', /multicast/],
      ['IPv6 documentation', 'https://[2001:db8::1]/hook', /reserved/],
      [
        'IPv4-mapped loopback',
        'https://[::ffff:127.0.0.1]/hook',
        /::ffff:7f00:1 is the IPv4-mapped form of 127\.0\.0\.1, a loopback address/,
      ],
      ['IPv4-mapped metadata in hex', 'https://[::ffff:a9fe:a9fe]/hook', /cloud metadata/],
      ['IPv4-compatible loopback', 'https://[::127.0.0.1]/hook', /reserved/],
      ['IPv4-translated private', 'https://[::ffff:0:10.0.0.1]/hook', /IPv4-translated address embedding 10\.0\.0\.1/],
      ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/hook', /NAT64 address embedding 127\.0\.0\.1/],
      ['NAT64 of metadata', 'https://[64:ff9b::169.254.169.254]/hook', /NAT64 address embedding 169\.254\.169\.254/],
      ['local-use NAT64', 'https://[64:ff9b:1::808:808]/hook', /local-use NAT64/],
      ['6to4 of private', 'https://[2002:c0a8:1::1]/hook', /6to4 address embedding 192\.168\.0\.1/],
      ['Teredo with a private client', 'https://[2001:0:5db8:1234::3fff:fffe]/hook', /Teredo address embedding 192\.0\.0\.1/],
      ['Teredo with a loopback server', 'https://[2001:0:7f00:1::f7f7:f7f7]/hook', /Teredo address embedding 127\.0\.0\.1/],
      ['discard-only', 'https://[100::1]/hook', /reserved or special-purpose/],
    ])('%s: %s', async (_case, url, reason) => {
      const resolve = dnsAnswering({});
      const check = await checkWebhookTarget(url, noPrivateNetworks, resolve);
      expect(check).toEqual({ ok: false, reason: expect.stringMatching(reason) });
      expect(resolve.asked).toEqual([]);
    });
  });

  describe('when a name resolves to something that is not public, then it is refused', () => {
    it.each([
      ['a loopback answer (DNS rebinding)', 'https://rebind.example.com/hook', /resolves to 127\.0\.0\.1, a loopback address/],
      ['the metadata address', 'https://metadata.example.com/hook', /resolves to 169\.254\.169\.254, the cloud metadata address/],
      ['one public and one private answer', 'https://mixed.example.com/hook', /resolves to 10\.0\.0\.7, a private address/],
      [
        'an IPv4-mapped private answer',
        'https://mapped.example.com/hook',
        /resolves to ::ffff:10\.0\.0\.1, the IPv4-mapped form of 10\.0\.0\.1, a private address/,
      ],
      ['no answer at all', 'https://nothing.example.com/hook', /nothing\.example\.com has no address/],
      ['an unknown name', 'https://unknown.example.com/hook', /unknown\.example\.com could not be resolved \(ENOTFOUND\)/],
    ])('%s: %s', async (_case, url, reason) => {
      expect(await checkWebhookTarget(url, noPrivateNetworks, dns)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    });
  });

  describe('when the target is public over https, then it passes with the address to connect to', () => {
    it.each([
      ['a name with one answer', 'https://hooks.example.com/webhooks?x=1', PUBLIC_V4, 4],
      ['a name with an IPv6 answer', 'https://v6.example.com/webhooks', PUBLIC_V6, 6],
      ['a name with two answers: the first', 'https://dual.example.com/webhooks', PUBLIC_V4, 4],
      ['a public IPv4 literal', `https://${PUBLIC_V4}:8443/webhooks`, PUBLIC_V4, 4],
      ['a public IPv6 literal', `https://[${PUBLIC_V6}]/webhooks`, PUBLIC_V6, 6],
      ['NAT64 of a public address', 'https://[64:ff9b::5db8:d70e]/hook', '64:ff9b::5db8:d70e', 6],
      ['an IPv4-mapped public address, dialled as IPv4', 'https://[::ffff:5db8:d70e]/hook', PUBLIC_V4, 4],
    ])('%s: %s', async (_case, url, address, family) => {
      const check = await checkWebhookTarget(url, noPrivateNetworks, dns);
      expect(check).toEqual({ ok: true, url: new URL(url), address, family });
    });
  });

  describe('when private networks are allowed', () => {
    it.each([
      ['a loopback literal over http', 'http://127.0.0.1:4010/hook', '127.0.0.1', 4],
      ['a loopback literal over https', 'https://127.0.0.1:4010/hook', '127.0.0.1', 4],
      ['a name resolving inside an allowed block, over http', 'http://internal.example.com/hook', '10.20.1.5', 4],
      ['an IPv6 literal inside an allowed block', 'http://[fd12:3456::9]/hook', 'fd12:3456::9', 6],
      ['a public name over https', 'https://hooks.example.com/hook', PUBLIC_V4, 4],
    ])('then %s passes: %s', async (_case, url, address, family) => {
      expect(await checkWebhookTarget(url, localDevelopment, dns)).toEqual({ ok: true, url: new URL(url), address, family });
    });

    it.each([
      ['a public name over http', 'http://hooks.example.com/hook', /must use https/],
      ['a name with one allowed and one public answer, over http', 'http://half-internal.example.com/hook', /must use https/],
      ['a private address outside the allowed blocks', 'http://10.21.0.1/hook', /private address/],
      ['IPv6 loopback, not in the allowed blocks', 'http://[::1]/hook', /loopback/],
    ])('then %s is still refused: %s', async (_case, url, reason) => {
      expect(await checkWebhookTarget(url, localDevelopment, dns)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    });

    it('when an allowed entry is a bare address, then it allows that one host', async () => {
      const policy = { allowedPrivateCidrs: ['10.0.0.7'] };
      expect(await checkWebhookTarget('http://10.0.0.7/hook', policy, dns)).toMatchObject({ ok: true, address: '10.0.0.7' });
      expect(await checkWebhookTarget('http://10.0.0.8/hook', policy, dns)).toMatchObject({ ok: false });
    });

    it('when an allowed entry is not a CIDR block, then the check fails loudly (configuration validates it first)', async () => {
      await expect(checkWebhookTarget('https://hooks.example.com/', { allowedPrivateCidrs: ['ten-dot'] }, dns)).rejects.toThrow(/ten-dot/);
    });
  });

  it('when the lookup does not answer within the DNS timeout, then the target is refused naming the timeout', async () => {
    vi.useFakeTimers();
    const hanging: Resolve = () => new Promise(() => {});
    const check = checkWebhookTarget('https://slow.example.com/hook', noPrivateNetworks, hanging);
    await vi.advanceTimersByTimeAsync(WEBHOOK_DNS_TIMEOUT_MS);
    expect(await check).toEqual({ ok: false, reason: 'the host slow.example.com could not be resolved within 5 s' });
  });

  it('when the name is given in capitals or unicode, then the normalised host name is what gets resolved', async () => {
    const resolve = dnsAnswering({ 'hooks.example.com': [PUBLIC_V4], 'xn--bcher-kva.example': [PUBLIC_V4] });
    await checkWebhookTarget('https://HOOKS.Example.COM/x', noPrivateNetworks, resolve);
    await checkWebhookTarget('https://bücher.example/x', noPrivateNetworks, resolve);
    expect(resolve.asked).toEqual(['hooks.example.com', 'xn--bcher-kva.example']);
  });
});
