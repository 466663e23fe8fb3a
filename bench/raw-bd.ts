/**
 * The benches' raw descriptor fill: the four 32-bit words of a TX descriptor and of its RX
 * partner stored straight into Uint32Array rings with no check (the layout constants of
 * csr/formats/bd.ts). The baseline every validated emission path is measured against; one
 * spelling so that every bench's baseline writes the same words the same way.
 */
import { META_CTRL_PLAIN_COPY } from '../csr/formats/bd.ts';

/**
 * Stores a TX + RX descriptor pair at word `j` (slot * 4) of each ring: `w0` is the length/control
 * word of both (the RX one without the TX-only flags is the caller's choice of `rxW0`), `src` and
 * `dst` the 64-bit buffer addresses.
 */
export function rawPair(
  tx: Uint32Array,
  rx: Uint32Array,
  j: number,
  txW0: number,
  rxW0: number,
  src: number,
  dst: number,
): void {
  tx[j] = txW0;
  tx[j + 1] = META_CTRL_PLAIN_COPY;
  tx[j + 2] = src >>> 0;
  tx[j + 3] = (src / 4294967296) >>> 0;
  rx[j] = rxW0;
  rx[j + 1] = 0;
  rx[j + 2] = dst >>> 0;
  rx[j + 3] = (dst / 4294967296) >>> 0;
}
