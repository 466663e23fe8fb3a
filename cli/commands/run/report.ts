/** The readable report of one `nxdma run` program: queues, arbitration, verdict, totals. */
import { hex } from '../../../common/errors.ts';
import type { FlowReport } from '../../../flow/index.ts';
import { type Out, paint, table } from '../../output.ts';

export function kib(n: number): string {
  return n >= 1024 * 1024
    ? `${(n / 1048576).toFixed(1)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${n} B`;
}

/** The readable report of one program. */
export function formatReport(out: Out, r: FlowReport): string[] {
  const lines: string[] = [];
  const ok = r.mismatches === 0;
  lines.push(`${paint(out, 1, r.program)}${r.file ? ` (${r.file})` : ''} on ${r.device}`);
  const l = r.lowering;
  const bk = Object.entries(l.byBackend)
    .filter(([, n]) => n > 0)
    .map(([b, n]) => `${b} ${n}`)
    .join(', ');
  lines.push(
    `  compiled in ${r.passes.length} passes; lowered ${l.dmas} DMAs (${l.executed} executed; backends: ${bk || 'none'}) ` +
      `to ${l.dgeDescriptors} DGE descriptors and ${l.descriptors} ring descriptor pairs`,
  );
  lines.push('');
  lines.push(
    table(
      ['queue', 'engine', 'qid', 'qos', 'dmas', 'descriptors', 'bytes'],
      r.queues.map((q) => [q.name, q.engine, q.qid, q.qos, q.dmas, q.descriptors, q.bytes]),
    )
      .split('\n')
      .map((s) => '  ' + s)
      .join('\n'),
  );
  lines.push('');
  const a = r.arbitration;
  if (a.observed && a.queues.length > 0) {
    lines.push(
      `  arbitration (${a.mode === 'qos' ? 'QoS: strict levels + DWRR from each class' : 'round robin'}), ${r.epochs} epoch(s):`,
    );
    for (const q of a.queues) {
      lines.push(
        `    udma${q.engine} q${q.qid} ${q.name}: ${q.packets} packets, ${kib(q.bytes)}` +
          (q.firstCycle !== null ? `, cycles ${q.firstCycle}..${q.lastCycle}` : '') +
          (q.qQos !== null ? `, q_qos ${q.qQos}` : ''),
      );
    }
  }
  for (const w of a.warnings) lines.push(`  note: ${w}`);
  const verdict = ok ? paint(out, 32, 'OK') : paint(out, 31, 'MISMATCH');
  lines.push(
    `  moved ${kib(r.bytesMoved)}; verified ${r.verifiedBytes} destination bytes (${r.checkedBytes} bytes compared): ` +
      `${r.mismatches} mismatches ${verdict}  [${r.elapsedMs} ms]`,
  );
  for (const s of r.mismatchSamples.slice(0, 8)) {
    lines.push(
      `    ${s.address} (${s.region}${s.tensor ? `, tensor ${s.tensor}` : ''}${s.destination ? '' : ', not a destination'}): expected ${hex(s.expected, 2)}, got ${hex(s.actual, 2)}`,
    );
  }
  if (r.trace) {
    lines.push('');
    lines.push('  trace: lowering');
    for (const d of r.trace.dmas) {
      lines.push(
        `    ${d.dma} on ${d.queue}: backend ${d.backend}, priority_class ${d.priorityClass}, ${d.descriptors} descriptor pairs`,
      );
      for (const s of d.streams) {
        for (const op of s.microOps) lines.push(`      S: ${op}`);
        lines.push(`      -> ${s.descriptors.join(', ')}`);
      }
    }
    lines.push(
      '  trace: packets served (engine queue bytes descriptors cycles q_qos deciding stage)',
    );
    for (const e of r.trace.service.slice(0, 200)) {
      lines.push(
        `    #${e.order} udma${e.engine} q${e.queue} ${e.bytes} B ${e.descriptors} desc ${e.startCycle}..${e.endCycle} q_qos ${e.qQos} decided by ${e.stage}`,
      );
    }
    if (r.trace.service.length > 200) lines.push(`    ... ${r.trace.service.length - 200} more`);
  }
  return lines;
}
