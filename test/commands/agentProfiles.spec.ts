import { describe, expect, it } from 'vitest';
import {
  createAgentProfileSchema,
  decide as createAgentProfile,
  type CreateAgentProfile,
} from '../../commands/agentProfiles/createAgentProfile.js';
import { decide as approveAgentProfile } from '../../commands/agentProfiles/approveAgentProfile.js';
import { decide as deleteAgentProfile } from '../../commands/agentProfiles/deleteAgentProfile.js';
import { decide as rejectAgentProfile } from '../../commands/agentProfiles/rejectAgentProfile.js';
import { decide as replaceAgentProfilePicture } from '../../commands/agentProfiles/replaceAgentProfilePicture.js';
import { decide as reviseAgentProfile, reviseAgentProfileSchema } from '../../commands/agentProfiles/reviseAgentProfile.js';
import { decide as submitAgentProfile } from '../../commands/agentProfiles/submitAgentProfile.js';
import { accessFacts } from '../../src/access/accessReferences.js';
import { agentProfileAggregate, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import type { ApiError } from '../../src/domain/errors.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';
import { storedFacts } from '../support/storedFiles.js';

const at = defaultMeta.now;
const earlier = '2024-04-01T00:00:00.000Z';

const portrait = (key = 'a1b2c3'): ImageRef => ({
  key,
  file_name: 'portrait.jpg',
  content_type: 'image/jpeg',
  width: 900,
  height: 1200,
  size_bytes: 48_000,
});

/** Client 4 exists (revision 2); the blob store holds the portraits these cases name. */
const references = accessFacts({
  clients: { 4: { revision: 2, plan_id: 1 } },
  catalogue: catalogueFacts({ storedFiles: storedFacts(portrait(), portrait('d4e5f6')) }),
});

const fields = {
  agent_name: 'Sara Haddad',
  company_name: 'Marina Homes',
  email: 'sara@marina-homes.example',
  phone: '+971 50 123 4567',
  whatsapp: null,
};

const aProfile = (overrides: Partial<CreateAgentProfile> = {}): CreateAgentProfile => ({
  ...fields,
  picture: portrait(),
  client_id: 4,
  ...overrides,
});

const created: AgentProfileEvent = {
  type: 'AgentProfileCreated',
  data: { agent_profile_id: 1, client_id: 4, ...fields, picture: portrait(), at: earlier },
};
const submitted: AgentProfileEvent = { type: 'AgentProfileSubmitted', data: { agent_profile_id: 1, at: earlier } };
const approved: AgentProfileEvent = { type: 'AgentProfileApproved', data: { agent_profile_id: 1, at: earlier } };
const rejected: AgentProfileEvent = { type: 'AgentProfileRejected', data: { agent_profile_id: 1, reason: 'Blurry picture', at: earlier } };
const deleted: AgentProfileEvent = { type: 'AgentProfileDeleted', data: { agent_profile_id: 1, at: earlier } };

describe('createAgentProfile', () => {
  const spec = deciderSpec(agentProfileAggregate, createAgentProfile, { references });

  it('when a profile is created for an existing client, then AgentProfileCreated carries its fields, client, picture and id', () => {
    spec
      .given([])
      .when(aProfile(), { id: 7 })
      .then([{ type: 'AgentProfileCreated', data: { agent_profile_id: 7, client_id: 4, ...fields, picture: portrait(), at } }]);
  });

  it('when the client does not exist, then 404 NOT_FOUND', () => {
    spec
      .given([])
      .when(aProfile({ client_id: 5 }))
      .thenThrows('NOT_FOUND');
  });

  it('when If-Match names an earlier revision of the client, then 409 CONFLICT', () => {
    spec
      .given([])
      .when(aProfile({ expected_client_revision: 1 }))
      .thenThrows('CONFLICT');
  });

  it('when the picture names no stored file, then it is refused naming body.picture.key', () => {
    const error = spec
      .given([])
      .when(aProfile({ picture: portrait('ffffff') }))
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details.fields).toHaveProperty(['body.picture.key']);
  });
});

describe('agent profile fields', () => {
  const problems = (body: object) => {
    const parsed = createAgentProfileSchema.safeParse({ ...fields, ...body });
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
  };

  it('when the phone or WhatsApp number is not international, or too short or long, then those fields are named', () => {
    expect(problems({ phone: '050 123 4567' })).toEqual(['phone']);
    expect(problems({ whatsapp: '+971 12' })).toEqual(['whatsapp']);
    expect(problems({ phone: '+1 234 567 890 123 456 7' })).toEqual(['phone']);
    expect(problems({ phone: '+971-50-123-4567', whatsapp: '+44 (20) 7946 0958' })).toEqual([]);
  });

  it('when the e-mail address is malformed, or a name holds a control character, then those fields are named', () => {
    expect(problems({ email: 'sara at marina' })).toEqual(['email']);
    expect(problems({ agent_name: 'Sara\u202EHaddad', company_name: '' })).toEqual(['agent_name', 'company_name']);
  });

  it('when a revision names no field, or an unknown one, then the schema or the decider refuses it', () => {
    expect(reviseAgentProfileSchema.safeParse({ nickname: 'S' }).success).toBe(false);
    deciderSpec(agentProfileAggregate, reviseAgentProfile, { references }).given([created]).when({}).thenThrows('VALIDATION_FAILED');
  });
});

describe('reviseAgentProfile', () => {
  const spec = deciderSpec(agentProfileAggregate, reviseAgentProfile, { references });

  it('when a draft is revised, then only the changed fields are recorded and it stays a draft', () => {
    spec
      .given([created])
      .when({ agent_name: 'Sara Haddad', company_name: 'Creek Homes' })
      .then([{ type: 'AgentProfileRevised', data: { agent_profile_id: 1, changes: { company_name: 'Creek Homes' }, at } }]);
  });

  it('when an approved profile is revised, then it goes back to review', () => {
    spec
      .given([created, submitted, approved])
      .when({ whatsapp: '+971 50 765 4321' })
      .then([
        { type: 'AgentProfileRevised', data: { agent_profile_id: 1, changes: { whatsapp: '+971 50 765 4321' }, at } },
        { type: 'AgentProfileSubmitted', data: { agent_profile_id: 1, at } },
      ]);
  });

  it('when an approved profile is sent what it already holds, then nothing is recorded and it stays approved', () => {
    spec
      .given([created, submitted, approved])
      .when({ ...fields, picture: portrait() })
      .then([]);
  });

  it('when the picture is changed or cleared in a revision, then its own event records it', () => {
    spec
      .given([created])
      .when({ picture: portrait('d4e5f6') })
      .then([{ type: 'AgentProfilePictureReplaced', data: { agent_profile_id: 1, picture: portrait('d4e5f6'), at } }]);
    spec
      .given([created])
      .when({ picture: null })
      .then([{ type: 'AgentProfilePictureRemoved', data: { agent_profile_id: 1, at } }]);
  });

  it('when the profile is deleted or does not exist, then 404 NOT_FOUND', () => {
    spec.given([created, deleted]).when({ agent_name: 'X' }).thenThrows('NOT_FOUND');
    spec.given([]).when({ agent_name: 'X' }).thenThrows('NOT_FOUND');
  });
});

describe('replaceAgentProfilePicture', () => {
  const spec = deciderSpec(agentProfileAggregate, replaceAgentProfilePicture, { references });

  it('when a new picture is given to an approved profile, then AgentProfilePictureReplaced and it goes back to review', () => {
    spec
      .given([created, submitted, approved])
      .when({ picture: portrait('d4e5f6') })
      .then([
        { type: 'AgentProfilePictureReplaced', data: { agent_profile_id: 1, picture: portrait('d4e5f6'), at } },
        { type: 'AgentProfileSubmitted', data: { agent_profile_id: 1, at } },
      ]);
  });

  it('when the same picture is sent again, then nothing is recorded', () => {
    spec.given([created]).when({ picture: portrait() }).then([]);
  });

  it('when the picture names no stored file, then 422 VALIDATION_FAILED', () => {
    spec
      .given([created])
      .when({ picture: portrait('0000aa') })
      .thenThrows('VALIDATION_FAILED');
  });
});

describe('the review lifecycle', () => {
  const submit = deciderSpec(agentProfileAggregate, submitAgentProfile);
  const approve = deciderSpec(agentProfileAggregate, approveAgentProfile);
  const reject = deciderSpec(agentProfileAggregate, rejectAgentProfile);

  it('when a draft or a rejected profile is submitted, then AgentProfileSubmitted', () => {
    const expected: AgentProfileEvent[] = [{ type: 'AgentProfileSubmitted', data: { agent_profile_id: 1, at } }];
    submit.given([created]).when({}).then(expected);
    submit.given([created, submitted, rejected]).when({}).then(expected);
  });

  it('when a submitted profile is submitted again, then nothing is recorded; an approved one is 409 CONFLICT', () => {
    submit.given([created, submitted]).when({}).then([]);
    submit.given([created, submitted, approved]).when({}).thenThrows('CONFLICT');
  });

  it('when a submitted profile is approved, then AgentProfileApproved; approving it again records nothing', () => {
    approve
      .given([created, submitted])
      .when({})
      .then([{ type: 'AgentProfileApproved', data: { agent_profile_id: 1, at } }]);
    approve.given([created, submitted, approved]).when({}).then([]);
  });

  it('when a draft or a rejected profile is approved, then 409 CONFLICT naming the statuses allowed', () => {
    const error = approve.given([created]).when({}).thenThrows('CONFLICT');
    expect((error as ApiError).details).toEqual({ status: 'draft', allowed_from: ['submitted'] });
    approve.given([created, submitted, rejected]).when({}).thenThrows('CONFLICT');
  });

  it('when a submitted or an approved profile is rejected, then AgentProfileRejected with the reason', () => {
    const expected: AgentProfileEvent[] = [{ type: 'AgentProfileRejected', data: { agent_profile_id: 1, reason: 'Wrong number', at } }];
    reject.given([created, submitted]).when({ reason: 'Wrong number' }).then(expected);
    reject.given([created, submitted, approved]).when({ reason: 'Wrong number' }).then(expected);
  });

  it('when a draft or a rejected profile is rejected, then 409 CONFLICT', () => {
    reject.given([created]).when({ reason: 'x' }).thenThrows('CONFLICT');
    reject.given([created, submitted, rejected]).when({ reason: 'x' }).thenThrows('CONFLICT');
  });

  it('when a deleted profile is submitted, approved or rejected, then 404 NOT_FOUND', () => {
    submit.given([created, deleted]).when({}).thenThrows('NOT_FOUND');
    approve.given([created, submitted, deleted]).when({}).thenThrows('NOT_FOUND');
    reject.given([created, submitted, deleted]).when({ reason: 'x' }).thenThrows('NOT_FOUND');
  });

  it('when a profile is approved after a rejection, then the state forgets the rejection reason', () => {
    const state = [created, submitted, rejected, submitted, approved].reduce(agentProfileAggregate.evolve, null);
    expect(state).toMatchObject({ status: 'approved', rejection_reason: null });
  });
});

describe('deleteAgentProfile', () => {
  const spec = deciderSpec(agentProfileAggregate, deleteAgentProfile);

  it('when a profile in any status is deleted, then AgentProfileDeleted', () => {
    const expected: AgentProfileEvent[] = [{ type: 'AgentProfileDeleted', data: { agent_profile_id: 1, at } }];
    spec.given([created]).when({}).then(expected);
    spec.given([created, submitted, approved]).when({}).then(expected);
  });

  it('when it is deleted again, then 404 NOT_FOUND', () => {
    spec.given([created, deleted]).when({}).thenThrows('NOT_FOUND');
  });
});
