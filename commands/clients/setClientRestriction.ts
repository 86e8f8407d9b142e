import { z } from 'zod';
import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import type { CatalogueRestriction, Client, ClientEvent } from '../../src/access/client.js';
import { throwIfAnyProblem, type ReferenceProblems } from '../../src/catalogue/catalogueReferences.js';
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
                community_ids: z.array(positiveId).max(MAX_COMMUNITIES_PER_STATE).meta({
                  description: "Empty = every published community of the state; otherwise only these (they must be the state's).",
                }),
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
      if (seen.has(state.state_id))
        context.addIssue({ code: 'custom', path: ['restriction', 'states', index, 'state_id'], message: 'is listed twice' });
      seen.add(state.state_id);
      if (new Set(state.community_ids).size !== state.community_ids.length) {
        context.addIssue({ code: 'custom', path: ['restriction', 'states', index, 'community_ids'], message: 'must not repeat an id' });
      }
    });
  });

export type SetClientRestriction = z.infer<typeof setClientRestrictionSchema>;

function normalised(restriction: CatalogueRestriction): CatalogueRestriction {
  if (restriction === null) return null;
  return {
    states: [...restriction.states]
      .map((state) => ({ state_id: state.state_id, community_ids: [...state.community_ids].sort((a, b) => a - b) }))
      .sort((a, b) => a.state_id - b.state_id),
  };
}

/** Every state and community the restriction names. */
export function references(command: SetClientRestriction): AccessLookup {
  const states = command.restriction?.states ?? [];
  return { catalogue: { states: states.map((state) => state.state_id), communities: states.flatMap((state) => state.community_ids) } };
}

/** One problem for each state or community that does not exist, and each community that is not in its state. */
function restrictionProblems(command: SetClientRestriction, facts: AccessFacts): ReferenceProblems {
  const problems: ReferenceProblems = {};
  for (const [stateIndex, state] of (command.restriction?.states ?? []).entries()) {
    if (!facts.catalogue.states.has(state.state_id)) {
      problems[`body.restriction.states.${stateIndex}.state_id`] = `no state has the id ${state.state_id}`;
    }
    for (const [communityIndex, communityId] of state.community_ids.entries()) {
      const community = facts.catalogue.communities.get(communityId);
      const field = `body.restriction.states.${stateIndex}.community_ids.${communityIndex}`;
      if (!community) problems[field] = `no community has the id ${communityId}`;
      else if (community.state_id !== state.state_id) problems[field] = `community ${communityId} is not in state ${state.state_id}`;
    }
  }
  return problems;
}

/** The restriction's references are checked first, all their problems in one 422. */
export function decide(
  command: SetClientRestriction,
  client: Client | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): ClientEvent[] {
  throwIfAnyProblem(restrictionProblems(command, meta.references));
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  const restriction = normalised(command.restriction);
  if (JSON.stringify(restriction) === JSON.stringify(client.restriction)) return [];
  return [{ type: 'ClientRestrictionSet', data: { client_id: meta.id, restriction, at: meta.now } }];
}
