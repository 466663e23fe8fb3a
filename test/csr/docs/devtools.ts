/**
 * Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: the
 * browser reads commands from fd 3 and writes replies and events to fd 4, each a JSON text ended
 * by a NUL byte). No network port, no dependency.
 *
 * Used for screenshots: `chromium --screenshot` captures the page rectangle at the document
 * origin, not the viewport the reader sees, so a page opened scrolled to a register (a fragment,
 * ?decode=) comes out white there. Page.captureScreenshot without a clip captures the viewport.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable, Readable } from 'node:stream';

type Json = Record<string, unknown>;

interface Pending {
  resolve(v: Json): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export interface ChromiumPage {
  /** Value of a JavaScript expression in the page (a promise is awaited). */
  evaluate<T>(expression: string): Promise<T>;
  /** PNG of the viewport, as displayed. */
  screenshot(): Promise<Buffer>;
  close(): Promise<void>;
}

export interface Chromium {
  /**
   * Opens `url` in a new tab with a `width` x `height` viewport (scale 1, light colour scheme) and
   * resolves once it has loaded and painted twice.
   */
  open(url: string, width: number, height: number): Promise<ChromiumPage>;
  close(): Promise<void>;
}

const COMMAND_TIMEOUT_MS = 20_000;

export async function launchChromium(executable: string, profileDir: string): Promise<Chromium> {
  const proc: ChildProcess = spawn(
    executable,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${profileDir}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toBrowser = proc.stdio[3] as Writable;
  const fromBrowser = proc.stdio[4] as Readable;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const listeners: { method: string; sessionId: string; resolve(p: Json): void }[] = [];
  let exited: Error | null = null;

  let text = '';
  fromBrowser.setEncoding('utf8');
  fromBrowser.on('data', (chunk: string) => {
    text += chunk;
    for (let end = text.indexOf('\0'); end >= 0; end = text.indexOf('\0')) {
      const msg = JSON.parse(text.slice(0, end)) as Json;
      text = text.slice(end + 1);
      const id = msg.id as number | undefined;
      const p = id !== undefined ? pending.get(id) : undefined;
      if (p) {
        pending.delete(id!);
        clearTimeout(p.timer);
        if (msg.error) p.reject(new Error(`DevTools: ${JSON.stringify(msg.error)}`));
        else p.resolve((msg.result ?? {}) as Json);
        continue;
      }
      const i = listeners.findIndex(
        (l) => l.method === msg.method && l.sessionId === msg.sessionId,
      );
      if (i >= 0) listeners.splice(i, 1)[0].resolve((msg.params ?? {}) as Json);
    }
  });
  proc.on('exit', (code, signal) => {
    exited = new Error(`chromium exited (${code ?? signal})`);
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(exited);
    }
    pending.clear();
  });
  toBrowser.on('error', () => {
    /* the exit handler reports it */
  });

  function send(method: string, params: Json = {}, sessionId?: string): Promise<Json> {
    if (exited) return Promise.reject(exited);
    const id = ++nextId;
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`DevTools: no reply to ${method} in ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      toBrowser.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  function once(method: string, sessionId: string): Promise<Json> {
    return new Promise((resolve) => listeners.push({ method, sessionId, resolve }));
  }

  async function open(url: string, width: number, height: number): Promise<ChromiumPage> {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    const s = (method: string, params: Json = {}) => send(method, params, sessionId);
    await s('Page.enable');
    await s('Emulation.setDeviceMetricsOverride', {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    await s('Emulation.setEmulatedMedia', {
      features: [{ name: 'prefers-color-scheme', value: 'light' }],
    });
    const loaded = once('Page.loadEventFired', sessionId);
    const nav = (await s('Page.navigate', { url })) as { errorText?: string };
    if (nav.errorText) throw new Error(`cannot open ${url}: ${nav.errorText}`);
    await loaded;

    const page: ChromiumPage = {
      async evaluate<T>(expression: string): Promise<T> {
        const r = (await s('Runtime.evaluate', {
          expression,
          returnByValue: true,
          awaitPromise: true,
        })) as { result: { value: T }; exceptionDetails?: Json };
        if (r.exceptionDetails)
          throw new Error(`in the page: ${JSON.stringify(r.exceptionDetails)}`);
        return r.result.value;
      },
      async screenshot(): Promise<Buffer> {
        const r = (await s('Page.captureScreenshot', { format: 'png' })) as { data: string };
        return Buffer.from(r.data, 'base64');
      },
      async close(): Promise<void> {
        await send('Target.closeTarget', { targetId });
      },
    };
    await page.evaluate(
      'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))',
    );
    return page;
  }

  async function close(): Promise<void> {
    if (exited) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    await send('Browser.close').catch(() => undefined);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  await send('Browser.getVersion');
  return { open, close };
}
