/**
 * The options the commands share, read one way everywhere.
 *
 * Numbers: an unsigned integer is written `0x...`, `0b...` or in decimal, with `_` allowed between
 * digits (`0x8000_0000`); anything else (a sign, an exponent, a fraction, an empty string) is
 * refused with BAD_ARGUMENT naming the option.
 *
 * The device: `--mock`, `--device <file>`, `--profile <name>`, `--memory <addr>+<size>[@<offset>]`
 * (DMA-visible memory) and the one confirmation flag a writing command needs on a device. The
 * rules (docs/device.md):
 *
 * - exactly one of --mock and --device; --device needs a profile;
 * - a command that only reads (regs read, regs dump, qos diff, and every --dry-run) opens the
 *   device read-only, so a 0444 resource file is enough to inspect it;
 * - a command that writes a device (regs write, qos apply, qos restore, run) refuses to start
 *   without --i-understand-this-writes-to-hardware, before anything is read or opened.
 *
 * Opening the device is `openCliDevice` in `device-open.ts`, apart so that the commands that
 * only register these options (and `regs decode`) do not load the mapped back end.
 */
import type { Command } from 'commander';
import { hex } from '../common/errors.ts';
import type { MemorySpec } from '../driver/mmio/device.ts';
import { badArg } from './input.ts';

/** The confirmation a command that writes a device needs. */
export const HARDWARE_CONFIRMATION = 'i-understand-this-writes-to-hardware';

/** The options as commander hands them over. */
export interface DeviceChoice {
  mock?: boolean;
  device?: string;
  profile?: string;
  /** --i-understand-this-writes-to-hardware */
  iUnderstandThisWritesToHardware?: boolean;
  /** --memory, repeatable. */
  memory?: string[];
}

/**
 * Adds --mock, --device <path> and --profile <name> to a command: `mock` says what --mock gives
 * it, `readOnly` that the command maps the device read-only, `profile` the default profile (none:
 * --device then needs --profile).
 */
export function deviceChoiceOptions(
  cmd: Command,
  o: { mock: string; readOnly?: boolean; profile?: string },
): Command {
  const map = o.readOnly ? 'map read-only' : 'map';
  return cmd
    .option('--mock', o.mock)
    .option('--device <path>', `the device file to ${map} (BAR0 resource file, /dev/mem, UIO map)`)
    .option('--profile <name>', 'device profile of --device (trn2)', o.profile);
}

/** Adds --i-understand-this-writes-to-hardware to a command that writes a device. */
export function confirmationOption(cmd: Command): Command {
  return cmd.option(
    `--${HARDWARE_CONFIRMATION}`,
    'confirm that the command may write the --device hardware (needed by every writing command)',
  );
}

/**
 * Checks the device options before anything is read or opened: one of --mock / --device, a profile
 * for --device, and the confirmation when the command will write the device.
 * @throws NxdmaError BAD_ARGUMENT (exit 2)
 */
export function checkDeviceChoice(o: DeviceChoice, writes: boolean): void {
  if (o.mock && o.device !== undefined) {
    throw badArg(
      '--mock/--device',
      'give either --mock or --device <path>, not both',
      '--mock | --device <path>',
      'both',
    );
  }
  if (!o.mock && o.device === undefined) {
    throw badArg(
      '--mock/--device',
      'a device is required: --mock for the mock device, or --device <path> --profile trn2 for hardware',
      '--mock | --device <path> --profile <name>',
      'none',
    );
  }
  if (o.device === undefined) return;
  if (o.profile === undefined) {
    throw badArg(
      '--profile',
      '--device needs --profile (for example --profile trn2)',
      '--profile <name>',
      undefined,
    );
  }
  if (writes && o.iUnderstandThisWritesToHardware !== true) {
    throw badArg(
      `--${HARDWARE_CONFIRMATION}`,
      `this command writes the registers of --device ${o.device}; add --${HARDWARE_CONFIRMATION} to confirm (or use --dry-run where the command has one)`,
      `--${HARDWARE_CONFIRMATION}`,
      'missing',
    );
  }
}

/** An unsigned integer written as 0x..., 0b... or decimal (`_` between digits), or undefined. */
export function parseUint(text: string): number | undefined {
  const s = text.trim().replace(/_/g, '').toLowerCase();
  let v: number;
  if (/^0x[0-9a-f]+$/.test(s)) v = parseInt(s.slice(2), 16);
  else if (/^0b[01]+$/.test(s)) v = parseInt(s.slice(2), 2);
  else if (/^[0-9]+$/.test(s)) v = parseInt(s, 10);
  else return undefined;
  return Number.isSafeInteger(v) ? v : undefined;
}

export interface UintOptionLimits {
  /** Smallest value allowed (default 0). */
  min?: number;
  /** Largest value allowed (default: any safe integer). */
  max?: number;
  /** What the option names, for the message ("an engine id"); default from min and max. */
  what?: string;
}

/**
 * The unsigned integer an option's text gives (parseUint), within the limits; undefined when the
 * option was not given.
 * @throws NxdmaError BAD_ARGUMENT naming the option, what it takes and what it got
 */
export function uintOption(
  text: string | undefined,
  option: string,
  limits: UintOptionLimits = {},
): number | undefined {
  if (text === undefined) return undefined;
  const min = limits.min ?? 0;
  const max = limits.max ?? Number.MAX_SAFE_INTEGER;
  const v = parseUint(text);
  if (v === undefined || v < min || v > max) {
    const what =
      limits.what ??
      (limits.max !== undefined
        ? `an integer ${min}..${max}`
        : min === 1
          ? 'a positive integer'
          : min === 0
            ? 'a non-negative integer'
            : `an integer >= ${min}`);
    throw badArg(
      option,
      `${option} must be ${what} (decimal, 0x... or 0b...), got ${JSON.stringify(text)}`,
      what,
      text,
    );
  }
  return v;
}

/** An address or size of a --memory option. */
function memoryNumber(text: string, where: string): number {
  const v = parseUint(text);
  if (v === undefined) {
    throw badArg(
      where,
      `${where}: '${text}' is not an address or size`,
      'a non-negative integer (0x..., 0b... or decimal)',
      text,
    );
  }
  return v;
}

/** `<addr>+<size>[@<offset>]`: a DMA-visible memory window of the BAR file. */
export function parseMemoryOption(text: string): MemorySpec {
  const m = /^([^+@]+)\+([^+@]+)(?:@([^+@]+))?$/.exec(text.trim());
  const where = `--memory ${text}`;
  if (!m) {
    throw badArg(
      '--memory',
      `--memory '${text}' is not <addr>+<size>[@<offset>]`,
      '<addr>+<size>[@<file offset>], for example 0x80000000+0x1000000',
      text,
    );
  }
  const deviceAddress = memoryNumber(m[1]!, where);
  const size = memoryNumber(m[2]!, where);
  const fileOffset = m[3] === undefined ? deviceAddress : memoryNumber(m[3], where);
  return { deviceAddress, fileOffset, size };
}

/** The DMA-visible memory windows --memory declares (in order). */
export function declaredMemory(o: DeviceChoice): MemorySpec[] {
  return (o.memory ?? []).map((t) => parseMemoryOption(t));
}

/** "0x80000000+0x1000000" as a --memory option would say it. */
export function memoryText(m: MemorySpec): string {
  return (
    `${hex(m.deviceAddress)}+${hex(m.size)}` +
    (m.fileOffset !== m.deviceAddress ? `@${hex(m.fileOffset)}` : '')
  );
}
