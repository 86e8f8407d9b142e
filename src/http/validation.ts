import type { Request } from 'express';
import { z } from 'zod';
import { ValidationFailed } from '../domain/errors.js';

/**
 * Maps zod issues to `details.fields` keys of a 422 (`body.milestones.0.percent`, `params.projectId`,
 * `query.per_page`); an unknown key is reported under its own name. Several problems with one field are
 * joined, so every issue is reported, not just the first.
 */
export function issuesToFields(
  location: string,
  issues: readonly z.core.$ZodIssue[],
  fields: Record<string, string> = {},
): Record<string, string> {
  const add = (path: readonly PropertyKey[], message: string) => {
    const key = [location, ...path.map(String)].join('.');
    fields[key] = fields[key] === undefined ? message : `${fields[key]}; ${message}`;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'is not a known field');
    } else {
      add(issue.path, issue.message);
    }
  }
  return fields;
}

export const IF_MATCH_PROBLEM = 'must be * or one quoted revision, e.g. "3"';

/** `If-Match: "<revision>"` pins the expected revision; `*` (or no header) asks for no specific one. */
export function parseIfMatch(header: string | undefined): { ok: true; expectedRevision?: number } | { ok: false } {
  if (header === undefined || header.trim() === '*') return { ok: true };
  const revision = /^\s*"(\d{1,15})"\s*$/.exec(header)?.[1];
  return revision === undefined ? { ok: false } : { ok: true, expectedRevision: Number(revision) };
}

/** The query of a route that takes no parameter: one sent anyway is named, not silently ignored. */
const noQueryParameters = z.object({}).strict();

/** 422 VALIDATION_FAILED naming every query parameter of a request to a route that takes none. */
export function refuseQueryParameters(req: Request): void {
  const query = noQueryParameters.safeParse({ ...req.query });
  if (!query.success) throw new ValidationFailed(issuesToFields('query', query.error.issues));
}
