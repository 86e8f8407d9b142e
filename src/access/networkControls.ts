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
