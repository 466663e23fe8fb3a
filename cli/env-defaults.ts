/**
 * Environment defaults of the device options: NXDMA_DEVICE for --device and NXDMA_PROFILE for
 * --profile, so a host's device and profile need not be retyped on every call.
 *
 *   export NXDMA_DEVICE=/sys/bus/pci/devices/0000:10:1c.0/resource0 NXDMA_PROFILE=trn2
 *   nxdma regs read 0x82001084          # reads that device
 *
 * They apply only to commands that take --device, and only where the command line does not say
 * otherwise: an option given on the command line wins, and --mock turns NXDMA_DEVICE off (so
 * `--mock` keeps working on such a host). An empty variable counts as unset.
 */
import type { Command } from 'commander';

export const DEVICE_ENV = 'NXDMA_DEVICE';
export const PROFILE_ENV = 'NXDMA_PROFILE';

function has(cmd: Command, name: string): boolean {
  return cmd.options.some((o) => o.attributeName() === name);
}

/** Fills --device / --profile of `cmd` from the environment (see the module comment). */
export function applyDeviceEnv(cmd: Command, env: NodeJS.ProcessEnv = process.env): void {
  if (!has(cmd, 'device')) return;
  const fromCli = (name: string) => cmd.getOptionValueSource(name) === 'cli';
  const device = env[DEVICE_ENV];
  if (device && !fromCli('device') && cmd.getOptionValue('mock') !== true) {
    cmd.setOptionValueWithSource('device', device, 'env');
  }
  const profile = env[PROFILE_ENV];
  if (profile && has(cmd, 'profile') && !fromCli('profile')) {
    cmd.setOptionValueWithSource('profile', profile, 'env');
  }
}
