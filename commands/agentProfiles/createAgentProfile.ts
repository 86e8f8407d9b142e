import { z } from 'zod';
import { clientAsSeen, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import type { AgentProfile, AgentProfileEvent } from '../../src/access/agentProfile.js';
import { throwIfAnyProblem } from '../../src/catalogue/catalogueReferences.js';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import { singleLineText } from '../../src/catalogue/text.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';

const PHONE_PROBLEM = 'must be an international number: + and the country code, then the digits (spaces, hyphens and brackets allowed)';

/** E.164 allows at most 15 digits; fewer than 8 is no reachable number. */
export const phoneSchema = singleLineText(32, { min: 1 })
  .regex(/^\+[1-9][\d ()-]*\d$/, PHONE_PROBLEM)
  .refine((phone) => {
    const digits = phone.replace(/\D/g, '').length;
    return digits >= 8 && digits <= 15;
  }, 'must have 8 to 15 digits, country code included')
  .meta({ description: 'International format, as printed on brochures.', example: '+971 50 123 4567' });

export const emailSchema = z
  .email({ error: 'must be an e-mail address' })
  .max(254)
  .meta({ description: 'Printed on brochures as the contact address.', example: 'sara.haddad@example-realty.ae' });

export const agentNameSchema = singleLineText(200, { min: 1 }).meta({ example: 'Sara Haddad' });
export const companyNameSchema = singleLineText(200, { min: 1 }).meta({ example: 'Marina Homes Real Estate' });

export const createAgentProfileSchema = z
  .object({
    agent_name: agentNameSchema,
    company_name: companyNameSchema,
    email: emailSchema,
    phone: phoneSchema,
    whatsapp: phoneSchema.nullable().default(null).meta({ description: 'null = no WhatsApp number.' }),
    picture: imageRefSchema.nullable().default(null).meta({ description: "The agent's portrait; null = none." }),
  })
  .strict();

/** The body, the client from the path and the client revision If-Match names (the profile is made for the client as seen). */
export type CreateAgentProfile = z.infer<typeof createAgentProfileSchema> & { client_id: number; expected_client_revision?: number };

const files = (command: CreateAgentProfile) => fileClaims({ 'body.picture': command.picture });

/** The client the profile belongs to, and the picture's stored file. */
export function references(command: CreateAgentProfile): AccessLookup {
  return { clients: [command.client_id], catalogue: { storedFiles: claimedKeys(files(command)) } };
}

/** The client must exist (404) as the caller saw it (409); a picture must be a stored file with the facts given. A profile starts as a draft. */
export function decide(
  command: CreateAgentProfile,
  profile: AgentProfile | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): AgentProfileEvent[] {
  clientAsSeen(command.client_id, command.expected_client_revision, meta.references);
  if (profile) throw new Conflict(`Agent profile ${meta.id} already exists.`);
  throwIfAnyProblem(storedFileProblems(files(command), meta.references.catalogue.storedFiles));
  const { agent_name, company_name, email, phone, whatsapp, picture, client_id } = command;
  return [
    {
      type: 'AgentProfileCreated',
      data: { agent_profile_id: meta.id, client_id, agent_name, company_name, email, phone, whatsapp, picture, at: meta.now },
    },
  ];
}
