/**
 * nxdma/formats: the wire formats the hardware defines, one encoder/decoder each, shared by the
 * compiler that emits them, the driver that writes them and the mock that executes them.
 *
 * - the 16-byte ring descriptors (TX, RX, completion; `bd.ts`, docs/descriptors.md);
 * - the 64-byte DGE descriptors and their micro-ops (`dge-desc.ts`, `dge-ops.ts`);
 * - the DGE host tables: priority-class map and mailboxes (`dge-host.ts`);
 * - the DGE memcopy engine's local registers MEMCOPY_CARVEOUT_CFG / MEMCOPY_DMA_CFG (`dge-local-regs.ts`);
 * - the DMAQoSClass mapping to wire priority_class and arbiter levels (`qos-class.ts`).
 *
 * The descriptor ring rules (`ring.ts`: geometry, ring id, in-flight count, descriptors per packet)
 * are public through nxdma/driver, next to the ring producer that applies them.
 */
export * from './bd.ts';
export * from './dge-desc.ts';
export * from './dge-ops.ts';
export * from './dge-host.ts';
export * from './dge-local-regs.ts';
export * from './qos-class.ts';
