import { assertNever } from '../src/domain/decider.js';
import type { StateEvent } from '../src/catalogue/state.js';
import { searchText } from './shared/apiShape.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const STATES = 'states';

export interface StateDoc extends PositionedDoc {
  _id: number;
  id: number;
  name: string;
  slug: string;
  country_code: string;
  published: boolean;
  created_at: string;
  updated_at: string;
  _search: string;
}

function nextState(current: StateDoc | null, event: Recorded<StateEvent>): StateDoc | null {
  const position = positionNumber(event);
  switch (event.type) {
    case 'StateCreated': {
      const { state_id, name, slug, country_code, at } = event.data;
      return {
        _id: state_id,
        id: state_id,
        name,
        slug,
        country_code,
        published: false,
        created_at: at,
        updated_at: at,
        _search: searchText(name, slug),
        _position: position,
      };
    }
    case 'StateRevised': {
      if (!current) return null;
      const revised = { ...current, ...event.data.changes };
      return { ...revised, updated_at: event.data.at, _search: searchText(revised.name, revised.slug), _position: position };
    }
    case 'StatePublished':
      return current && { ...current, published: true, updated_at: event.data.at, _position: position };
    case 'StateUnpublished':
      return current && { ...current, published: false, updated_at: event.data.at, _position: position };
    default:
      return assertNever(event);
  }
}

/** GET /states/{id-or-slug}; communities and sub-communities filter by state. */
export const statesProjection: Projection<StateEvent> = {
  name: 'states',
  version: 2,
  collections: [STATES],
  indexes: {
    [STATES]: [{ keys: [['slug', 1]], unique: true }, { keys: [['published', 1]] }, { keys: [['updated_at', 1]] }, { keys: [['name', 1]] }],
  },
  handles: everyEventType<StateEvent>({ StateCreated: true, StateRevised: true, StatePublished: true, StateUnpublished: true }),
  async apply(event, ctx) {
    const current = await ctx.get<StateDoc>(STATES, event.data.state_id);
    if (alreadyApplied(current, event)) return;
    const next = nextState(current, event);
    if (next) ctx.put(STATES, next);
  },
};
