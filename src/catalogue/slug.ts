import { z } from 'zod';

/** Lowercase kebab-case, unique per resource type (the command handler reserves it). */
export const slugSchema = z
  .string()
  .max(120)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case')
  // The API addresses resources by numeric id or slug, so a slug of digits alone would read as an id.
  .regex(/[a-z]/, 'must contain a letter')
  .meta({
    description: 'Lowercase kebab-case with at least one letter, unique per resource type, at most 120 characters.',
    example: 'dubai-marina',
  });
