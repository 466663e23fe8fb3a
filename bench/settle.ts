/**
 * Waiting out the background threads before a timed run. Process CPU time, what the benches
 * time, counts every thread of the process: the collector's helper threads still marking or
 * sweeping the garbage of the untimed set-up (a 100k- or 1M-DMA program built for the run) or of
 * the previous run, and the optimizing compiler's threads, would otherwise put their CPU into the
 * next timed run, whichever case it is (a baseline of a few milliseconds right after a flow run
 * measured 10.8 ms CPU against 6.8 ms wall). The timed code's own background work stays in its
 * figure.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Sleeps (Atomics.wait, no CPU) 20 ms, then in 10 ms slices until a slice passes with under 0.3 ms
 * of process CPU, 1 s at most.
 */
export function settle(): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const cpuUs = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  Atomics.wait(cell, 0, 0, 20);
  for (let k = 0; k < 98; k++) {
    const c0 = cpuUs();
    Atomics.wait(cell, 0, 0, 10);
    if (cpuUs() - c0 < 300) return;
  }
}

/** The engine's collector, exposed once (node's --expose-gc, set from inside the process). */
let collector: ((opts: { type: 'minor' | 'major' }) => void) | undefined;

/**
 * Collects the young generation now (a scavenge), outside the timing. A run's untimed set-up that
 * builds a large object graph (a 100k-DMA program) leaves its newest part in the young generation;
 * the first scavenge of the timed run would otherwise copy all of it, a cost of the build (10-25
 * ms for a 100k-DMA program). Only the young generation: a full collection ages the code, which the
 * next run then compiles again. Throws when the collector cannot be reached.
 */
export function collectYoung(): void {
  if (collector === undefined) {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc !== 'function') throw new Error('bench: the collector cannot be exposed');
    collector = gc as (opts: { type: 'minor' | 'major' }) => void;
  }
  collector({ type: 'minor' });
}
