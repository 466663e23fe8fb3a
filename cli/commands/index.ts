import type { Command } from 'commander';
import type { CliContext } from '../main.ts';

export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/**
 * One sub-command: its name and one-line summary (what `nxdma --help` lists without loading it)
 * and the module that registers it in full. The CLI loads only the module of the command it runs,
 * so `nxdma --help` and `nxdma regs decode ...` pay for none of the others (docs/packaging.md).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<{ register: RegisterCommand }>;
}

/**
 * Every sub-command, in the order `nxdma --help` lists them. Each file exports `register`, whose
 * description is `summary` (test/cli/conventions.test.ts checks they agree).
 */
export const commands: CommandEntry[] = [
  {
    name: 'run',
    summary:
      'compile a program (or every program of a directory), run it through descriptor rings and verify every byte',
    load: () => import('./run.ts'),
  },
  {
    name: 'compile',
    summary:
      'compile a DMA program: bind every DMA to a DGE route, trigger engine, queue and order',
    load: () => import('./compile.ts'),
  },
  {
    name: 'regs',
    summary: 'the UDMA / DGE register files: inventory (and register access)',
    load: () => import('./regs.ts'),
  },
  {
    name: 'docs',
    summary: 'generate the register documentation: offline HTML site and Markdown',
    load: () => import('./docs.ts'),
  },
  {
    name: 'qos',
    summary: 'QoS plans: show, apply to a device, diff against a device',
    load: () => import('./qos.ts'),
  },
  {
    name: 'udma',
    summary: 'UDMA engines: capabilities, and a read-only dump of queues and rings',
    load: () => import('./udma.ts'),
  },
];
