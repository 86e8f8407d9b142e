import { z } from 'zod';
import type { Developer, DeveloperEvent } from '../../src/catalogue/developer.js';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';
import { longText, SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM, singleLineText } from '../../src/catalogue/text.js';

export const websiteSchema = z
  .url({ protocol: /^https?$/, hostname: z.regexes.domain })
  .max(2048)
  .regex(SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM)
  .meta({ description: "The developer's own site (http or https).", example: 'https://www.example-developer.ae' });

export const establishedYearSchema = z
  .number()
  .int()
  .min(1800)
  .meta({ description: 'Year the developer was founded; not in the future.', example: 2002 });

export const createDeveloperSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000).default(''),
    website: websiteSchema.nullable().default(null),
    logo: imageRefSchema.nullable().default(null),
    established_year: establishedYearSchema.nullable().default(null),
  })
  .strict();

export type CreateDeveloper = z.infer<typeof createDeveloperSchema>;

const files = (command: CreateDeveloper) => fileClaims({ 'body.logo': command.logo });

/** The logo's stored file, if any (see src/catalogue/storedFiles.ts). */
export function references(command: CreateDeveloper): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command)) };
}

/** A logo must be a stored file with the facts given. */
export function decide(
  command: CreateDeveloper,
  developer: Developer | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): DeveloperEvent[] {
  if (developer) throw new Conflict(`Developer ${meta.id} already exists.`);
  refuseFutureYear(command.established_year, meta.now);
  throwIfAnyProblem(storedFileProblems(files(command), meta.references.storedFiles));
  return [{ type: 'DeveloperCreated', data: { developer_id: meta.id, ...command, at: meta.now } }];
}

/** The schema cannot know the current year; the command's clock does. */
export function refuseFutureYear(establishedYear: number | null | undefined, now: string): void {
  if (establishedYear != null && establishedYear > new Date(now).getUTCFullYear()) {
    throw new ValidationFailed({ 'body.established_year': 'must not be in the future' });
  }
}
