import * as pauseEvaluation from '../../commands/clients/pauseEvaluation.js';
import { AccessRefused } from '../access/accessRefusals.js';
import { clientAggregate } from '../access/client.js';
import type { EvaluationUsage } from '../access/evaluationUsage.js';
import type { CommandDeps } from '../domain/commandHandler.js';
import { updateWithSlice } from '../domain/commandSlice.js';
import { Conflict } from '../domain/errors.js';
import type { ReadStore } from '../readStore/readStore.js';
import { accessFactsReader } from './accessFacts.js';
import type { RequestCheck } from './apiAuth.js';

/** Who the pause is recorded as, in the client's history. */
const THRESHOLD_ACTOR = 'system:evaluation-safety-threshold';

/**
 * Evaluation Mode's safety threshold: the request past `limit` requests of one evaluation pauses it (an
 * EvaluationPaused event, so it stays paused across restarts and replicas) and is refused with 403
 * EVALUATION_ACCESS_PAUSED, as is everything after it until commercial activation. The pause is the
 * pauseEvaluation command, run as the admin API runs it, only by the service instead of an editor.
 */
export function evaluationThreshold(options: {
  usage: EvaluationUsage;
  limit: number;
  commands: CommandDeps & { readStore: ReadStore };
}): RequestCheck {
  return async (_req, access) => {
    if (access.evaluation === null) return;
    const count = await options.usage.record(access.clientId, access.evaluation.startedAt);
    if (count <= options.limit) return;
    try {
      await updateWithSlice(options.commands, accessFactsReader(options.commands), {
        aggregate: clientAggregate,
        id: access.clientId,
        actor: THRESHOLD_ACTOR,
        command: {},
        slice: pauseEvaluation,
      });
    } catch (error) {
      // The account left evaluation meanwhile (commercial activation): its next request is served commercially.
      if (!(error instanceof Conflict)) throw error;
    }
    throw new AccessRefused('EVALUATION_ACCESS_PAUSED');
  };
}
