/**
 * The nxdma driver: the only layer that talks to a Device (docs/driver.md).
 *
 * - udma: engine bring-up, descriptor rings, copies, completion by head pointers, register shadow;
 * - qos: the QoS plan format, planQos / applyQos / diffQos;
 * - dge: the DGE host API (priority-class map, mailboxes, the DMA-mask rule, core kinds);
 * - runtime: the CCE priority cap, custom-op DMA detection, DMAQoSClass -> wire priority_class;
 * - mmio: mapped device files over FFI (openRegion, openDevice) and the device profiles.
 */
export * from './udma/index.ts';
export * from './qos/index.ts';
export * from './dge/index.ts';
export * from './runtime/index.ts';
export * from './mmio/index.ts';
