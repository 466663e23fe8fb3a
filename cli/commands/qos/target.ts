/**
 * What the `nxdma qos` sub-commands share before they act: their options, the plan file read and
 * checked (line:column on a bad plan), the --engine filter, and the device the options name (a
 * fresh mock holding the plan's engines, or the mapped device, read-only unless the command writes).
 */
import type { Device } from '../../../csr/io.ts';
import { parseQosPlan, type QosPlan } from '../../../driver/qos/index.ts';
import { MockDevice } from '../../../mocks/index.ts';
import { InputSet } from '../../../common/files.ts';
import { badArg, readJsonDocument } from '../../input.ts';
import { parseUint, type DeviceChoice } from '../../options.ts';
import { openChoice } from '../../device-open.ts';

export interface CommonOptions {
  engine?: string;
  allowInferred?: boolean;
  json?: boolean;
}

export interface DeviceOptions extends CommonOptions, DeviceChoice {}

export interface DiffOptions extends DeviceOptions {
  /** False (--no-exit-code) exits 0 whatever the differences. */
  exitCode?: boolean;
}

export interface ApplyOptions extends DeviceOptions {
  dryRun?: boolean;
  verify?: boolean;
  strict?: boolean;
  savePrevious?: string;
}

export interface RestoreOptions extends DeviceOptions {
  dryRun?: boolean;
  verify?: boolean;
}

export function readPlan(file: string, inputs?: InputSet): QosPlan {
  return readJsonDocument(
    file,
    'plan',
    'PLAN_INVALID',
    'a JSON QoS plan (driver/qos/plan.schema.json)',
    parseQosPlan,
    inputs,
  );
}

export function engineFilter(plan: QosPlan, opt: string | undefined): number[] | undefined {
  if (opt === undefined) return undefined;
  const n = parseUint(opt);
  const ids = plan.engines.map((e) => e.engine);
  if (n === undefined || !ids.includes(n)) {
    throw badArg(
      '--engine',
      `--engine ${opt} is not an engine of the plan (${ids.join(', ')})`,
      ids.join(' | '),
      opt,
    );
  }
  return [n];
}

/**
 * The device to use: a fresh mock or the mapped device file, read-only unless the command
 * `writes` (then --device needs --i-understand-this-writes-to-hardware).
 */
export function openTarget(
  opts: DeviceOptions,
  engines: number[],
  writes: boolean,
): { dev: Device; close: () => void } {
  return openChoice(opts, { engines, writes }, () => new MockDevice({ engines }));
}

export function planEngines(plan: QosPlan, only: number[] | undefined): number[] {
  return plan.engines.map((e) => e.engine).filter((e) => !only || only.includes(e));
}
