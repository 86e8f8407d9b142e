import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { Developer, DeveloperEvent } from '../../src/catalogue/developer.js';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { establishedYearSchema, refuseFutureYear, websiteSchema } from './createDeveloper.js';
import { longText, singleLineText } from '../../src/catalogue/text.js';

/** Every field is optional; null clears website, logo or established_year. */
export const reviseDeveloperSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000),
    website: websiteSchema.nullable(),
    logo: imageRefSchema.nullable(),
    established_year: establishedYearSchema.nullable(),
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type ReviseDeveloper = z.infer<typeof reviseDeveloperSchema>;

const files = (command: ReviseDeveloper, developer: Developer | null) => fileClaims({ 'body.logo': command.logo }, [developer?.logo]);

/** A new logo's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: ReviseDeveloper, developer: Developer | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, developer)) };
}

/** A new logo must be a stored file with the facts given. */
export function decide(
  command: ReviseDeveloper,
  developer: Developer | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): DeveloperEvent[] {
  if (!developer) throw new NotFound(`Developer ${meta.id} does not exist.`);
  requireSomeField(command);
  refuseFutureYear(command.established_year, meta.now);
  throwIfAnyProblem(storedFileProblems(files(command, developer), meta.references.storedFiles));
  const changes = changedFields(developer, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'DeveloperRevised', data: { developer_id: meta.id, changes, at: meta.now } }];
}
