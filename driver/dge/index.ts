/** The DGE host API: core kinds and build masks, the priority-class map, mailboxes and the mask rule. */
export * from './core-kinds.ts';
export * from './host.ts';
export * from './mailbox.ts';
export {
  ALL_DMA_CHANNELS,
  MAILBOX_NEVER_MASKS,
  type DgeMailbox,
  packMailbox,
  unpackMailbox,
} from '../../csr/formats/dge-host.ts';
