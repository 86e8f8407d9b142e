import { setImmediate as nextTurn } from 'node:timers/promises';
import { SlugTaken } from '../domain/slugReservations.js';
import { WrongExpectedRevisionError } from '../eventStore/eventStore.js';
import { ImportBatch, WorkingCatalogue, type ImportDeps } from './importBatch.js';
import { importLineSchema, lineIssueFields, type ImportRecordType } from './importLines.js';
import type { SourceLine } from './ndjsonLines.js';
import { withOrderedEventIds } from './orderedEventIds.js';
import { importLine, LineRefused, type LineError, type LineOutcome } from './recordImports.js';

export type { ImportDeps } from './importBatch.js';

/** Lines decided and written together: few appends per batch, and a crash loses at most the batch's work. */
export const DEFAULT_BATCH_LINES = 1_000;
/**
 * How often a batch is decided afresh when one of its appends was refused as stale: another import, or an
 * editor, wrote to the same id sequence, key stream, slug or record in between.
 */
const MAX_BATCH_ATTEMPTS = 5;
/** Longest stretch of deciding or writing without letting the process's other work (HTTP requests) run. */
const YIELD_EVERY_MS = 20;

export interface ImportRefusal {
  line: number;
  /** The line's `type` and `key`, when it had them. */
  type: string | null;
  key: string | null;
  error: LineError;
}

export interface ImportProgress {
  /** Lines read so far (blank ones included), and the bytes they took. */
  lines: number;
  bytes: number;
  accepted: number;
  refused: number;
  /** Events appended so far: the records' own, without id claims, key bindings and slug reservations. */
  events: number;
  /** Since the import started. */
  seconds: number;
}

export interface ImportReport extends ImportProgress {
  created: number;
  revised: number;
  unchanged: number;
}

export interface ImportOptions {
  /** Who the events are recorded as (event metadata `actor`). */
  actor: string;
  batchLines?: number;
  /** After each batch is written. */
  onProgress?: (progress: ImportProgress) => void;
  /** For each refused line, in line order, once its batch is written. */
  onRefusal?: (refusal: ImportRefusal) => void;
}

/** The import stopped: a batch kept being refused by concurrent writes. Lines of earlier batches are written. */
export class ImportInterrupted extends Error {
  constructor(
    readonly firstLine: number,
    cause: unknown,
  ) {
    super(`the batch from line ${firstLine} on was refused ${MAX_BATCH_ATTEMPTS} times by concurrent writes; run the import again`, {
      cause,
    });
    this.name = 'ImportInterrupted';
  }
}

type LineResult = { line: number; outcome: LineOutcome } | { refusal: ImportRefusal };

/**
 * Imports NDJSON lines of catalogue records (src/import/importLines.ts). Each line is parsed by its record's
 * schema and decided by the same command slices as the admin API, on the catalogue as the log and the lines
 * before it have left it; a refused line is reported and writes nothing. Accepted lines are written a batch at
 * a time (see ImportBatch.write). Idempotent by key: running a file again appends nothing for the lines it
 * has already imported, and a line whose data changed revises its record.
 */
export async function importCatalogue(deps: ImportDeps, source: AsyncIterable<SourceLine>, options: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const working = await WorkingCatalogue.open({ ...deps, eventStore: withOrderedEventIds(deps.eventStore) });
  const report: ImportReport = { lines: 0, bytes: 0, accepted: 0, refused: 0, events: 0, created: 0, revised: 0, unchanged: 0, seconds: 0 };
  const batchLines = options.batchLines ?? DEFAULT_BATCH_LINES;
  let lastYield = performance.now();
  const letOthersRun = async () => {
    if (performance.now() - lastYield < YIELD_EVERY_MS) return;
    await nextTurn();
    lastYield = performance.now();
  };

  const decideBatch = async (lines: readonly SourceLine[]): Promise<{ batch: ImportBatch; results: LineResult[] }> => {
    const batch = new ImportBatch(working);
    const results: LineResult[] = [];
    for (const line of lines) {
      results.push(await decideLine(batch, line, options.actor));
      await letOthersRun();
    }
    return { batch, results };
  };

  const runBatch = async (lines: readonly SourceLine[]) => {
    const { batch, results } = await writeDecidedAfresh(working, lines[0]!.line, () => decideBatch(lines), letOthersRun);
    report.events += batch.eventCount;
    for (const result of results) {
      if ('refusal' in result) {
        report.refused += 1;
        options.onRefusal?.(result.refusal);
      } else {
        report.accepted += 1;
        report[result.outcome] += 1;
      }
    }
    const last = lines.at(-1)!;
    report.lines = last.line;
    report.bytes = last.end;
    report.seconds = (performance.now() - started) / 1000;
    options.onProgress?.({ ...report });
  };

  let lines: SourceLine[] = [];
  for await (const line of source) {
    lines.push(line);
    if (lines.length >= batchLines) {
      await runBatch(lines);
      lines = [];
    }
  }
  if (lines.length > 0) await runBatch(lines);
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

/**
 * Writes the batch `decide` gives, and when its append is refused as stale (another import, or an editor,
 * wrote to one of its streams meanwhile) decides it afresh from what is stored, `attempt` counting from 1,
 * up to MAX_BATCH_ATTEMPTS times. `firstLine` is the batch's, for the report of an import given up.
 */
async function writeDecidedAfresh<Decided extends { batch: ImportBatch }>(
  working: WorkingCatalogue,
  firstLine: number,
  decide: (attempt: number) => Promise<Decided>,
  between: () => Promise<void>,
): Promise<Decided> {
  for (let attempt = 1; ; attempt++) {
    const decided = await decide(attempt);
    try {
      await decided.batch.write(between);
      return decided;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError || error instanceof SlugTaken)) throw error;
      if (attempt === MAX_BATCH_ATTEMPTS) throw new ImportInterrupted(firstLine, error);
      await working.reloadKeys();
    }
  }
}

async function decideLine(batch: ImportBatch, source: SourceLine, actor: string): Promise<LineResult> {
  const refuse = (fields: Record<string, string>, message: string): LineResult => ({
    refusal: { line: source.line, type: null, key: null, error: { code: 'VALIDATION_FAILED', message, details: { fields } } },
  });
  if ('problem' in source) return refuse({ line: source.problem }, 'The line is not a valid record.');
  let value: unknown;
  try {
    value = JSON.parse(source.text);
  } catch {
    return refuse({ line: 'must be one JSON object' }, 'The line is not valid JSON.');
  }
  return decideRecord(batch, source.line, value, actor, batch.deps.clock());
}

/** Decides a line's JSON value at `at` (its events' time). */
async function decideRecord(batch: ImportBatch, line: number, value: unknown, actor: string, at: Date): Promise<LineResult> {
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { type?: unknown; key?: unknown }) : {};
  const refuse = (error: LineError): LineResult => ({
    refusal: {
      line,
      type: typeof record.type === 'string' ? record.type : null,
      key: typeof record.key === 'string' ? record.key : null,
      error,
    },
  });
  const parsed = importLineSchema.safeParse(value);
  if (!parsed.success) {
    return refuse({
      code: 'VALIDATION_FAILED',
      message: 'The line is not a valid record.',
      details: { fields: lineIssueFields(parsed.error.issues) },
    });
  }
  try {
    return { line, outcome: await importLine({ batch, now: at.toISOString(), actor }, parsed.data) };
  } catch (error) {
    if (error instanceof LineRefused) return refuse(error.error);
    throw error;
  }
}

/** A record built in memory that the import refused: its builder made a record the commands' rules refuse. */
export class RecordRefused extends Error {
  constructor(readonly refusal: ImportRefusal) {
    super(`The import refused the ${refusal.type ?? 'record'} "${refusal.key ?? ''}": ${JSON.stringify(refusal.error)}`);
    this.name = 'RecordRefused';
  }
}

/**
 * An import of records built in memory (the demo seed, src/seed/demoCatalogue.ts) rather than read from
 * NDJSON: each is a line of the same schema (`{ type, key, data }`) decided by the same slices, at a time of
 * its caller's (a synthetic history keeps a time per record), and the caller says when the lines added so
 * far are written, so that it can run commands on what they created in between. A refused record throws
 * RecordRefused, as a builder's records are expected to pass. A write refused as stale (an editor or an
 * import wrote meanwhile) decides the batch's records again from what is stored, as importCatalogue does.
 */
export class RecordImport {
  private batch: ImportBatch;
  private pending: Array<{ value: unknown; at: Date }> = [];
  /** Lines added, and the events written for them (without id claims, key bindings and slug reservations). */
  lines = 0;
  events = 0;

  private constructor(
    private readonly working: WorkingCatalogue,
    private readonly actor: string,
  ) {
    this.batch = new ImportBatch(working);
  }

  static async open(deps: ImportDeps, options: { actor: string }): Promise<RecordImport> {
    return new RecordImport(await WorkingCatalogue.open({ ...deps, eventStore: withOrderedEventIds(deps.eventStore) }), options.actor);
  }

  /** The id of the record a key names: bound by an earlier import, or by a line added to this batch. */
  boundId(type: ImportRecordType, key: string): number | undefined {
    return this.batch.binding(type, key)?.id;
  }

  /** Decides the record into the batch; nothing is written until `write`. */
  async add(value: unknown, at: Date): Promise<LineOutcome> {
    const outcome = await this.decide(value, at, this.lines + 1);
    this.lines += 1;
    this.pending.push({ value, at });
    return outcome;
  }

  /** Writes the lines added since the last write, as one batch. */
  async write(): Promise<void> {
    if (this.pending.length === 0) return;
    const first = this.lines - this.pending.length + 1;
    const redecide = async (attempt: number) => {
      if (attempt > 1) {
        this.batch = new ImportBatch(this.working);
        for (const [index, { value, at }] of this.pending.entries()) await this.decide(value, at, first + index);
      }
      return { batch: this.batch };
    };
    await writeDecidedAfresh(this.working, first, redecide, async () => {});
    this.events += this.batch.eventCount;
    this.batch = new ImportBatch(this.working);
    this.pending = [];
  }

  private async decide(value: unknown, at: Date, line: number): Promise<LineOutcome> {
    const result = await decideRecord(this.batch, line, value, this.actor, at);
    if ('refusal' in result) throw new RecordRefused(result.refusal);
    return result.outcome;
  }
}
