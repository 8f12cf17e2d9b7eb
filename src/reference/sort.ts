/**
 * The CPU twin of the radix sort pass (shaders/passes/radixSort.wgsl.ts): a stable LSD radix sort of
 * u32 keys by their `keyBits` low bits, 8 bits a pass, with optional u32 values; the same digits
 * (`digitOf`) and the same order of passes. Bits above `keyBits` are ignored: keys equal in the
 * low bits keep their input order.
 */

/** The digit of a pass: (key >> shift) & mask, as the shader's `digitOf`. */
export const digitOf = (key: number, shift: number, mask: number): number => (key >>> shift) & mask;

export interface SortedByKey {
  keys: Uint32Array;
  values?: Uint32Array;
}

/** Sorts copies of `keys` (and `values`) stably by their `keyBits` low bits. */
export function radixSortByKey(keys: Uint32Array, values?: Uint32Array, keyBits = 32): SortedByKey {
  if (!Number.isInteger(keyBits) || keyBits < 0 || keyBits > 32)
    throw new RangeError(`keyBits must be an integer in 0–32, got ${keyBits}`);
  if (values && values.length < keys.length) throw new RangeError('fewer values than keys');
  const n = keys.length;
  let k = keys.slice();
  let v = values?.slice(0, n);
  let k2 = new Uint32Array(n);
  let v2 = v ? new Uint32Array(n) : undefined;
  const counts = new Uint32Array(256);
  for (let shift = 0; shift < keyBits; shift += 8) {
    const mask = 2 ** Math.min(8, keyBits - shift) - 1;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[digitOf(k[i], shift, mask)]++;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[d];
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const slot = counts[digitOf(k[i], shift, mask)]++;
      k2[slot] = k[i];
      if (v && v2) v2[slot] = v[i];
    }
    [k, k2] = [k2, k];
    [v, v2] = [v2, v];
  }
  return v ? { keys: k, values: v } : { keys: k };
}
