/**
 * GPU-resident queries: inputs already in GPUBuffers, everything recorded into the caller's
 * encoder, results left on the GPU for the caller's next kernel (with indirect dispatch
 * arguments sized from the count), read back only if the caller asks.
 *
 * The host cannot see spheres on the GPU, so the caller states what the broad phases plan by
 * (`scene`: the bounds of the centres and the largest radius). Only the radius bound matters for
 * the answer; a kernel checks it (and that every value is finite) and `read()` refuses an answer
 * built on a broken promise. Bounds that are too small or too large only cost time.
 *
 * A recorder (QueryRecorder) holds the broad phases, kernels and parameter buffers of a
 * recording. The one-shot calls keep one of their own; the encoded calls lease one from their
 * Collider's ResidentPool per call: the result holds the lease until its `read()` has seen the
 * call run, it is encoded into again or destroyed, so that any number of encoded calls, of one
 * Collider or several, can share a submission (each with its own parameters and working
 * buffers), and encoded calls never share a buffer with one-shot calls in flight.
 *
 * The pieces, by concept: resident/inputs.ts (records on the GPU, the scene, the options and
 * their checks), resident/recorder.ts (QueryRecorder: one recording), resident/results.ts
 * (EncodedPairs, EncodedHits), resident/retry.ts (the one-shot calls' grow-and-run-again loop),
 * resident/pool.ts (recorders lent to encoded calls). This file is their public face.
 */
export {
  type GpuRecords,
  type SceneBounds,
  type EncodeOptions,
  type EncodeCastOptions,
  statsFromScene,
} from './resident/inputs.js';
export { EncodedPairs, EncodedHits, type HitsResult } from './resident/results.js';
export { QueryRecorder, type PairJob, type CastJobSpec } from './resident/recorder.js';
export { collectPairs, collectHits, type ResultSlot } from './resident/retry.js';
export { RecorderLease, ResidentPool } from './resident/pool.js';
