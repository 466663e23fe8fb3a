/** `nxdma regs list`: every register word of the register files with its fields. */
import { hex } from '../../../common/errors.ts';
import { regFile } from '../../../csr/schema/files.ts';
import type { RegisterInstance } from '../../../csr/schema/model.ts';
import type { CliContext } from '../../main.ts';
import { paint, table } from '../../output.ts';
import { parseFiles } from './words.ts';

/** One register word as `regs list --json` prints it. */
export interface RegsListEntry {
  file: string;
  path: string;
  /** Absolute byte offset in the file's window. */
  offset: number;
  access: string;
  /** Reset word (unknown field resets count as 0; see resetKnown). */
  reset: number;
  resetKnown: boolean;
  provenance: string;
  inferred: boolean;
  /** For a doorbell (INC): the "register.field" a write adds to. */
  incrementTarget?: string;
  fields: {
    name: string;
    lsb: number;
    width: number;
    access: string;
    reset: number;
    resetKnown: boolean;
    provenance: string;
  }[];
}

export function listEntry(i: RegisterInstance): RegsListEntry {
  const r = i.register;
  const e: RegsListEntry = {
    file: i.file,
    path: i.path,
    offset: i.offset,
    access: r.access,
    reset: r.reset,
    resetKnown: r.resetKnown,
    provenance: r.provenance,
    inferred: r.inferred,
    fields: r.fields.map((f) => ({
      name: f.name,
      lsb: f.lsb,
      width: f.width,
      access: f.access,
      reset: f.reset,
      resetKnown: f.resetKnown,
      provenance: f.provenance,
    })),
  };
  if (r.incrementTarget)
    e.incrementTarget = `${r.incrementTarget.register}.${r.incrementTarget.field}`;
  return e;
}

export interface ListOptions {
  file?: string;
  match?: string;
  inferred?: boolean;
  json?: boolean;
}

export function list(ctx: CliContext, opts: ListOptions): void {
  const files = parseFiles(opts.file).map((n) => regFile(n));
  const keep = (i: RegisterInstance) =>
    (!opts.match || i.path.toLowerCase().includes(opts.match.toLowerCase())) &&
    (!opts.inferred || i.register.inferred);
  const rows = files.flatMap((f) => f.instances.filter(keep));
  if (opts.json) {
    ctx.out.json({ registers: rows.map(listEntry) });
    return;
  }
  const out = ctx.out;
  out.log(
    table(
      ['file', 'path', 'offset', 'access', 'reset', 'provenance', 'fields'],
      rows.map((i) => {
        const r = i.register;
        const fields = r.fields.length
          ? r.fields
              .map(
                (f) =>
                  `${f.name}[${f.width > 1 ? `${f.msb}:` : ''}${f.lsb}]${f.inferred ? '*' : ''}`,
              )
              .join(' ')
          : '(whole word)';
        const prov = r.inferred ? paint(out, 33, 'inferred') : r.provenance;
        return [
          i.file,
          i.path,
          hex(i.offset, 5),
          r.incrementTarget ? `INC>${r.incrementTarget.register}` : r.access,
          hex(r.reset, 8) + (r.resetKnown ? '' : '?'),
          prov,
          fields,
        ];
      }),
    ),
  );
  out.log('');
  out.log(
    "reset ending in '?': not every field's reset is known (unknown counts as 0); field*: inferred",
  );
  for (const f of files) {
    const inferred = f.instances.filter((i) => i.register.inferred).length;
    out.log(
      `${f.name}: window ${hex(f.size)} bytes, ${f.instances.length} register words` +
        (inferred ? ` (${inferred} inferred: not written to hardware without an opt-in)` : ''),
    );
    for (const g of f.knownGaps) {
      out.log(
        `  known gap: ${g.block ? `${g.block}.` : ''}${g.name} (${g.provenance}): ${g.description}`,
      );
    }
  }
}
