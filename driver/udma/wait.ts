/**
 * Waiting for an engine to go idle (`UdmaEngine.waitIdle`): polls the RX heads of the queues in
 * flight; between polls a device that does not run by itself (the mock's DeviceClock) is stepped,
 * otherwise the wait yields to the event loop. An aborted engine ends the wait with ENGINE_ERROR,
 * running out of time with TIMEOUT; both name every queue still in flight with its counters and
 * status words.
 */
import { NxdmaError } from '../../common/errors.ts';
import type { UdmaEngine } from './engine.ts';
import type { WaitOptions } from './engine-types.ts';
import type { UdmaQueue } from './queue.ts';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => (ms <= 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));
}

/** See UdmaEngine.waitIdle. */
export async function waitIdle(eng: UdmaEngine, opts: WaitOptions): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 1000;
  if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `waitIdle: timeoutMs ${String(timeoutMs)} is not a duration`,
      {
        where: 'waitIdle.timeoutMs',
        expected: 'a number of milliseconds >= 0',
        actual: timeoutMs,
      },
    );
  }
  const list =
    opts.queue === undefined
      ? eng.initializedQueues().map((q) => eng.queue(q))
      : [eng.queue(opts.queue)];
  const busy = (): UdmaQueue[] => list.filter((h) => h.inFlight > 0);
  const deadline = performance.now() + timeoutMs;
  let lastHealth = performance.now();
  for (;;) {
    for (const h of list) if (h.inFlight > 0) h.poll();
    if (busy().length === 0) return;
    let progressed = false;
    if (eng.clock) {
      for (let i = 0; i < 4096 && eng.clock.step(); i++) progressed = true;
    }
    if (progressed) continue;
    const now = performance.now();
    // Nothing moved: an aborted engine never recovers by waiting.
    if (eng.clock || now - lastHealth >= 10) {
      lastHealth = now;
      const health = eng.health();
      if (health.aborted) {
        const stuck = busy();
        for (const h of stuck) h.errors++;
        throw new NxdmaError(
          'ENGINE_ERROR',
          `udma${eng.engine}: the engine aborted with ${stuck.map((h) => `${h.inFlight} copies on queue ${h.index}`).join(', ')} in flight`,
          {
            where: `udma${eng.engine}`,
            expected: 'normal state',
            actual: health,
            queues: stuck.map((h) => ({ ...h.stats(), status: eng.queueStatus(h.index) })),
          },
        );
      }
    }
    if (now >= deadline) {
      const stuck = busy();
      for (const h of stuck) h.errors++;
      throw new NxdmaError(
        'TIMEOUT',
        `udma${eng.engine}: ${stuck.map((h) => `queue ${h.index} has ${h.inFlight} copies in flight` + (h.paused ? ' (paused)' : '')).join(', ')} after ${timeoutMs} ms`,
        {
          where: `udma${eng.engine} ${stuck.map((h) => `queue ${h.index}`).join(', ')}`,
          expected: `every copy complete within ${timeoutMs} ms`,
          actual: stuck.map((h) => ({ ...h.stats(), status: eng.queueStatus(h.index) })),
        },
      );
    }
    await sleep(eng.clock ? 1 : 0);
  }
}
