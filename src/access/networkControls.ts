import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The authorised domain of a client environment: an exact host, normalised to lower case without a
 * trailing dot; no scheme, port, path or wildcard (Authentication rule 7).
 */
export const normalisedDomainSchema = z
  .string()
  .trim()
  .transform((value) => value.toLowerCase().replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .max(253)
      .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, {
        message: 'must be a host name such as app.example.com (no scheme, port, path or wildcard)',
      }),
  );

/** `address/prefix` (a bare address means the one host), IPv4 or IPv6, normalised to lower case. */
export const cidrSchema = z
  .string()
  .trim()
  .transform((value) => value.toLowerCase())
  .refine((value) => parseCidr(value) !== null, { message: 'must be an IPv4 or IPv6 address or CIDR block, e.g. 203.0.113.0/24' })
  .transform((value) => {
    const { address, prefix } = parseCidr(value)!;
    return `${address}/${prefix}`;
  });

export function parseCidr(value: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = value.split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
