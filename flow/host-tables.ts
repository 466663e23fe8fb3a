/**
 * The DGE host tables and the CCE prio cap on the data path of the flow (seed 004 §7.2, §9, §10.3):
 *
 * - +0x18, the priority-class map: "each value is the preferred bytes per packet for DGE data
 *   transfer" of ISA classes 1..4 (entry i is class i + 1; class 0 is the firmware default, not in
 *   the table). A DGE DMA (backend Pool, software or RTL) of wire class c in 1..4 whose entry is
 *   non-zero moves in packets of that many bytes; 0, a missing entry, class 0 and host-built DMAs
 *   keep the descriptor-count packets (nxdma's reading: 0 = no preference).
 * - +0x28, the mailboxes: a DGE operation starts with all 16 DMA channels; "if the DGE operation's
 *   priority > the mailbox priority, AND-mask the 16-bit DMA bitmask" (driver/dge/mailbox.ts). The
 *   operation's priority is its wire priority_class (nxdma's reading). The mask narrows the
 *   channels its micro-op streams rotate over and the REGWRITE's MEMCOPY_DMA_CFG lo16.
 * - the CCE prio cap: a collective-reduce DMA (DMA kind CCE) moves in packets of
 *   cceReducePacketSize(elemSize, min(N, maxCceElements(arch)), class, cc_cce_reduce_prio_pkt_size)
 *   bytes: min(dtype_size * N, cap[class]) & ~0x1F, N capped by aws_hal_get_sdma_max_cce_elements.
 *   A packet that rounds down to 0 bytes is refused (LOWER_ERROR). When the host table also shapes
 *   a CCE DMA, the smaller packet wins.
 */
import { NxdmaError } from '../common/errors.ts';
import { DMAKind } from '../compiler/ir/enums.ts';
import type { DgeHostTables, Module } from '../compiler/ir/module.ts';
import type { LowerOptions, PacketInfo } from '../compiler/lower/types.ts';
import type { Device } from '../csr/io.ts';
import { readMailboxes, readPriorityClassMap } from '../driver/dge/host.ts';
import { effectiveDmaMask } from '../driver/dge/mailbox.ts';
import { cceReducePacketSize, maxCceElements } from '../driver/runtime/prio-cap.ts';

/** The tables a module asks for, with the device's read in when it says 'device'. */
export function hostTablesOf(m: Module, device: Device | null): DgeHostTables | null {
  const t = m.options.dgeHostTables;
  if (t !== 'device') return t;
  if (device === null) return null;
  const cores = device.dgeCores();
  if (cores.length === 0) {
    throw new NxdmaError(
      'DEVICE_UNAVAILABLE',
      `the program takes its DGE host tables from the device, and device ${device.name} has no DGE core`,
      { where: 'options.dgeHostTables', expected: 'a device with DGE core 0', actual: cores },
    );
  }
  return {
    priorityClassMap: readPriorityClassMap(device, cores[0]),
    mailboxes: readMailboxes(device, cores[0]),
  };
}

/** The lowering's packetBytes and dmaMask for a module, its host tables and its CCE cap table. */
export function dataPathRules(
  m: Module,
  tables: DgeHostTables | null,
): Pick<LowerOptions, 'packetBytes' | 'dmaMask'> {
  const capTable = m.options.cceReducePrioPktSize;
  const map = tables?.priorityClassMap ?? [];
  const mailboxes = tables?.mailboxes ?? [];
  const anyCce = hasCceDma(m);
  const out: Pick<LowerOptions, 'packetBytes' | 'dmaMask'> = {};
  const boxes = mailboxes.map((x) => ({ reserved: 0, priority: x.priority, bitmask: x.bitmask }));
  if (boxes.length > 0) out.dmaMask = (pc: number) => effectiveDmaMask(boxes, pc);
  if (map.some((v) => v > 0) || anyCce) {
    out.packetBytes = (d: PacketInfo): number => {
      let bytes = 0;
      if (d.backend !== 'none' && d.priorityClass >= 1) bytes = map[d.priorityClass - 1] ?? 0;
      if (d.instr.dmaKind === DMAKind.CCE) {
        const n = Math.min(d.elements, maxCceElements(d.arch));
        const cce = cceReducePacketSize(d.elemSize, n, d.priorityClass, capTable);
        if (cce === 0) {
          throw new NxdmaError(
            'LOWER_ERROR',
            `${d.label}: a collective-reduce packet of min(${d.elemSize} x ${n}, cap[${d.priorityClass}] ${capTable[d.priorityClass]}) bytes rounds down to 0 (& ~0x1F)`,
            {
              where: d.label,
              expected: 'a CCE packet of at least 32 bytes',
              actual: { elemSize: d.elemSize, elements: n, cap: capTable[d.priorityClass] },
            },
          );
        }
        bytes = bytes > 0 ? Math.min(bytes, cce) : cce;
      }
      return bytes;
    };
  }
  return out;
}

/** Whether any instruction of `m` is of DMA kind CCE (read from the instruction columns). */
function hasCceDma(m: Module): boolean {
  const kinds = m.columns.dmaKind;
  const n = m.columns.size;
  for (let id = 0; id < n; id++) if (kinds[id] === DMAKind.CCE) return true;
  return false;
}
