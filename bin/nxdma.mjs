#!/usr/bin/env node
// The nxdma command: runs the built JavaScript in dist/ (`npm run build`; `npm ci` builds it).
// A closed pipe (`nxdma regs list | head`) ends the command quietly, as other Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv);
