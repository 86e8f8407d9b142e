import { createRedisClient } from '../cache/redisClient.js';
import { ApiError } from '../domain/errors.js';

/**
 * Requests made during one evaluation (Evaluation Mode's safety threshold). Counted per client and
 * evaluation start, so a new evaluation starts from zero. Once the threshold is crossed the evaluation is
 * paused by an event, which is what keeps it paused: the count itself may be lost (a restart of the
 * in-process counter, Redis without persistence) without reopening access.
 */
export interface EvaluationUsage {
  /** Counts one request and answers the count including it. */
  record(clientId: number, evaluationStartedAt: string): Promise<number>;
  close(): Promise<void>;
}

const usageKey = (clientId: number, evaluationStartedAt: string) => `evaluation-usage:${clientId}:${evaluationStartedAt}`;

/** An evaluation that long idle is abandoned; its counter need not outlive it. */
const USAGE_TTL_SECONDS = 180 * 86_400;

/** 503 while the counter cannot be reached: an evaluation request cannot be checked against the threshold. */
export class EvaluationUsageUnavailable extends ApiError {
  constructor() {
    super(503, 'SERVICE_UNAVAILABLE', 'Evaluation access cannot be checked right now; retry shortly.', { retry_after_seconds: 1 });
  }
}

/** Shared by every API replica: INCR and EXPIRE in one MULTI, one round trip. */
export function createRedisEvaluationUsage(redisUrl: string, options: { timeoutMs?: number } = {}): EvaluationUsage {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const client = createRedisClient(redisUrl, timeoutMs);
  return {
    async record(clientId, evaluationStartedAt) {
      const key = usageKey(clientId, evaluationStartedAt);
      try {
        const replies = await client.multi().incr(key).expire(key, USAGE_TTL_SECONDS).exec();
        const [error, count] = replies?.[0] ?? [new Error('no reply')];
        if (error) throw error;
        return Number(count);
      } catch {
        throw new EvaluationUsageUnavailable();
      }
    },
    async close() {
      client.disconnect();
    },
  };
}

export function createInProcessEvaluationUsage(): EvaluationUsage {
  const counts = new Map<string, number>();
  return {
    async record(clientId, evaluationStartedAt) {
      const key = usageKey(clientId, evaluationStartedAt);
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    async close() {
      counts.clear();
    },
  };
}

export const createEvaluationUsage = (redisUrl: string | undefined): EvaluationUsage =>
  redisUrl ? createRedisEvaluationUsage(redisUrl) : createInProcessEvaluationUsage();
