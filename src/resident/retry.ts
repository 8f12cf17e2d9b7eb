/**
 * The one-shot calls' loop: record, submit, read the true count, and when the results did not fit,
 * grow them to it and run again.
 */
import { CapacityError } from '../errors.js';
import type { HitRecords } from '../castQueries.js';
import type { EncodedPairs, EncodedHits } from './results.js';

export type Submit = (record: (encoder: GPUCommandEncoder) => void) => Promise<void>;

/**
 * Where a one-shot caller keeps the result its searches record into: set as soon as an attempt
 * records (before its submission settles), so that whatever happens next (a rerun, a
 * CapacityError, a destroy while the call runs) the owner holds every buffer it must free, and
 * the next attempt or call reuses it.
 */
export interface ResultSlot<T> {
  result?: T;
}

/**
 * Records a pair search with `record` and submits it until the pairs fit: the true count is read
 * first, and when it passes the list, the search runs again (`again`: over the structure
 * already built) into the same result, grown to it. A count past `maxPairs` (the caller's cap)
 * or `deviceMaxPairs` throws CapacityError with that count. `slot` holds the result throughout.
 */
export async function collectPairs(
  submit: Submit,
  record: (
    encoder: GPUCommandEncoder,
    capacity: number,
    again: boolean,
    into: EncodedPairs | undefined,
  ) => EncodedPairs,
  slot: ResultSlot<EncodedPairs>,
  capacity: number,
  maxPairs: number,
  deviceMaxPairs: number,
  out?: Uint32Array,
): Promise<Uint32Array> {
  for (let again = false; ; again = true) {
    await submit((encoder) => (slot.result = record(encoder, capacity, again, slot.result)));
    const { count, pairs } = await slot.result!.readCounted(out);
    if (count > maxPairs) throw new CapacityError('pairs', count, maxPairs, 'raise options.maxPairs');
    if (count > deviceMaxPairs)
      throw new CapacityError('pairs', count, deviceMaxPairs, 'the device cannot hold that many pairs in one buffer');
    if (pairs) return pairs;
    capacity = count;
  }
}

/** `collectPairs` for all hits (nearest hits always fit: one record a cast). */
export async function collectHits(
  submit: Submit,
  record: (encoder: GPUCommandEncoder, capacity: number, again: boolean, into: EncodedHits | undefined) => EncodedHits,
  slot: ResultSlot<EncodedHits>,
  capacity: number,
  maxHits: number,
  deviceMaxHits: number,
): Promise<HitRecords> {
  for (let again = false; ; again = true) {
    await submit((encoder) => (slot.result = record(encoder, capacity, again, slot.result)));
    const { total, hits } = await slot.result!.readCounted();
    if (total > maxHits) throw new CapacityError('hits', total, maxHits, 'raise options.maxHits');
    if (total > deviceMaxHits)
      throw new CapacityError('hits', total, deviceMaxHits, 'the device cannot hold that many hits in one buffer');
    if (hits) return hits;
    capacity = total;
  }
}
