/**
 * The reference interpreter: what a program must leave in memory, computed element by element
 * from the access patterns, independently of the lowering.
 *
 *   const img = initialImage(module, seed);
 *   const { image, written } = interpret(module, img.clone());
 */
export {
  MemoryImage,
  MAX_IMAGE_BYTES,
  decodeElement,
  encodeElement,
  fromBf16,
  fromHalf,
  initialImage,
  toBf16,
  toHalf,
  type ImageRegion,
} from './memory.ts';
export {
  elementAddresses,
  elementRuns,
  interpret,
  interpretDma,
  type InterpScratch,
  type InterpretOptions,
  type InterpretResult,
} from './interpret.ts';
