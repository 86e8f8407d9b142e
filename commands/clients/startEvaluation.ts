import { z } from 'zod';
import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import type { Client, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, NotFound } from '../../src/domain/errors.js';

export const EVALUATION_SAMPLE_MIN = 50;
export const EVALUATION_SAMPLE_MAX = 100;
const DEFAULT_SAMPLE_SIZE = 60;

export const startEvaluationSchema = z
  .object({
    sample_size: z
      .number()
      .int()
      .min(EVALUATION_SAMPLE_MIN)
      .max(EVALUATION_SAMPLE_MAX)
      .optional()
      .meta({ description: `Projects in the frozen sample (${EVALUATION_SAMPLE_MIN} to ${EVALUATION_SAMPLE_MAX}, default 60).` }),
  })
  .strict();

export type StartEvaluation = z.infer<typeof startEvaluationSchema>;

/** The sample is drawn from the published catalogue. */
export function references(): AccessLookup {
  return { publishedProjects: true };
}

/** Evenly spread over the published catalogue in id order, so the sample covers old and new projects alike. */
function evaluationSample(publishedProjectIds: readonly number[], size: number): number[] {
  if (publishedProjectIds.length <= size) return [...publishedProjectIds];
  return Array.from({ length: size }, (_, index) => publishedProjectIds[Math.floor((index * publishedProjectIds.length) / size)]!);
}

/** The sample is frozen when the evaluation starts; a catalogue too small to sample refuses it. */
export function decide(
  command: StartEvaluation,
  client: Client | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.access_mode.mode === 'evaluation') throw new Conflict(`Client ${meta.id} is already in Evaluation Mode.`);
  const sample = evaluationSample(meta.references.publishedProjectIds, command.sample_size ?? DEFAULT_SAMPLE_SIZE);
  if (sample.length < EVALUATION_SAMPLE_MIN) {
    throw new Conflict(`The catalogue has fewer than ${EVALUATION_SAMPLE_MIN} published projects to sample.`, {
      published_projects: sample.length,
    });
  }
  return [{ type: 'EvaluationStarted', data: { client_id: meta.id, sample_project_ids: sample, at: meta.now } }];
}
