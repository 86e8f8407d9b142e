import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may point (the SSRF guard). Checked when a webhook is created or its URL changed, and again
 * before every delivery, because what a name resolves to can change in between; the delivery then connects to
 * the address this check approved, so the name is not resolved a second time.
 */
export interface WebhookTargetPolicy {
  /** Raw CIDR blocks (or bare addresses) from configuration: targets inside them pass, and may use http. */
  allowedPrivateCidrs: readonly string[];
}

export type WebhookTargetCheck =
  /** `address` is the one the delivery must connect to. */
  | { ok: true; url: URL; address: string; family: 4 | 6 }
  /** `reason` names the problem in a sentence fit for a 422's details. */
  | { ok: false; reason: string };

export type Resolve = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** A lookup that has not answered by then is a refusal, so neither a request nor a delivery waits on a slow DNS. */
export const WEBHOOK_DNS_TIMEOUT_MS = 5_000;

/**
 * Syntax (https, or http only when every resolved address is inside an allowed CIDR; no credentials; at most
 * 2048 chars; no fragment), then DNS (all answers must be public or allowed). The first answer is returned as
 * the address to connect to.
 */
export async function checkWebhookTarget(
  rawUrl: string,
  policy: WebhookTargetPolicy,
  resolve: Resolve = resolveWithTheSystem,
): Promise<WebhookTargetCheck> {
  const allowed = policy.allowedPrivateCidrs.map(parseAllowedCidr);
  const syntax = checkSyntax(rawUrl, allowed.length > 0);
  if ('reason' in syntax) return syntax;
  const { url } = syntax;

  const literal = ipLiteral(url.hostname);
  const answers = literal === null ? await resolveWithin(url.hostname, resolve, WEBHOOK_DNS_TIMEOUT_MS) : { answers: [literal] };
  if ('reason' in answers) return answers;

  const verdicts: PassingAddress[] = [];
  for (const answer of answers.answers) {
    const verdict = judgeAddress(answer, allowed);
    if ('problem' in verdict) {
      const where = literal === null ? `${url.hostname} resolves to ${answer}, ${verdict.problem}` : `${answer} is ${verdict.problem}`;
      return refuse(`${where}: webhooks may only target public addresses`);
    }
    verdicts.push(verdict);
  }
  if (url.protocol === 'http:' && !verdicts.every((verdict) => verdict.insideAllowedCidr)) return refuse(HTTPS_REQUIRED);
  const [first] = verdicts;
  if (first === undefined) return refuse(`${url.hostname} has no address`);
  return { ok: true, url, address: first.address, family: first.family };
}

const HTTPS_REQUIRED = 'must use https (http is accepted only for hosts inside the private networks this service allows)';

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

function checkSyntax(rawUrl: string, anyAllowedCidr: boolean): { url: URL } | { ok: false; reason: string } {
  if (rawUrl.length > MAX_WEBHOOK_URL_LENGTH) return refuse(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser would quietly drop surrounding spaces and inner tabs or newlines: a URL carrying any is refused instead.
  if (/[\s\p{Cc}]/u.test(rawUrl)) return refuse('must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return refuse('must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('must use https');
  if (url.protocol === 'http:' && !anyAllowedCidr) return refuse(HTTPS_REQUIRED);
  if (url.username !== '' || url.password !== '') return refuse('must not contain a user name or password');
  // `url.hash` is empty for a bare trailing '#', which is a fragment all the same.
  if (rawUrl.includes('#')) return refuse('must not contain a fragment (#...)');
  if (url.hostname === '') return refuse('must name a host');
  return { url };
}

/** The URL parser has already turned numeric IPv4 forms (2130706433, 0x7f.1, 127.1) into dotted quads. */
function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIPv4(hostname) ? hostname : null;
}

async function resolveWithin(
  hostname: string,
  resolve: Resolve,
  timeoutMs: number,
): Promise<{ answers: string[] } | { ok: false; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((settle) => {
    timer = setTimeout(() => settle('timed out'), timeoutMs);
  });
  try {
    const answers = await Promise.race([resolve(hostname), timedOut]);
    if (answers === 'timed out') return refuse(`the host ${hostname} could not be resolved within ${timeoutMs / 1000} s`);
    if (answers.length === 0) return refuse(`the host ${hostname} has no address`);
    return { answers: answers.map((answer) => answer.address) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    return refuse(`the host ${hostname} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`);
  } finally {
    clearTimeout(timer);
  }
}

async function resolveWithTheSystem(hostname: string): Promise<{ address: string; family: 4 | 6 }[]> {
  // getaddrinfo, as any HTTP client would use: /etc/hosts counts.
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseAllowedCidr(entry: string): Cidr {
  const text = entry.trim();
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
  if (ipaddr.isValid(text)) {
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  }
  throw new TypeError(`allowedPrivateCidrs: "${entry}" is not an IPv4 or IPv6 address or CIDR block`);
}

interface PassingAddress {
  address: string;
  family: 4 | 6;
  insideAllowedCidr: boolean;
}

type AddressVerdict = PassingAddress | { problem: string };

function judgeAddress(raw: string, allowed: readonly Cidr[]): AddressVerdict {
  if (!ipaddr.isValid(raw)) return { problem: 'not an IP address' };
  const parsed = ipaddr.parse(raw);
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is a connection to the IPv4 address: it is judged, and dialled, as that.
  const mapped = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress();
  const target = mapped ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  const address = target.toString();
  const family = target.kind() === 'ipv4' ? 4 : 6;
  if (allowed.some(([network, bits]) => network.kind() === target.kind() && target.match(network, bits))) {
    return { address, family, insideAllowedCidr: true };
  }
  const problem = specialUse(target);
  if (problem === null) return { address, family, insideAllowedCidr: false };
  return { problem: mapped ? `the IPv4-mapped form of ${address}, ${problem}` : problem };
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private) address',
  deprecatedSiteLocal: 'a site-local (private) address',
};

const METADATA_ADDRESS = ipaddr.parse('169.254.169.254');

/** Why an address is not public (a phrase such as "a loopback address"), or null when it is. */
function specialUse(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (address.kind() === 'ipv4') {
    const ipv4 = address as ipaddr.IPv4;
    const range: string = ipv4.range();
    if (range === 'unicast') return null;
    if (ipv4.match(METADATA_ADDRESS, 32)) return 'the cloud metadata address, a link-local address';
    return RANGE_NAMES[range] ?? 'a reserved or special-purpose address';
  }
  const ipv6 = address as ipaddr.IPv6;
  const range: string = ipv6.range();
  const { parts } = ipv6;
  switch (range) {
    case 'unicast':
      // Only 2000::/3 is handed out as global unicast; ::a.b.c.d (IPv4-compatible) and the rest are not.
      return ipv6.match(GLOBAL_UNICAST, 3) ? null : 'a reserved or special-purpose address';
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only.
      return parts[2] === 0 ? embedding('a NAT64 address', [embeddedIPv4(parts[6], parts[7])]) : 'a local-use NAT64 address';
    case 'rfc6145':
      return embedding('an IPv4-translated address', [embeddedIPv4(parts[6], parts[7])]);
    case '6to4':
      return embedding('a 6to4 address', [embeddedIPv4(parts[1], parts[2])]);
    case 'teredo':
      // The Teredo server's address follows the prefix; the client's is the last 32 bits, inverted.
      return embedding('a Teredo address', [
        embeddedIPv4(parts[2], parts[3]),
        embeddedIPv4(~(parts[6] ?? 0) & 0xffff, ~(parts[7] ?? 0) & 0xffff),
      ]);
    default:
      return RANGE_NAMES[range] ?? 'a reserved or special-purpose address';
  }
}

const GLOBAL_UNICAST = ipaddr.parse('2000::');

function embeddedIPv4(high: number | undefined, low: number | undefined): ipaddr.IPv4 {
  const h = high ?? 0;
  const l = low ?? 0;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}

/** A form that carries an IPv4 address is as public as every IPv4 address it carries. */
function embedding(form: string, embedded: readonly ipaddr.IPv4[]): string | null {
  for (const ipv4 of embedded) {
    const problem = specialUse(ipv4);
    if (problem !== null) return `${form} embedding ${ipv4.toString()} (${problem})`;
  }
  return null;
}
