import type { Command } from 'commander';
import type { CliContext } from '../main.ts';
import { register as compile } from './compile.ts';
import { register as docs } from './docs.ts';
import { register as qos } from './qos.ts';
import { register as regs } from './regs.ts';
import { register as run } from './run.ts';
import { register as udma } from './udma.ts';

export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Every sub-command, in the order `nxdma --help` lists them. Each file exports `register`. */
export const commands: RegisterCommand[] = [run, compile, regs, docs, qos, udma];
