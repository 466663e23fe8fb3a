/** How `nxdma qos` prints a plan (a table per engine), its warnings, its writes and a diff. */
import { hex } from '../../../common/errors.ts';
import type { Device } from '../../../csr/io.ts';
import {
  describeQosPlan,
  diffQos,
  type PlanEngineTable,
  type QosPlan,
  type QosWarning,
  type QosWrite,
} from '../../../driver/qos/index.ts';
import type { CliContext } from '../../main.ts';
import { paint, table } from '../../output.ts';

/** One write as `qos apply --json` prints it. */
export interface QosJsonWrite {
  engine: number;
  file: string;
  path: string;
  /** Byte offset within its register file. */
  offset: number;
  old: number | null;
  new: number;
}

const v = (x: number | boolean | null, yes = 'yes', no = 'no'): string =>
  x === null ? '-' : typeof x === 'boolean' ? (x ? yes : no) : String(x);

export function printTables(ctx: CliContext, tables: PlanEngineTable[]): void {
  const out = ctx.out;
  for (const t of tables) {
    const armed = t.armed ? paint(out, 32, 'armed') : paint(out, 33, 'not armed');
    out.log(
      `engine ${t.engine}: ${t.arbiters} [${armed}]${t.rateLimit ? `; rate limit ${t.rateLimit}` : ''}`,
    );
    if (t.queues.length > 0) {
      out.log(
        table(
          [
            'queue',
            'class',
            'prio',
            'AXI_qos',
            'q_qos',
            'weight',
            'HP',
            's2m AXI_qos',
            'rate limit',
          ],
          t.queues.map((q) => [
            q.queue,
            q.class,
            v(q.priorityClass),
            v(q.axiQos),
            v(q.qQos),
            v(q.weight),
            v(q.highPriority),
            v(q.s2mAxiQos),
            q.rateLimit ?? '-',
          ]),
        )
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      );
    }
    out.log('');
  }
}

export function printWarnings(ctx: CliContext, warnings: readonly QosWarning[]): void {
  for (const w of warnings)
    ctx.out.err(`${paint(ctx.out, 33, 'warning')} [${w.code}]: ${w.message}`);
}

const word = (x: number | null): string => (x === null ? '?' : hex(x, 8));

export function printWrites(ctx: CliContext, writes: readonly QosWrite[], title: string): void {
  const out = ctx.out;
  if (writes.length === 0) return;
  out.log(title);
  out.log(
    table(
      ['engine', 'file', 'path', 'offset', 'old', 'new', 'fields'],
      writes.map((w) => [
        w.engine,
        w.file,
        w.path,
        hex(w.offset, 5),
        word(w.old),
        word(w.new),
        w.fields.map((f) => `${f.name} ${f.old === null ? '?' : f.old}->${f.new}`).join(', '),
      ]),
    ),
  );
  out.log('');
}

export function jsonWrite(w: QosWrite): QosJsonWrite {
  return { engine: w.engine, file: w.file, path: w.path, offset: w.offset, old: w.old, new: w.new };
}

export function printDiff(
  ctx: CliContext,
  plan: QosPlan,
  engines: number[] | undefined,
  dev: Device,
  d: ReturnType<typeof diffQos>,
): void {
  {
    printTables(ctx, describeQosPlan(plan, engines));
    const out = ctx.out;
    out.log(
      table(
        ['', 'engine', 'path', 'field', 'current', 'planned', 'origin'],
        d.fields.map((f) => [
          f.differs ? paint(out, 31, '*') : ' ',
          f.engine,
          f.path,
          f.field + (f.inferred ? ' (inferred)' : ''),
          f.current === null ? '?' : f.current,
          f.planned,
          f.origin,
        ]),
      ),
    );
    out.log('');
    out.log(
      `${dev.name}: ${d.differences} of ${d.fields.length} planned fields differ (*)` +
        (d.notRead.length
          ? `; not read (address inferred, use --allow-inferred): ${d.notRead.map((r) => r.path).join(', ')}`
          : ''),
    );
    printWarnings(ctx, d.warnings);
  }
}
