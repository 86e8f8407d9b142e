import type { Projection } from '../projectionEngine/projection.js';
import type { Heartbeats, LimitsMode, ProcessHeartbeat } from './heartbeats.js';
import type { LagSnapshot, ProjectionLagProbe } from './projectionLag.js';

export interface ProjectionStatus {
  name: string;
  version: number;
  /** Null when the projection has no checkpoint yet, or when the stores did not answer. */
  checkpoint_position: number | null;
  lag_events: number | null;
  lag_seconds: number | null;
  /** The most recent failure any process seen reported for it (the projector logs it in full). */
  last_error: { message: string; at: string; process_id: string } | null;
}

export interface ServiceStatus {
  /** The process that answered. */
  this_process: string;
  /** The processes whose heartbeat is recent, this one first; false in `processes_complete` when the others could not be read. */
  processes: Array<ProcessHeartbeat & { seconds_since_seen: number }>;
  processes_complete: boolean;
  /** How many of those processes run each role. */
  roles: Record<string, number>;
  /** Null when the log is empty or the event store did not answer. */
  log_head_position: number | null;
  projections: ProjectionStatus[];
  /** This process's limiter, and Redis as this process last found it. */
  limits: { mode: LimitsMode | null; redis: 'not_configured' | 'reachable' | 'unreachable' | 'unknown' };
}

export interface StatusSource {
  status(): Promise<ServiceStatus>;
}

export interface StatusOptions {
  heartbeats: Heartbeats;
  /** This process's heartbeat as of now (fresher than the one stored). */
  current: () => ProcessHeartbeat;
  lag: ProjectionLagProbe;
  projections: ReadonlyArray<Pick<Projection, 'name' | 'version'>>;
  redis: { reachable(): boolean | null } | null;
  now?: () => number;
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * The status operators read at /admin/v1/status: the processes seen (from their heartbeats), each
 * projection's position, lag and last failure, and the limiter. Whatever cannot be read is reported as
 * unknown rather than failing the whole answer: the status matters most while something is down.
 */
export function createServiceStatus(options: StatusOptions): StatusSource {
  const now = options.now ?? Date.now;
  return {
    async status() {
      const self = options.current();
      const [others, lag] = await Promise.all([
        options.heartbeats.recent().catch(() => null),
        options.lag.current().catch((): LagSnapshot | null => null),
      ]);
      const processes = [self, ...(others ?? []).filter((heartbeat) => heartbeat.id !== self.id)].map((heartbeat) => ({
        ...heartbeat,
        seconds_since_seen: round(Math.max(0, now() - Date.parse(heartbeat.last_seen)) / 1000),
      }));
      const roles: Record<string, number> = {};
      for (const role of processes.flatMap((heartbeat) => heartbeat.roles)) roles[role] = (roles[role] ?? 0) + 1;
      const lagOf = new Map(lag?.projections.map((projection) => [projection.name, projection]));
      const reachable = options.redis?.reachable();
      return {
        this_process: self.id,
        processes,
        processes_complete: others !== null,
        roles,
        log_head_position: lag?.head === null || lag === null ? null : Number(lag.head),
        projections: options.projections.map((projection) => {
          const measured = lagOf.get(projection.name);
          return {
            name: projection.name,
            version: projection.version,
            checkpoint_position: measured?.checkpoint === null || measured === undefined ? null : Number(measured.checkpoint),
            lag_events: measured?.eventsBehind ?? null,
            lag_seconds: measured ? round(measured.secondsBehind) : null,
            last_error: lastErrorOf(projection.name, processes),
          };
        }),
        limits: {
          mode: self.limits,
          redis: options.redis === null ? 'not_configured' : reachable === null ? 'unknown' : reachable ? 'reachable' : 'unreachable',
        },
      };
    },
  };
}

function lastErrorOf(projection: string, processes: readonly ProcessHeartbeat[]): ProjectionStatus['last_error'] {
  let latest: ProjectionStatus['last_error'] = null;
  for (const heartbeat of processes) {
    const failure = heartbeat.projection_errors[projection];
    if (failure && (latest === null || Date.parse(failure.at) > Date.parse(latest.at))) latest = { ...failure, process_id: heartbeat.id };
  }
  return latest;
}
