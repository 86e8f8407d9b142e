import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * `address/prefix` (a bare address means the one host), IPv4 or IPv6, normalised to lower case. A leaf: the
 * configuration (TRUSTED_PROXIES) reads it as well as the access rules and the HTTP network controls.
 */
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
