import { BlockList, isIP } from 'node:net';
import type { Request } from 'express';
import type { AccessContext } from '../access/accessContext.js';
import { AccessRefused } from '../access/accessRefusals.js';
import type { EnvironmentControls } from '../access/client.js';
import { normalisedDomainSchema } from '../access/networkControls.js';
import { ApiError } from '../domain/errors.js';
import type { RequestCheck } from './apiAuth.js';
import { Unauthenticated } from './httpErrors.js';
import { parseCidr } from '../vocabulary/cidr.js';

/**
 * Domain, origin and IP controls of a verified key's environment (Authentication rules 3 and 7), checked in
 * this order, the first failure answering:
 *
 * 1. A test key in a live context: 401 UNAUTHENTICATED, the one body of every 401. A live context is a
 *    request whose `X-Client-Domain` or `Origin` host is the client's live environment's authorised domain,
 *    unless that is also its test environment's domain (then the two cannot be told apart). It comes first
 *    because the key is not accepted at all there, so no 403 below may confirm first that it works.
 * 2. IP deny list (IP_DENIED), 3. IP allow list (IP_NOT_ALLOWED): the address is the strongest signal (it
 *    cannot be set by the caller, short of a trusted proxy), and a deny entry wins over an allow entry.
 * 4. Domain (DOMAIN_NOT_ALLOWED): when a domain is configured, `X-Client-Domain` must name it exactly (case
 *    and a trailing dot aside); a server-to-server request (no `Origin`) must send it. A value with a scheme,
 *    port, path, wildcard or several hosts is no host name and never matches.
 * 5. Origin (ORIGIN_MISMATCH): when a domain is configured, a browser's `Origin` host must be it (the port
 *    is not part of a domain); an opaque `Origin: null` never matches.
 * Without a configured domain neither header is checked; without lists no address is looked at.
 *
 * Details name the header and the value received (normalised), or the client address: the caller learns
 * what we saw, never the configured domain or lists, which a leaked key must not help to spoof.
 *
 * The client address is the socket peer (an IPv4-mapped IPv6 address as IPv4). Only when that peer is one
 * of the trusted proxies is `X-Forwarded-For` read, right to left, skipping trusted proxies: the first
 * address not trusted is the client (the left-most when all are trusted). Entries left of it are whatever
 * the client sent and are ignored; an entry that is not an IP address where one is needed is a 400.
 */
export function networkControls(trustedProxies: readonly string[] = []): RequestCheck {
  const trusted = trustedProxies.length > 0 ? blockListOf(trustedProxies) : null;
  return (req, access) => {
    if (access.environment === 'test' && inLiveContext(req, access)) throw new Unauthenticated();
    const controls = access.networkControls;
    const lists = listsOf(controls);
    if (lists.deny || lists.allow) {
      const address = clientAddress(req, trusted);
      if (lists.deny && (address === null || matches(lists.deny, address))) throw new AccessRefused('IP_DENIED', { ip: address });
      if (lists.allow && (address === null || !matches(lists.allow, address))) throw new AccessRefused('IP_NOT_ALLOWED', { ip: address });
    }
    if (controls.domain === null) return;
    const declared = req.get('x-client-domain');
    const origin = req.get('origin');
    if (declared === undefined) {
      if (origin === undefined) {
        throw new AccessRefused('DOMAIN_NOT_ALLOWED', {
          header: 'X-Client-Domain',
          reason: 'Server-to-server requests must send X-Client-Domain with the authorised domain.',
        });
      }
    } else if (normaliseHost(declared) !== controls.domain) {
      throw new AccessRefused('DOMAIN_NOT_ALLOWED', {
        header: 'X-Client-Domain',
        received: normaliseHost(declared) ?? declared.slice(0, 255),
      });
    }
    if (origin !== undefined && originHost(origin) !== controls.domain) {
      throw new AccessRefused('ORIGIN_MISMATCH', { header: 'Origin', received: originHost(origin) ?? origin.slice(0, 255) });
    }
  };
}

/** 400 for a forwarded address that is not one, where the client address is needed. */
export class BadForwardedFor extends ApiError {
  constructor(entry: string) {
    super(400, 'BAD_REQUEST', 'X-Forwarded-For must be a comma-separated list of IP addresses.', {
      header: 'X-Forwarded-For',
      received: entry.slice(0, 100),
    });
  }
}

function inLiveContext(req: Request, access: AccessContext): boolean {
  const live = access.liveDomain;
  if (live === null || live === access.networkControls.domain) return false;
  const declared = req.get('x-client-domain');
  const origin = req.get('origin');
  return (declared !== undefined && normaliseHost(declared) === live) || (origin !== undefined && originHost(origin) === live);
}

/** The normalised host name, or null when the value is not a bare host name. */
export function normaliseHost(value: string): string | null {
  const parsed = normalisedDomainSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The host of an http(s) origin (`scheme://host[:port]`), normalised; null for `null` or anything more. */
export function originHost(origin: string): string | null {
  if (!URL.canParse(origin)) return null;
  const url = new URL(origin);
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  if (!bare || (url.protocol !== 'https:' && url.protocol !== 'http:')) return null;
  return normaliseHost(url.hostname);
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as dual-stack sockets report IPv4 peers) as IPv4. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/** The client's address as described on networkControls; null when the socket no longer has a peer. */
export function clientAddress(req: Request, trusted: BlockList | null): string | null {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return null;
  let address = normaliseAddress(peer);
  if (trusted === null || !matches(trusted, address)) return address;
  const forwarded = (req.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (let index = forwarded.length - 1; index >= 0; index--) {
    const entry = forwarded[index]!;
    if (isIP(entry) === 0) throw new BadForwardedFor(entry);
    address = normaliseAddress(entry);
    if (!matches(trusted, address)) break;
  }
  return address;
}

export function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new Error(`Not a CIDR block: ${cidr}`);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

function matches(list: BlockList, address: string): boolean {
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

interface Lists {
  allow: BlockList | null;
  deny: BlockList | null;
}

/**
 * Built once per controls object: the embedded read store hands out the same frozen document until it
 * changes, so only a changed policy is parsed again.
 */
const listsByControls = new WeakMap<EnvironmentControls, Lists>();

function listsOf(controls: EnvironmentControls): Lists {
  let lists = listsByControls.get(controls);
  if (!lists) {
    lists = {
      allow: controls.ip_allow.length > 0 ? blockListOf(controls.ip_allow) : null,
      deny: controls.ip_deny.length > 0 ? blockListOf(controls.ip_deny) : null,
    };
    listsByControls.set(controls, lists);
  }
  return lists;
}
