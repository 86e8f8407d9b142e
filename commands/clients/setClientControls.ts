import { z } from 'zod';
import { normalisedDomainSchema } from '../../src/access/networkControls.js';
import { cidrSchema } from '../../src/vocabulary/cidr.js';
import type { Client, ClientControls, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

const MAX_CIDR_BLOCKS = 100;

const cidrListSchema = (what: string) =>
  z
    .array(cidrSchema)
    .max(MAX_CIDR_BLOCKS)
    .meta({ description: `${what}; empty = no such policy. At most ${MAX_CIDR_BLOCKS} blocks.` });

const environmentControlsSchema = z
  .object({
    domain: normalisedDomainSchema.nullable().meta({
      description: 'The one authorised host of this environment (exact, normalised); null = none.',
      example: 'portal.example.com',
    }),
    ip_allow: cidrListSchema('Only callers in these blocks are served (403 IP_NOT_ALLOWED otherwise)'),
    ip_deny: cidrListSchema('Callers in these blocks are refused (403 IP_DENIED), even when allowed'),
  })
  .strict();

/** The whole set of controls, replaced at once (PUT semantics), so what is stored is exactly what was sent. */
export const setClientControlsSchema = z
  .object({
    request_signing: z.boolean().meta({ description: 'Enterprise request signing (Authentication rule 6) required on every /v1 request.' }),
    environments: z.object({ live: environmentControlsSchema, test: environmentControlsSchema }).strict(),
  })
  .strict();

export type SetClientControls = z.infer<typeof setClientControlsSchema>;

const sameControls = (left: ClientControls, right: ClientControls) => JSON.stringify(left) === JSON.stringify(right);

export function decide(command: SetClientControls, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  const controls: ClientControls = {
    request_signing: command.request_signing,
    environments: {
      live: {
        domain: command.environments.live.domain,
        ip_allow: command.environments.live.ip_allow,
        ip_deny: command.environments.live.ip_deny,
      },
      test: {
        domain: command.environments.test.domain,
        ip_allow: command.environments.test.ip_allow,
        ip_deny: command.environments.test.ip_deny,
      },
    },
  };
  if (sameControls(client.controls, controls)) return [];
  return [{ type: 'ClientControlsSet', data: { client_id: meta.id, controls, at: meta.now } }];
}
