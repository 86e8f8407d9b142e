import { z } from 'zod';
import { LIMITS_MODES } from '../../metrics/heartbeats.js';
import type { StatusSource } from '../../metrics/serviceStatus.js';
import type { AdminRoute } from '../adminRoute.js';
import { noParams } from './adminSchemas.js';

const failureSchema = z
  .object({
    message: z
      .string()
      .meta({ description: 'The error message (credentials scrubbed, at most 500 characters); the log has the whole error.' }),
    at: z.string().meta({ description: 'When it happened (ISO 8601).' }),
  })
  .strict();

const processSchema = z
  .object({
    id: z.string().meta({ description: 'host:pid:random, new at every start.' }),
    pid: z.number().int(),
    host: z.string(),
    roles: z.array(z.string()).meta({ description: 'api, projector, worker.' }),
    started_at: z.string(),
    last_seen: z.string().meta({ description: 'Its last heartbeat (every 5 s).' }),
    seconds_since_seen: z.number(),
    limits: z.enum(LIMITS_MODES).nullable().meta({
      description:
        'API processes: `redis` (shared by every replica), `in-process` (no REDIS_URL), `in-process-fallback` (REDIS_URL set but Redis did not answer its last call: each replica limits on its own until it does), `off` (RATE_LIMITS=off). Null without the api role.',
    }),
    projection_errors: z
      .record(z.string(), failureSchema)
      .meta({ description: 'Projector processes: the last failure of each projection that failed in it.' }),
  })
  .strict();

const projectionSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    checkpoint_position: z
      .number()
      .nullable()
      .meta({ description: 'Log position applied and checkpointed; null before the first checkpoint or when the stores did not answer.' }),
    lag_events: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Events after the checkpoint (on EventStoreDB counted up to READY_MAX_LAG_EVENTS + 1).' }),
    lag_seconds: z
      .number()
      .nullable()
      .meta({ description: 'Seconds since the oldest event not yet applied was recorded; 0 when caught up.' }),
    last_error: failureSchema
      .extend({ process_id: z.string() })
      .nullable()
      .meta({ description: 'The most recent failure reported by a process seen; the projection retries with backoff meanwhile.' }),
  })
  .strict();

const statusSchema = z
  .object({
    this_process: z.string(),
    processes: z.array(processSchema).meta({ description: 'Processes with a heartbeat in the last 60 s, the answering one first.' }),
    processes_complete: z.boolean().meta({
      description:
        "False when the other processes' heartbeats could not be read (Redis or the read store down): only this process is listed.",
    }),
    roles: z.record(z.string(), z.number().int()).meta({ description: 'How many of the processes seen run each role.' }),
    log_head_position: z.number().nullable().meta({ description: 'Position of the last event in the log; null when empty or unreadable.' }),
    projections: z.array(projectionSchema),
    limits: z
      .object({
        mode: z.enum(LIMITS_MODES).nullable().meta({ description: "The answering process's limiter (see processes[].limits)." }),
        redis: z
          .enum(['not_configured', 'reachable', 'unreachable', 'unknown'])
          .meta({ description: "Redis as the answering process's last call found it." }),
      })
      .strict(),
  })
  .strict()
  .meta({
    id: 'ServiceStatus',
    description:
      'The deployment as the answering process sees it: every process writes a heartbeat (pid, host, roles, start, limiter mode, last projection failures) every 5 s to Redis (REDIS_URL) or the read store; lag is the log head against the checkpoints stored in the read store.',
  });

/** GET /admin/v1/status: the processes seen, each projection's position, lag and last failure, the limiter. */
export function statusAdminRoutes(source: StatusSource): AdminRoute[] {
  const getStatusRoute: AdminRoute<typeof noParams> = {
    method: 'get',
    path: '/status',
    operationId: 'getServiceStatus',
    summary: 'Processes seen (roles, heartbeats), projection positions, lag and last errors, and the limiter mode',
    tag: 'Operations',
    params: noParams,
    successStatus: 200,
    response: statusSchema,
    async handle() {
      return { data: await source.status() };
    },
  };
  return [getStatusRoute];
}
