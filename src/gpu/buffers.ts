/**
 * Buffers: labelled creation, uploads, and reads back to the CPU.
 */
import { BufferUsage, MapMode } from './flags.js';
import { DeviceLostError, WebGPUError } from '../errors.js';
import { settle } from './wait.js';

/** The largest buffer a pass may bind: the smaller of the device's binding and buffer limits. */
export function bindingLimit(device: GPUDevice): number {
  return Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
}

/** Storage binding offsets and sizes must be multiples of 4; we also never create empty buffers. */
export const align4 = (n: number): number => Math.max(4, Math.ceil(n / 4) * 4);

export function createBuffer(device: GPUDevice, label: string, size: number, usage: number): GPUBuffer {
  return device.createBuffer({ label, size: align4(size), usage });
}

export function createUniform(device: GPUDevice, label: string, data: ArrayBuffer): GPUBuffer {
  const buffer = createBuffer(device, label, data.byteLength, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

/**
 * Writes a typed array into `buffer` at 0, padding the tail to 4 bytes when needed. A view of a
 * SharedArrayBuffer is copied first (dawn.node's writeBuffer refuses shared memory).
 */
export function upload(device: GPUDevice, buffer: GPUBuffer, data: ArrayBufferView): void {
  if (data.byteLength === 0) return;
  if (typeof SharedArrayBuffer !== 'undefined' && data.buffer instanceof SharedArrayBuffer) {
    data = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  }
  if (data.byteLength % 4 === 0) {
    device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  } else {
    const padded = new Uint8Array(align4(data.byteLength));
    padded.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    device.queue.writeBuffer(buffer, 0, padded);
  }
}

/**
 * `bytes` rounded up to a size class: past 64 bytes, a multiple of 4 whose top three bits are its
 * only ones (…, 4096, 5120, 6144, 7168, 8192, …: steps of 14–25%); up to 64, a multiple of 4. Buffers of scenes of nearby sizes
 * then share a size, and so the pipelines compiled for the sizes they are bound at
 * (src/gpu/pipeline.ts, sized arrays) are few.
 */
export function sizeClass(bytes: number): number {
  const need = align4(bytes);
  if (need <= 64) return need;
  const step = 2 ** (Math.floor(Math.log2(need)) - 2);
  return Math.ceil(need / step) * step;
}

/**
 * A storage buffer that grows (never shrinks) to the size asked for, in size classes
 * (sizeClass). Keeps its label and usage; growing drops the old contents, so callers grow
 * before they fill.
 */
export class GrowableBuffer {
  private current: GPUBuffer | null = null;
  constructor(
    private readonly device: GPUDevice,
    readonly label: string,
    private readonly usage: number,
    /** The largest size it may grow to (the binding limit); callers check needs against it. */
    private readonly cap = bindingLimit(device),
  ) {}

  /** The buffer, at least `bytes` long (its size class; by a quarter more when it grows; at most the cap unless `bytes` is more). */
  ensure(bytes: number): GPUBuffer {
    const need = align4(bytes);
    if (!this.current || this.current.size < need) {
      this.current?.destroy();
      const grown = sizeClass(this.current ? Math.max(need, Math.floor(this.current.size * 1.25)) : need);
      const size = Math.max(need, Math.min(grown, Math.floor(this.cap / 4) * 4));
      this.current = this.device.createBuffer({ label: this.label, size, usage: this.usage });
    }
    return this.current;
  }

  get buffer(): GPUBuffer {
    if (!this.current) throw new Error(`${this.label} used before ensure()`);
    return this.current;
  }

  destroy(): void {
    this.current?.destroy();
    this.current = null;
  }
}

/**
 * How long a failure waits for `device.lost`: an AbortError (a map or a wait cut short, as a
 * lost device cuts them) up to 3 s (in a loaded browser the lost promise can come some hundreds
 * of ms after the aborted map), any other failure 200 ms.
 */
export function lostAfter(device: GPUDevice, error: unknown): Promise<GPUDeviceLostInfo | null> {
  return lostWithin(device, (error as { name?: unknown } | null)?.name === 'AbortError' ? 3000 : 200);
}

/** The device's lost info if it is lost or becomes lost within `waitMs`, else null. */
function lostWithin(device: GPUDevice, waitMs: number): Promise<GPUDeviceLostInfo | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    device.lost,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Maps for reading; an AbortError because the device was lost becomes a DeviceLostError. */
export async function mapRead(buffer: GPUBuffer, device: GPUDevice): Promise<void> {
  try {
    await settle(device, buffer.mapAsync(MapMode.READ));
  } catch (error) {
    const lost = await lostAfter(device, error);
    if (lost) throw new DeviceLostError(lost.reason, lost.message);
    throw error;
  }
}

/** Reads of at most this many bytes share small staging buffers of exactly this size. */
export const SMALL_READ_BYTES = 256;
/** Idle small staging buffers kept per device. */
const SMALL_READ_POOL = 4;
/**
 * Idle larger staging buffers kept per device, and the most bytes they may hold together: 64 MiB
 * holds the read of 8 M pairs, so that reads of a few million pairs (the 1.76 M pairs of 20,000
 * boxes over the coincident groups: a read of 1.25× that, 17.6 MB, in a 20 MB size class) reuse
 * their staging buffer rather than making one afresh every call.
 */
const LARGE_READ_POOL = 2;
export const LARGE_READ_POOL_BYTES = 64 * 2 ** 20;

interface StagingPool {
  small: GPUBuffer[];
  large: GPUBuffer[];
}
const stagingPools = new WeakMap<GPUDevice, StagingPool>();

/** An idle staging buffer of the device's pool for a read of `size` bytes, or undefined. */
function idleStaging(pool: StagingPool, size: number): GPUBuffer | undefined {
  if (size <= SMALL_READ_BYTES) return pool.small.pop();
  // A larger one at most twice the read, so that small reads do not hold big buffers.
  const k = pool.large.findIndex((buffer) => buffer.size >= size && buffer.size <= 2 * size);
  return k < 0 ? undefined : pool.large.splice(k, 1)[0];
}

/**
 * Keeps `staging` (idle, unmapped) in the pool, the most recently used last: a large one
 * displaces the least recently used large ones past LARGE_READ_POOL or LARGE_READ_POOL_BYTES, so
 * the pool follows reads that grow. One over the byte budget alone is destroyed.
 */
function releaseStaging(pool: StagingPool, staging: GPUBuffer): void {
  if (staging.size <= SMALL_READ_BYTES) {
    if (pool.small.length < SMALL_READ_POOL) pool.small.push(staging);
    else staging.destroy();
    return;
  }
  if (staging.size > LARGE_READ_POOL_BYTES) {
    staging.destroy();
    return;
  }
  pool.large.push(staging);
  let bytes = pool.large.reduce((sum, b) => sum + b.size, 0);
  while (pool.large.length > LARGE_READ_POOL || bytes > LARGE_READ_POOL_BYTES) {
    const oldest = pool.large.shift()!;
    bytes -= oldest.size;
    oldest.destroy();
  }
}

/** Drops a device's idle staging buffers (for tests: a pool in a known state). */
export function clearStagingPool(device: GPUDevice): void {
  const pool = stagingPools.get(device);
  if (!pool) return;
  for (const buffer of [...pool.small, ...pool.large]) buffer.destroy();
  stagingPools.delete(device);
}

/**
 * Copies `size` bytes (a multiple of 4) from `source` at `offset` into a staging buffer,
 * submits, and returns a copy of the bytes, or writes them into `into` (at least `size` bytes)
 * and returns its buffer (readRanges, one range).
 */
export async function readBuffer(
  device: GPUDevice,
  source: GPUBuffer,
  offset: number,
  size: number,
  into?: ArrayBufferView,
): Promise<ArrayBuffer> {
  if (size === 0) return into ? (into.buffer as ArrayBuffer) : new ArrayBuffer(0);
  return readRanges(device, [{ source, offset, size }], ([bytes]) => {
    if (!into) return bytes.slice(0);
    new Uint8Array(into.buffer, into.byteOffset, size).set(new Uint8Array(bytes));
    return into.buffer as ArrayBuffer;
  });
}

/**
 * A new ArrayBuffer of `size` bytes whose first `have` bytes are those of `bytes` (a mapped range,
 * about to be unmapped). When that is all of it, a slice: a fresh `new ArrayBuffer(size)` is
 * zeroed memory, and a large one comes straight from the OS and faults in page by page as it is
 * filled; `slice` reuses freed memory and is not zeroed first, many times faster for a large copy.
 */
export function copyMapped(bytes: ArrayBuffer, have: number, size: number): ArrayBuffer {
  if (have === size) return bytes.slice(0, size);
  const out = new ArrayBuffer(size);
  new Uint8Array(out).set(new Uint8Array(bytes, 0, have));
  return out;
}

/** A range of a buffer to read back: `size` bytes (a multiple of 4) from `offset` (a multiple of 4). */
export interface ReadRange {
  source: GPUBuffer;
  offset: number;
  size: number;
}

/**
 * Reads several ranges (of one buffer or several) back in one round trip: each is copied into
 * one staging buffer (at offsets rounded up to 8), one submission, one map; `consume` gets the
 * ranges' bytes, mapped, and what it returns is the result (the bytes are not valid after it
 * returns: copy what is kept). Staging buffers are reused: creating a mappable buffer costs many
 * times what mapping a reused one does, on a GPU and on SwiftShader alike (measured:
 * docs/PERFORMANCE.md, "What the design rests on"). A device keeps up to SMALL_READ_POOL idle
 * buffers for reads of up to SMALL_READ_BYTES (a count, a few counters), and up to
 * LARGE_READ_POOL larger ones, in size classes, LARGE_READ_POOL_BYTES in all, each reused for
 * reads of half its size or more.
 */
export async function readRanges<T>(
  device: GPUDevice,
  ranges: readonly ReadRange[],
  consume: (bytes: ArrayBuffer[]) => T,
): Promise<T> {
  const at: number[] = [];
  let size = 0;
  for (const range of ranges) {
    at.push(size);
    size = Math.ceil((size + range.size) / 8) * 8;
  }
  if (size === 0) return consume(ranges.map(() => new ArrayBuffer(0)));
  const small = size <= SMALL_READ_BYTES;
  let pool = stagingPools.get(device);
  if (!pool) {
    pool = { small: [], large: [] };
    stagingPools.set(device, pool);
  }
  // A read that could be kept takes its size class (nearby sizes then share it); one too big
  // to keep takes its own size.
  const kept = small || sizeClass(size) <= LARGE_READ_POOL_BYTES;
  const staging =
    idleStaging(pool, size) ??
    device.createBuffer({
      label: small ? 'webgpu-collide small readback' : 'webgpu-collide readback',
      size: small ? SMALL_READ_BYTES : kept ? sizeClass(size) : size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
  let reusable = false;
  try {
    // A copy WebGPU refuses (a destroyed source) would leave a reused staging buffer holding an
    // earlier read's bytes: the refusal is an error here, not stale data.
    device.pushErrorScope('validation');
    let refused: Promise<GPUError | null>;
    try {
      const encoder = device.createCommandEncoder({ label: `${ranges[0].source.label} readback` });
      ranges.forEach((range, k) => {
        if (range.size > 0) encoder.copyBufferToBuffer(range.source, range.offset, staging, at[k], range.size);
      });
      device.queue.submit([encoder.finish()]);
    } finally {
      refused = device.popErrorScope().catch(() => null); // a lost device fails the map below
    }
    await mapRead(staging, device);
    const error = await settle(device, refused);
    if (error) {
      staging.unmap();
      throw new WebGPUError('validation', error.message);
    }
    let result: T;
    try {
      result = consume(
        ranges.map((range, k) => (range.size > 0 ? staging.getMappedRange(at[k], range.size) : new ArrayBuffer(0))),
      );
    } finally {
      staging.unmap();
    }
    reusable = true;
    return result;
  } finally {
    if (reusable) releaseStaging(pool, staging);
    else staging.destroy();
  }
}
