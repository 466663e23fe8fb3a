/**
 * Opening the device the CLI options name (`--device`, `--profile`), after the checks of
 * `options.ts`. Kept apart from the option definitions so that loading them does not load
 * the mapped back end.
 */
import {
  openDevice,
  type DgeCoreSpec,
  type MemorySpec,
  type MmioDevice,
} from '../driver/mmio/device.ts';
import type { Device } from '../csr/io.ts';
import { checkDeviceChoice, type DeviceChoice } from './options.ts';

/** What a command asks of the device it opens. */
export interface DeviceRequest {
  engines: readonly number[];
  writes: boolean;
  memory?: readonly MemorySpec[];
  dgeCores?: readonly DgeCoreSpec[];
}

/**
 * Opens --device: read-only unless the command writes it. Everything the layout rules check
 * (docs/device.md) is checked by openDevice before anything is mapped.
 */
export function openCliDevice(o: DeviceChoice, request: DeviceRequest): MmioDevice {
  checkDeviceChoice(o, request.writes);
  return openDevice({
    path: o.device!,
    profile: o.profile as 'trn2',
    engines: request.engines,
    memory: request.memory ?? [],
    dgeCores: request.dgeCores ?? [],
    readOnly: !request.writes,
  });
}

/**
 * The device the options name, after checkDeviceChoice: the mock `mock()` builds for --mock, else
 * --device mapped (openCliDevice). `close` unmaps a mapped device and does nothing for the mock.
 */
export function openChoice(
  o: DeviceChoice,
  request: DeviceRequest,
  mock: () => Device,
): { dev: Device; close: () => void } {
  checkDeviceChoice(o, request.writes);
  if (o.device === undefined) return { dev: mock(), close: () => undefined };
  const dev = openCliDevice(o, request);
  return { dev, close: () => dev.dispose() };
}
