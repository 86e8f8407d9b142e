import { z } from 'zod';
import { singleLineText } from './text.js';

/**
 * A stored picture's master file. `key` is derived from the file's content, so it changes whenever the
 * picture changes and caches keyed by it never serve a stale picture.
 */
export const imageRefSchema = z
  .object({
    key: singleLineText(200, { min: 1 }).meta({ description: 'Content-derived key of the master file (e.g. a sha256 hex prefix).' }),
    file_name: singleLineText(255, { min: 1 }),
    content_type: z.enum(['image/jpeg', 'image/png', 'image/webp']),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    size_bytes: z.number().int().positive(),
  })
  .strict()
  .meta({ id: 'ImageRef', description: 'A stored picture (master file).' });

export type ImageRef = z.infer<typeof imageRefSchema>;

export const locationSchema = z
  .object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  })
  .strict()
  .meta({ id: 'Coordinates', description: 'WGS 84 coordinates in decimal degrees.' });

export type Location = z.infer<typeof locationSchema>;
