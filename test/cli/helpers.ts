/** Runs the nxdma command in-process and captures what it prints. */
import { main } from '../../cli/main.ts';
import type { Out } from '../../cli/output.ts';

/** `nxdma <args>`: the exit code, stdout and stderr as text, and the last --json value. */
export async function nxdma(...args: string[]) {
  const lines: string[] = [];
  const errs: string[] = [];
  let json: unknown;
  const out: Out = {
    color: false,
    tty: false,
    log: (l = '') => void lines.push(l),
    err: (l) => void errs.push(l),
    json: (v) => {
      json = v;
    },
  };
  const code = await main(['node', 'nxdma', ...args], out);
  return { code, text: lines.join('\n'), errs: errs.join('\n'), json };
}
