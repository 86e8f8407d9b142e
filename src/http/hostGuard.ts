import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { ApiError } from '../domain/errors.js';

// Without PUBLIC_BASE_URL, image addresses and links are built on the request's Host, which the client
// chooses: a forged one would put another host into a response that a shared cache may hand to others.
// So only a Host that names this machine is used; anything else is refused before a link is made.
//
// A name counts when it is `localhost`, this machine's host name, a loopback or interface address, or a
// single-label name (no dot: the hosts file or the local network's search domain) that resolves only to
// those. A name with a dot is never resolved: whoever owns a public domain can point it at this machine,
// so resolving to it proves nothing. PUBLIC_BASE_URL serves any other name.

export class HostNotAllowed extends ApiError {
  constructor() {
    super(
      400,
      'HOST_NOT_ALLOWED',
      'The Host header does not name this machine. Links are built on it, so only local names are served; the operator sets PUBLIC_BASE_URL to serve others.',
      { header: 'Host' },
    );
  }
}

/** Verdicts kept; past this many distinct Hosts the oldest is forgotten, so forged Hosts cannot grow memory. */
const MAX_REMEMBERED_HOSTS = 1_000;
/** A single-label name that does not resolve within this long is refused (and remembered as refused). */
const LOOKUP_TIMEOUT_MS = 2_000;

/** `name` or `name:port`, `[IPv6]` or `[IPv6]:port`; letters are lower-cased by the caller. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]{2,45})\]|([a-z0-9](?:[a-z0-9._-]{0,251}[a-z0-9])?))(?::(\d{1,5}))?$/;

export type LookupAll = (name: string) => Promise<Array<{ address: string; family: number }>>;

const lookupAll: LookupAll = (name) => lookup(name, { all: true });

/** Loopback and this machine's interface addresses, read now (interfaces come and go). */
function thisMachinesAddresses(): BlockList {
  const addresses = new BlockList();
  addresses.addSubnet('127.0.0.0', 8, 'ipv4');
  addresses.addAddress('::1', 'ipv6');
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      // Link-local IPv6 addresses carry a zone (fe80::1%eth0) that BlockList does not take; they cannot appear in a Host anyway.
      if (!entry.address.includes('%')) addresses.addAddress(entry.address, entry.family === 'IPv6' ? 'ipv6' : 'ipv4');
    }
  }
  return addresses;
}

/** The names and addresses a Host may carry, for the start-up warning. */
export function describeAcceptedHosts(): string {
  const interfaces = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal)
    .map((entry) => entry.address);
  return ['localhost', hostname().toLowerCase(), 'loopback addresses', ...interfaces, 'single-label names that resolve only to these'].join(
    ', ',
  );
}

/** What the guard reads of a request (an express Request is one). */
export interface HostedRequest {
  readonly protocol: string;
  get(header: 'host'): string | undefined;
}

export interface HostGuard {
  /**
   * `{base_url}` (ending in /v1) built on the request's protocol and Host; throws (or rejects with)
   * HostNotAllowed when the Host does not name this machine.
   */
  baseUrlOf(req: HostedRequest): string | Promise<string>;
}

/**
 * One verdict per distinct Host header, kept in a bounded Map: a request with a known Host costs one Map
 * lookup and no I/O; the first request with a new single-label name waits for one DNS lookup, which
 * concurrent requests with the same Host share.
 */
export function createHostGuard({
  lookup = lookupAll,
  maxHosts = MAX_REMEMBERED_HOSTS,
}: { lookup?: LookupAll; maxHosts?: number } = {}): HostGuard {
  const verdicts = new Map<string, boolean | Promise<boolean>>();

  async function resolvesHere(name: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS);
    });
    try {
      const resolved = await Promise.race([lookup(name), timeout]);
      const local = thisMachinesAddresses();
      return resolved.length > 0 && resolved.every((entry) => local.check(entry.address, entry.family === 6 ? 'ipv6' : 'ipv4'));
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  function judge(host: string): boolean | Promise<boolean> {
    const parts = HOST_HEADER.exec(host);
    if (!parts) return false;
    const [, bracketed, name, port] = parts;
    if (port !== undefined && Number(port) > 65_535) return false;
    if (bracketed !== undefined) return isIP(bracketed) === 6 && thisMachinesAddresses().check(bracketed, 'ipv6');
    const bare = name!;
    if (isIP(bare) === 4) return thisMachinesAddresses().check(bare, 'ipv4');
    if (bare === 'localhost' || bare === hostname().toLowerCase()) return true;
    if (bare.includes('.')) return false;
    return resolvesHere(bare);
  }

  function remember(host: string, verdict: boolean | Promise<boolean>): void {
    if (verdicts.size >= maxHosts) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(host, verdict);
  }

  function verdictFor(host: string): boolean | Promise<boolean> {
    const known = verdicts.get(host);
    if (known !== undefined) return known;
    const verdict = judge(host);
    remember(host, verdict);
    if (verdict instanceof Promise) {
      void verdict.then((settled) => {
        if (verdicts.get(host) === verdict) verdicts.set(host, settled);
      });
    }
    return verdict;
  }

  return {
    baseUrlOf(req) {
      const header = req.get('host');
      // HTTP/1.0 may send no Host: the link then names the machine itself.
      const host = header === undefined ? 'localhost' : header.toLowerCase();
      const verdict = verdictFor(host);
      const baseUrl = `${req.protocol}://${host}/v1`;
      if (verdict === true) return baseUrl;
      if (verdict === false) throw new HostNotAllowed();
      return verdict.then((allowed) => {
        if (!allowed) throw new HostNotAllowed();
        return baseUrl;
      });
    },
  };
}
