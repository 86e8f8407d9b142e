import { z } from 'zod';
import type { CatalogueRestriction, Client, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

const MAX_STATES = 100;
const MAX_COMMUNITIES_PER_STATE = 500;

const positiveId = z.number().int().positive();

/** Body: null lifts the restriction; otherwise the states the client sees, each narrowed to communities or not. */
export const setClientRestrictionSchema = z
  .object({
    restriction: z
      .object({
        states: z
          .array(
            z
              .object({
                state_id: positiveId,
                community_ids: z
                  .array(positiveId)
                  .max(MAX_COMMUNITIES_PER_STATE)
                  .meta({ description: "Empty = every published community of the state; otherwise only these (they must be the state's)." }),
              })
              .strict(),
          )
          .min(1)
          .max(MAX_STATES),
      })
      .strict()
      .nullable()
      .meta({ description: 'The states (and communities) the client sees; everything else answers 404. null = the whole catalogue.' }),
  })
  .strict()
  .superRefine((body, context) => {
    const seen = new Set<number>();
    body.restriction?.states.forEach((state, index) => {
      if (seen.has(state.state_id)) context.addIssue({ code: 'custom', path: ['restriction', 'states', index, 'state_id'], message: 'is listed twice' });
      seen.add(state.state_id);
      if (new Set(state.community_ids).size !== state.community_ids.length) {
        context.addIssue({ code: 'custom', path: ['restriction', 'states', index, 'community_ids'], message: 'must not repeat an id' });
      }
    });
  });

/** The body after the route checked that every state and community exists and each community lies in its state. */
export type SetClientRestriction = z.infer<typeof setClientRestrictionSchema>;

function normalised(restriction: CatalogueRestriction): CatalogueRestriction {
  if (restriction === null) return null;
  return {
    states: [...restriction.states]
      .map((state) => ({ state_id: state.state_id, community_ids: [...state.community_ids].sort((a, b) => a - b) }))
      .sort((a, b) => a.state_id - b.state_id),
  };
}

export function decide(command: SetClientRestriction, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  const restriction = normalised(command.restriction);
  if (JSON.stringify(restriction) === JSON.stringify(client.restriction)) return [];
  return [{ type: 'ClientRestrictionSet', data: { client_id: meta.id, restriction, at: meta.now } }];
}
