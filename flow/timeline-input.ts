/**
 * The input of the queue-service timeline (flow/timeline.ts): a ServiceTrace or an array of its
 * entries, read into a private list and checked field by field before anything is drawn.
 */
import { NxdmaError } from '../common/errors.ts';
import { SERVICE_STAGES, type ServiceTraceEntry, type ServiceTraceReader } from '../csr/io.ts';

/** What the timeline needs of a service-trace entry (ServiceTraceEntry has all of it). */
export type TimelineEntry = Pick<
  ServiceTraceEntry,
  'engine' | 'queue' | 'bytes' | 'startCycle' | 'endCycle' | 'qQos'
> &
  Partial<Pick<ServiceTraceEntry, 'descriptors' | 'stage'>>;

function isServiceTrace(t: unknown): t is ServiceTraceReader {
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof (t as ServiceTraceReader).at === 'function' &&
    typeof (t as ServiceTraceReader).length === 'number'
  );
}

const FIELDS = ['engine', 'queue', 'bytes', 'startCycle', 'endCycle', 'qQos'] as const;

/**
 * The entries of `trace` and the packets it could not keep (`dropped` when given, else the
 * trace's own count); throws BAD_ARGUMENT for anything else than a trace or an array of entries,
 * and for an entry with a missing or negative field or an unknown stage.
 */
export function readTimelineEntries(
  trace: ServiceTraceReader | readonly TimelineEntry[],
  dropped: number | undefined,
): { entries: readonly TimelineEntry[]; dropped: number } {
  let entries: readonly TimelineEntry[];
  let kept = dropped ?? 0;
  if (isServiceTrace(trace)) {
    const list: ServiceTraceEntry[] = new Array(trace.length);
    for (let i = 0; i < trace.length; i++) list[i] = trace.at(i);
    entries = list;
    if (dropped === undefined) kept = trace.dropped;
  } else {
    if (!Array.isArray(trace)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        'the trace must be a ServiceTrace or an array of entries',
        {
          where: 'trace',
          expected: 'ServiceTrace | ServiceTraceEntry[]',
          actual: typeof trace,
        },
      );
    }
    entries = trace;
  }
  validate(entries);
  return { entries, dropped: kept };
}

/** Checks every entry before anything is drawn; throws BAD_ARGUMENT naming the entry and field. */
function validate(entries: readonly TimelineEntry[]): void {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const where = `trace[${i}]`;
    if (typeof e !== 'object' || e === null) {
      throw new NxdmaError('BAD_ARGUMENT', `${where} is not a service-trace entry`, {
        where,
        expected: `{ ${FIELDS.join(', ')} }`,
        actual: e,
      });
    }
    for (const f of FIELDS) {
      const v = e[f];
      const integer = f === 'engine' || f === 'queue' || f === 'qQos';
      if (
        typeof v !== 'number' ||
        !Number.isFinite(v) ||
        v < 0 ||
        (integer && !Number.isInteger(v))
      ) {
        throw new NxdmaError(
          'BAD_ARGUMENT',
          `${where}.${f} must be a ${integer ? 'non-negative integer' : 'finite number >= 0'}, got ${String(v)}`,
          { where: `${where}.${f}`, expected: integer ? 'integer >= 0' : 'number >= 0', actual: v },
        );
      }
    }
    if (e.endCycle < e.startCycle) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}: endCycle ${e.endCycle} is before startCycle ${e.startCycle}`,
        { where: `${where}.endCycle`, expected: `>= ${e.startCycle}`, actual: e.endCycle },
      );
    }
    if (e.stage !== undefined && !(SERVICE_STAGES as readonly unknown[]).includes(e.stage)) {
      throw new NxdmaError(
        'BAD_ARGUMENT',
        `${where}.stage must be one of ${SERVICE_STAGES.join(', ')}, got ${String(e.stage)}`,
        { where: `${where}.stage`, expected: SERVICE_STAGES.join(' | '), actual: e.stage },
      );
    }
  }
}
