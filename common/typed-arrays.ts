/**
 * Growing the typed-array columns nxdma keeps (the IR's instruction columns and dependence edges,
 * the lowering's descriptor streams, the mock's service trace): one spelling of "a larger array of
 * the same type holding the old contents".
 */

/** The typed arrays the columns use. */
export type ColumnArray =
  Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/**
 * A new array of `a`'s type with room for `capacity` elements, holding `a`'s first `keep`
 * elements (all of them by default) at the same indices; the rest are zero.
 */
export function grown<T extends ColumnArray>(a: T, capacity: number, keep = a.length): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set((keep === a.length ? a : a.subarray(0, keep)) as never);
  return b;
}
