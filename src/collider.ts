/**
 * The one-shot calls of the contract (DESIGN.md), composed from passes. A Collider keeps its
 * pipelines and buffers between calls (buffers only grow) and runs one call at a time, in call
 * order; inputs go up once, stay on the GPU through every stage, and only the results the
 * caller asked for come back.
 */
import { CapacityError, DestroyedError, DeviceLostError, WebGPUError } from './errors.js';
import { validateSpheres, checkOneOf, checkPositiveInteger } from './validate.js';
import { requestBrowserDevice } from './device.js';
import { BufferUsage } from './gpu/flags.js';
import { GrowableBuffer, upload } from './gpu/buffers.js';
import { PairList } from './gpu/pairList.js';
import { GpuTimer, type Profile } from './gpu/timer.js';
import { AllPairsPass, ALL_PAIRS_MAX_SPHERES } from './passes/allPairs.js';
import { GridBuildPass, GpuGrid } from './passes/gridBuild.js';
import { GridPairsPass } from './passes/gridPairs.js';
import { planGrid, type GridPlan, type PlanOptions } from './grid/plan.js';
import { PAIR_BYTES } from './layout.js';

export type Broadphase = 'auto' | 'all-pairs' | 'grid';
export const BROADPHASES: readonly Broadphase[] = ['auto', 'all-pairs', 'grid'];

/**
 * 'auto' uses all-pairs below this many spheres and the grid from here on. Measured with
 * `npm run bench -- --crossover` (docs/PERFORMANCE.md): on SwiftShader the grid's wall time
 * beats all-pairs between 64 and 250 spheres. On a GPU both cost less than the readback there.
 */
export const AUTO_GRID_MIN_SPHERES = 256;

export interface PairOptions {
  broadphase?: Broadphase;
  /** Most pairs the caller accepts; more throws CapacityError with the true count. */
  maxPairs?: number;
  /** Time every GPU stage with timestamp queries; the result is in `collider.lastProfile`. */
  profile?: boolean;
}

export interface ColliderOptions {
  /** The device to use. In a browser it may be omitted: one is requested from navigator.gpu. */
  device?: GPUDevice;
  /**
   * Fold dispatches past this many workgroups per dimension (default: the device's limit).
   * Lower it to exercise the 2-D fold cheaply in tests.
   */
  maxWorkgroupsPerDimension?: number;
  /** Tuning of the grid plan (dense factor, octaves per level); defaults are measured. */
  grid?: Pick<PlanOptions, 'denseFactor' | 'levelStep'>;
}

export interface ColliderLimits {
  /** Most spheres one call takes. */
  maxSpheres: number;
  /** Most pairs one call can return (the largest pair buffer the device can bind). */
  maxPairs: number;
  maxWorkgroupsPerDimension: number;
  /** Most grid buckets (a power of two). */
  maxBuckets: number;
}

export async function createCollider(options: ColliderOptions = {}): Promise<Collider> {
  const device = options.device ?? (await requestBrowserDevice());
  // Pipelines are compiled here: report a shader or layout error now, as a typed error.
  device.pushErrorScope('validation');
  let collider: Collider;
  try {
    collider = new Collider(device, options, options.device === undefined);
  } finally {
    const error = await device.popErrorScope();
    if (error) throw new WebGPUError('validation', error.message);
  }
  return collider;
}

export class Collider {
  readonly device: GPUDevice;
  readonly limits: ColliderLimits;
  /** Stage times of the last call made with `profile: true`. */
  lastProfile: Profile | null = null;

  private readonly ownsDevice: boolean;
  private destroyed = false;
  private lost: GPUDeviceLostInfo | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private readonly spheres: GrowableBuffer;
  private readonly pairs: PairList;
  private readonly grid: GpuGrid;
  private readonly allPairsPass: AllPairsPass;
  private readonly gridBuildPass: GridBuildPass;
  private readonly gridPairsPass: GridPairsPass;
  /** Pairs found by the last call: the next call starts with room for as many. */
  private pairHint = 0;
  private readonly planOptions: PlanOptions;

  constructor(device: GPUDevice, options: ColliderOptions = {}, ownsDevice = false) {
    this.device = device;
    this.ownsDevice = ownsDevice;
    const l = device.limits;
    const binding = Math.min(l.maxStorageBufferBindingSize, l.maxBufferSize);
    const maxWorkgroupsPerDimension = Math.min(options.maxWorkgroupsPerDimension ?? Infinity, l.maxComputeWorkgroupsPerDimension);
    this.limits = {
      maxSpheres: Math.floor(binding / 16),
      maxPairs: Math.floor(binding / PAIR_BYTES),
      maxWorkgroupsPerDimension,
      maxBuckets: 2 ** Math.floor(Math.log2(binding / 4 - 1)),
    };
    void device.lost.then((info) => {
      this.lost = info;
    });
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    this.spheres = new GrowableBuffer(device, 'input spheres', usage);
    this.pairs = new PairList(device, 'sphere pairs');
    this.grid = new GpuGrid(device, 'sphere grid');
    this.allPairsPass = new AllPairsPass(device, maxWorkgroupsPerDimension);
    this.gridBuildPass = new GridBuildPass(device, maxWorkgroupsPerDimension);
    this.gridPairsPass = new GridPairsPass(device, maxWorkgroupsPerDimension);
    this.planOptions = { ...options.grid, maxBuckets: this.limits.maxBuckets };
  }

  /**
   * Every overlapping pair of spheres (|cA − cB|² ≤ (rA + rB)²), each once, as
   * [i0, j0, i1, j1, ...] with i < j, in no particular order.
   */
  async spherePairs(spheres: Float32Array, options: PairOptions = {}): Promise<Uint32Array> {
    this.checkUsable();
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const maxPairs = checkPositiveInteger('options.maxPairs', options.maxPairs) ?? Infinity;
    const n = stats.count;
    const useGrid = broadphase === 'grid' || (broadphase === 'auto' && n >= AUTO_GRID_MIN_SPHERES);
    if (!useGrid && n > ALL_PAIRS_MAX_SPHERES) {
      throw new CapacityError(`spheres for broadphase 'all-pairs'`, n, ALL_PAIRS_MAX_SPHERES, "use broadphase 'grid' or 'auto'");
    }
    if (n < 2) return new Uint32Array(0);
    const plan = useGrid ? planGrid(stats, this.planOptions) : null;

    return this.serialize(async () => {
      const timer = new GpuTimer(this.device, options.profile === true);
      try {
        await this.submitChecked((encoder) => {
          upload(this.device, this.spheres.ensure(16 * n), spheres);
          if (plan) {
            this.grid.prepare(plan);
            this.gridBuildPass.encode(encoder, this.spheres.buffer, this.grid, timer);
          }
        });
        const result = await this.collectPairs(maxPairs, (encoder) => {
          if (plan) this.gridPairsPass.encode(encoder, this.grid, this.pairs, timer);
          else this.allPairsPass.encode(encoder, this.spheres.buffer, n, this.pairs, timer);
        });
        if (timer.enabled) {
          await this.submitChecked((encoder) => timer.resolve(encoder));
          this.lastProfile = await timer.read();
        }
        return result;
      } finally {
        timer.destroy();
      }
    });
  }

  /** The grid plan `spherePairs` would use for these spheres (for tests and tools). */
  planFor(spheres: Float32Array): GridPlan {
    return planGrid(validateSpheres('spheres', spheres, this.limits.maxSpheres), this.planOptions);
  }

  /**
   * Runs a pass that appends to the pair list until every pair fits: the counter always holds
   * the true total, so when it exceeds the list, the list grows to it and the pass runs again
   * (its inputs are still on the GPU). A total above `maxPairs` or the device's largest list
   * throws CapacityError with that total.
   */
  private async collectPairs(maxPairs: number, encodePass: (encoder: GPUCommandEncoder) => void): Promise<Uint32Array> {
    let room = Math.max(this.pairHint, 4096);
    for (;;) {
      await this.submitChecked((encoder) => {
        this.pairs.reserve(room);
        this.pairs.clear(encoder);
        encodePass(encoder);
      });
      const count = await this.pairs.readCount();
      if (count > maxPairs) {
        throw new CapacityError('pairs', count, maxPairs, 'raise options.maxPairs');
      }
      if (count > this.limits.maxPairs) {
        throw new CapacityError('pairs', count, this.limits.maxPairs, 'the device cannot hold that many pairs in one buffer');
      }
      if (count <= this.pairs.capacity) {
        this.pairHint = count;
        return this.pairs.read(count);
      }
      room = count;
    }
  }

  /** Runs calls one at a time, in order (they share buffers). */
  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      this.checkUsable();
      return task();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Records with `record`, submits, and throws a WebGPUError if WebGPU reported a validation,
   * out-of-memory or internal error for it. The error scopes are pushed and popped with no
   * await in between, so concurrent callers on the same device cannot interleave them.
   */
  private async submitChecked(record: (encoder: GPUCommandEncoder) => void): Promise<void> {
    const device = this.device;
    device.pushErrorScope('internal');
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let scopes: Promise<GPUError | null>[];
    try {
      const encoder = device.createCommandEncoder({ label: 'webgpu-collide' });
      record(encoder);
      device.queue.submit([encoder.finish()]);
    } finally {
      scopes = [device.popErrorScope(), device.popErrorScope(), device.popErrorScope()];
    }
    const kinds = ['validation', 'out-of-memory', 'internal'] as const;
    const errors = await Promise.all(scopes);
    errors.forEach((error, k) => {
      if (error) throw new WebGPUError(kinds[k], error.message);
    });
    if (this.lost) throw new DeviceLostError(this.lost.reason, this.lost.message);
  }

  private checkUsable(): void {
    if (this.destroyed) throw new DestroyedError('this collider was destroyed');
    if (this.lost) throw new DeviceLostError(this.lost.reason, this.lost.message);
  }

  /** Frees every GPU resource (and the device, if the collider requested it). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.spheres.destroy();
    this.pairs.destroy();
    this.grid.destroy();
    this.allPairsPass.destroy();
    this.gridBuildPass.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}

