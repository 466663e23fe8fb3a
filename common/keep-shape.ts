/**
 * Objects a compile or a lowering makes afresh for every program (the passes' route memos, tuple
 * tables and engine cursors, the lowering's host-plan store) and the optimized code of the walks
 * that use them: V8 drops an object shape (hidden class) a few collections after the last object
 * of it died, and deoptimizes every function optimized for that shape, so a process that compiles
 * program after program would start each program's walks in unoptimized code. `keepShape` keeps
 * one object of a class, made by `make` once per process (on first use, never at import) and
 * holding nothing of any program, alive for the process's life: its shape, shared by every later
 * instance, then stays valid.
 */
const kept = new Map<abstract new (...args: never[]) => object, object | null>();

export function keepShape<T extends object>(
  cls: abstract new (...args: never[]) => T,
  make: () => T,
): void {
  if (kept.has(cls)) return;
  kept.set(cls, null); // `make` may construct the class again: it finds the class already listed
  kept.set(cls, make());
}

/** The object keepShape keeps for `cls` (undefined before the first). */
export function keptShape<T extends object>(
  cls: abstract new (...args: never[]) => T,
): T | undefined {
  return (kept.get(cls) ?? undefined) as T | undefined;
}
