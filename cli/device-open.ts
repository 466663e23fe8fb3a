/**
 * Opening the device the CLI options name (`--device`, `--profile`), after the checks of
 * `device-options.ts`. Kept apart from the option definitions so that loading them does not load
 * the mapped back end.
 */
import {
  openDevice,
  type DgeCoreSpec,
  type MemorySpec,
  type MmioDevice,
} from '../driver/mmio/device.ts';
import { checkDeviceChoice, type DeviceChoice } from './device-options.ts';

/**
 * Opens --device: read-only unless the command writes it. Everything the layout rules check
 * (docs/device.md) is checked by openDevice before anything is mapped.
 */
export function openCliDevice(
  o: DeviceChoice,
  request: {
    engines: readonly number[];
    writes: boolean;
    memory?: readonly MemorySpec[];
    dgeCores?: readonly DgeCoreSpec[];
  },
): MmioDevice {
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
