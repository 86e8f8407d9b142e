import { z } from 'zod';
import type { Client, ClientEvent } from '../../src/access/client.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, NotFound } from '../../src/domain/errors.js';

export const EVALUATION_SAMPLE_MIN = 50;
export const EVALUATION_SAMPLE_MAX = 100;

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

/** The route picks the sample from the published catalogue; the decider records it as given. */
export type StartEvaluation = { sample_project_ids: number[] };

export function decide(command: StartEvaluation, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (!client) throw new NotFound(`Client ${meta.id} does not exist.`);
  if (client.access_mode.mode === 'evaluation') throw new Conflict(`Client ${meta.id} is already in Evaluation Mode.`);
  if (command.sample_project_ids.length < EVALUATION_SAMPLE_MIN) {
    throw new Conflict(`The catalogue has fewer than ${EVALUATION_SAMPLE_MIN} published projects to sample.`, {
      published_projects: command.sample_project_ids.length,
    });
  }
  return [{ type: 'EvaluationStarted', data: { client_id: meta.id, sample_project_ids: command.sample_project_ids, at: meta.now } }];
}
