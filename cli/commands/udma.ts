/**
 * `nxdma udma info` and `nxdma udma dump`: what a UDMA engine and the driver can do, and the
 * state of an engine's queues and rings as read from a device. Both only read: a device is mapped
 * read-only, and nothing is written to it (no bring-up, no queue init).
 */
import type { Command } from 'commander';
import type { Device } from '../../csr/io.ts';
import { UdmaEngine, formatDump } from '../../driver/udma/index.ts';
import { MockDevice } from '../../mocks/index.ts';
import type { CliContext } from '../main.ts';
import { deviceChoiceOptions, uintOption } from '../options.ts';
import { openChoice } from '../device-open.ts';

interface UdmaOptions {
  mock?: boolean;
  device?: string;
  profile?: string;
  engine?: string;
  queue?: string[];
  json?: boolean;
}

function engineOf(opt: string | undefined): number {
  if (opt === undefined) return 0;
  return uintOption(opt, '--engine', { what: 'an engine number' })!;
}

function queuesOf(opt: string[] | undefined): number[] | undefined {
  if (opt === undefined) return undefined;
  return opt.map((q) => uintOption(q, '--queue', { what: 'a queue number' })!);
}

/**
 * A fresh mock, or the device file mapped read-only (openChoice with writes: false). `info`
 * defaults to the mock; `dump` needs --mock or --device.
 */
function openReadOnly(
  opts: UdmaOptions,
  engine: number,
  defaultMock: boolean,
): { dev: Device; close: () => void } {
  const choice = { ...opts, mock: opts.mock ?? (defaultMock && opts.device === undefined) };
  return openChoice(
    choice,
    { engines: [engine], writes: false },
    () => new MockDevice({ engines: [engine] }),
  );
}

function info(ctx: CliContext, opts: UdmaOptions): void {
  const engine = engineOf(opts.engine);
  const { dev, close } = openReadOnly(opts, engine, true);
  try {
    const i = new UdmaEngine(dev, engine, { clock: null }).info();
    if (opts.json) {
      ctx.out.json(i);
      return;
    }
    const out = ctx.out;
    out.log(`udma${i.engine} on ${i.device.name} (${i.device.profile})`);
    out.log(`  queues                  ${i.queues} per half`);
    out.log(
      `  ring size               ${i.minRingSize}..${i.maxRingSize} descriptors, a multiple of ${i.ringSizeMultiple}; base ${i.ringAlign}-byte aligned`,
    );
    out.log(`  bytes per descriptor    ${i.maxBytesPerDescriptor}`);
    out.log(
      `  descriptors per packet  ${i.maxDescPerPkt} (max_desc_per_pkt; scatter-gather source segments)`,
    );
    out.log(`  capabilities            ${i.capabilities.join(', ')}`);
  } finally {
    close();
  }
}

function dump(ctx: CliContext, opts: UdmaOptions): void {
  const engine = engineOf(opts.engine);
  const queues = queuesOf(opts.queue);
  const { dev, close } = openReadOnly(opts, engine, false);
  try {
    const d = new UdmaEngine(dev, engine, { clock: null }).dump({ queues });
    if (opts.json) ctx.out.json(d);
    else ctx.out.log(formatDump(d));
  } finally {
    close();
  }
}

export function register(program: Command, ctx: CliContext): void {
  const udma = program
    .command('udma')
    .description('UDMA engines: capabilities, and a read-only dump of queues and rings')
    .addHelpText('after', `\nExample:\n  $ nxdma udma info\n  $ nxdma udma dump --mock --json`);
  const target = (c: Command): Command =>
    deviceChoiceOptions(c, {
      mock: 'a fresh mock device (info: the default without --device)',
      readOnly: true,
    })
      .option('--engine <n>', 'the engine (default 0)')
      .option('--json', 'machine-readable output');
  target(
    udma
      .command('info')
      .description('queues, ring limits, descriptors per packet, capabilities')
      .addHelpText(
        'after',
        `\nExample:\n  $ nxdma udma info\n  $ nxdma udma info --engine 3 --json`,
      ),
  ).action((opts: UdmaOptions) => info(ctx, opts));
  target(
    udma
      .command('dump')
      .description("an engine's state and every queue's ring registers (reads only)")
      .option('--queue <n...>', 'only these queues')
      .addHelpText(
        'after',
        `\nExample:\n  $ nxdma udma dump --mock --queue 0 1\n  $ nxdma udma dump --device /sys/bus/pci/devices/0000:10:1c.0/resource0 --profile trn2 --engine 3 --json`,
      ),
  ).action((opts: UdmaOptions) => dump(ctx, opts));
}
