#!/usr/bin/env node
// The nxdma command. Runs the TypeScript sources directly through tsx's loader.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`nxdma regs list | head`) ends the command quietly, as other Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv);
