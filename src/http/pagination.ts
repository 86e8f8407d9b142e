import { z } from 'zod';

/** DESIGN.md: page 1 and 20 per page unless asked; at most 100 per page. */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

const wholeNumber = (min: number, max: number, description: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ description });

export const pageParameter = wholeNumber(1, 1_000_000, 'Page number, from 1 (default 1).').optional();
export const perPageParameter = wholeNumber(
  1,
  MAX_PER_PAGE,
  `Items per page, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}); more is refused with 422, never clamped.`,
).optional();

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export function pagination(page: number, perPage: number, total: number): Pagination {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}

export const paginationSchema = z
  .object({
    page: z.number().int().min(1),
    per_page: z.number().int().min(1).max(MAX_PER_PAGE),
    total: z.number().int().min(0).meta({ description: 'Items the caller may see across all pages.' }),
    total_pages: z.number().int().min(0),
  })
  .meta({ id: 'Pagination' });
