/**
 * The one-shot calls of the contract (DESIGN.md), composed from passes. A Collider keeps its
 * pipelines and buffers between calls (buffers only grow) and runs one call at a time, in call
 * order; inputs go up once, stay on the GPU through every stage, and only the results the
 * caller asked for come back.
 */
import { CapacityError } from './errors.js';
import { createChecked } from './gpu/submit.js';
import { CallQueue } from './gpu/calls.js';
import {
  validateSpheres, validateAabbs, validateOrientedBoxes, validateCasts,
  checkOneOf, checkPositiveInteger, checkBoolean, type SphereStats, type CastBatch,
} from './validate.js';
import { requestBrowserDevice } from './device.js';
import { BufferUsage } from './gpu/flags.js';
import { GrowableBuffer, upload, bindingLimit } from './gpu/buffers.js';
import { PairList } from './gpu/pairList.js';
import { GpuTimer, type Profile } from './gpu/timer.js';
import { AllPairsPass, ALL_PAIRS_MAX_SPHERES } from './passes/allPairs.js';
import { GridBuildPass, GpuGrid } from './passes/gridBuild.js';
import { GridPairsPass } from './passes/gridPairs.js';
import { BoxPairsPass } from './passes/boxPairs.js';
import type { CastSource } from './passes/casts.js';
import {
  CastQueries, HIT_BYTES, toRaycastResult, toSphereCastResult, castCall, noHits, castSlack,
  type HitRecords, type RaycastResult, type SphereCastResult, type RaycastAllHits, type SphereCastAllHits,
} from './castQueries.js';
import { planGrid, type GridPlan, type PlanOptions } from './grid/plan.js';
import { PAIR_BYTES, GPU_STRIDE } from './layout.js';
import type { BoxKind } from '../shaders/boxes.wgsl.js';
import { BROADPHASES, AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES, type PairOptions, type CastOptions } from './options.js';

export { BROADPHASES, AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES } from './options.js';
export type { Broadphase, PairOptions, CastOptions } from './options.js';

export interface ColliderOptions {
  /** The device to use. In a browser it may be omitted: one is requested from navigator.gpu. */
  device?: GPUDevice;
  /**
   * Fold dispatches past this many workgroups per dimension (default: the device's limit).
   * Lower it to exercise the 2-D fold cheaply in tests.
   */
  maxWorkgroupsPerDimension?: number;
  /**
   * The largest buffer the collider may bind, in bytes (default: the device's limit). Lower it to
   * cap memory, or to exercise the capacity errors cheaply in tests.
   */
  maxBindingBytes?: number;
  /** Tuning of the grid plan (dense factor, octaves per level); defaults are measured. */
  grid?: Pick<PlanOptions, 'denseFactor' | 'levelStep'>;
}

export interface ColliderLimits {
  /** Most spheres (or boxes, or casts) one call takes. */
  maxSpheres: number;
  maxBoxes: number;
  maxCasts: number;
  /** Most pairs one call can return (the largest pair buffer the device can bind). */
  maxPairs: number;
  /** Most hits one allHits call can return. */
  maxHits: number;
  maxWorkgroupsPerDimension: number;
  /** Most grid buckets (a power of two). */
  maxBuckets: number;
}

export async function createCollider(options: ColliderOptions = {}): Promise<Collider> {
  const device = options.device ?? (await requestBrowserDevice());
  // Pipelines are compiled here: report a shader or layout error now, as a typed error.
  return createChecked(device, () => new Collider(device, options, options.device === undefined));
}

export type { RaycastResult, SphereCastResult, AllHits, RaycastAllHits, SphereCastAllHits } from './castQueries.js';

export class Collider {
  readonly device: GPUDevice;
  readonly limits: ColliderLimits;
  /** Stage times of the last call made with `profile: true`. */
  lastProfile: Profile | null = null;

  private readonly ownsDevice: boolean;
  private readonly calls: CallQueue;

  private readonly spheres: GrowableBuffer;
  private readonly boxes: GrowableBuffer;
  private readonly casts: CastQueries;
  private readonly pairs: PairList;
  private readonly grid: GpuGrid;
  private readonly allPairsPass: AllPairsPass;
  private readonly gridBuildPass: GridBuildPass;
  private readonly gridPairsPass: GridPairsPass;
  private readonly boxPairsPass: BoxPairsPass;
  /** Pairs found by the last call: the next call starts with room for as many. */
  private pairHint = 0;
  private readonly planOptions: PlanOptions;

  constructor(device: GPUDevice, options: ColliderOptions = {}, ownsDevice = false) {
    this.device = device;
    this.ownsDevice = ownsDevice;
    const l = device.limits;
    const binding = Math.min(bindingLimit(device), options.maxBindingBytes ?? Infinity);
    const maxWorkgroupsPerDimension = Math.min(options.maxWorkgroupsPerDimension ?? Infinity, l.maxComputeWorkgroupsPerDimension);
    this.limits = {
      maxSpheres: Math.floor(binding / 16),
      maxBoxes: Math.floor(binding / (4 * GPU_STRIDE.orientedBox)),
      maxCasts: Math.floor(binding / HIT_BYTES),
      maxPairs: Math.floor(binding / PAIR_BYTES),
      maxHits: Math.floor(binding / HIT_BYTES),
      maxWorkgroupsPerDimension,
      maxBuckets: 2 ** Math.floor(Math.log2(binding / 4 - 1)),
    };
    this.calls = new CallQueue(device, 'collider');
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    this.spheres = new GrowableBuffer(device, 'input spheres', usage, binding);
    this.boxes = new GrowableBuffer(device, 'input boxes', usage, binding);
    this.casts = new CastQueries(device, maxWorkgroupsPerDimension, this.limits.maxHits);
    this.pairs = new PairList(device, 'pairs');
    this.grid = new GpuGrid(device, 'sphere grid');
    this.allPairsPass = new AllPairsPass(device, maxWorkgroupsPerDimension);
    this.gridBuildPass = new GridBuildPass(device, maxWorkgroupsPerDimension);
    this.gridPairsPass = new GridPairsPass(device, maxWorkgroupsPerDimension);
    this.boxPairsPass = new BoxPairsPass(device, maxWorkgroupsPerDimension);
    this.planOptions = { ...options.grid, maxBuckets: this.limits.maxBuckets };
  }

  /**
   * Every overlapping pair of spheres (|cA − cB|² ≤ (rA + rB)²), each once, as
   * [i0, j0, i1, j1, ...] with i < j, in no particular order.
   */
  async spherePairs(spheres: Float32Array, options: PairOptions = {}): Promise<Uint32Array> {
    this.calls.checkUsable();
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const maxPairs = checkPositiveInteger('options.maxPairs', options.maxPairs) ?? Infinity;
    const profile = checkBoolean('options.profile', options.profile) ?? false;
    const n = stats.count;
    const useGrid = broadphase === 'grid' || (broadphase === 'auto' && n >= AUTO_GRID_MIN_SPHERES);
    if (!useGrid && n > ALL_PAIRS_MAX_SPHERES) {
      throw new CapacityError(`spheres for broadphase 'all-pairs'`, n, ALL_PAIRS_MAX_SPHERES, "use broadphase 'grid' or 'auto'");
    }
    if (n < 2) return new Uint32Array(0);
    const plan = useGrid ? planGrid(stats, this.planOptions) : null;
    const data = spheres.slice(); // what was validated is what runs, whatever the caller does next

    return this.run(profile, async (timer) => {
      const source = await this.uploadSpheres(data, stats, plan, timer);
      return this.collectPairs(maxPairs, (encoder) => {
        if ('grid' in source) this.gridPairsPass.encode(encoder, source.grid, this.pairs, timer);
        else this.allPairsPass.encode(encoder, source.spheres, n, this.pairs, timer);
      });
    });
  }

  /**
   * Every (sphere, AABB) that overlap: the centre clamped into the box is within the radius,
   * |C − S|² ≤ r². [sphere0, box0, sphere1, box1, ...], in no particular order.
   */
  async sphereBoxPairs(spheres: Float32Array, aabbs: Float32Array, options: PairOptions = {}): Promise<Uint32Array> {
    this.calls.checkUsable();
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const boxes = validateAabbs('aabbs', aabbs, this.limits.maxBoxes);
    return this.boxPairs('aabb', spheres, stats, boxes, GPU_STRIDE.aabb, options);
  }

  /**
   * Every (sphere, oriented box) that overlap: the same test in the box's frame (centre rotated
   * by the inverse rotation, clamped to ± half extents). Quaternions are normalised here.
   */
  async sphereOrientedBoxPairs(spheres: Float32Array, boxes: Float32Array, options: PairOptions = {}): Promise<Uint32Array> {
    this.calls.checkUsable();
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const packed = validateOrientedBoxes('boxes', boxes, this.limits.maxBoxes);
    return this.boxPairs('obb', spheres, stats, packed, GPU_STRIDE.orientedBox, options);
  }

  private async boxPairs(kind: BoxKind, spheres: Float32Array, stats: SphereStats, packedBoxes: Float32Array, stride: number, options: PairOptions): Promise<Uint32Array> {
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const maxPairs = checkPositiveInteger('options.maxPairs', options.maxPairs) ?? Infinity;
    const profile = checkBoolean('options.profile', options.profile) ?? false;
    const n = stats.count;
    const m = packedBoxes.length / stride;
    if (n === 0 || m === 0) return new Uint32Array(0);
    const useGrid = broadphase === 'grid' || (broadphase === 'auto' && n >= AUTO_GRID_MIN_SPHERES && m >= AUTO_GRID_MIN_BOXES);
    const plan = useGrid ? planGrid(stats, this.planOptions) : null;
    const data = spheres.slice(); // the boxes are already a packed copy

    return this.run(profile, async (timer) => {
      const source = await this.uploadSpheres(data, stats, plan, timer, () => {
        upload(this.device, this.boxes.ensure(packedBoxes.byteLength), packedBoxes);
      });
      return this.collectPairs(maxPairs, (encoder) => {
        if ('grid' in source) this.boxPairsPass.encodeGrid(encoder, kind, source.grid, this.boxes.buffer, m, this.pairs, timer);
        else this.boxPairsPass.encodeAllPairs(encoder, kind, source.spheres, n, this.boxes.buffer, m, this.pairs, timer);
      });
    });
  }

  /**
   * The nearest sphere each ray (A → B, 6 floats) hits: D = A + n(|AC| − √(r² − |CS|²)) with
   * 0 ≤ |AD| ≤ |AB|; rays starting strictly inside a sphere ignore it; tangent rays hit; ties go
   * to the lowest index; zero-length rays hit nothing. With `allHits`, every hit.
   */
  raycast(rays: Float32Array, spheres: Float32Array, options: CastOptions & { allHits: true }): Promise<RaycastAllHits>;
  raycast(rays: Float32Array, spheres: Float32Array, options?: CastOptions): Promise<RaycastResult>;
  async raycast(rays: Float32Array, spheres: Float32Array, options: CastOptions = {}): Promise<RaycastResult | RaycastAllHits> {
    this.calls.checkUsable();
    const batch = validateCasts('rays', rays, 6, this.limits.maxCasts);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    return toRaycastResult(await this.castAll(batch, spheres, stats, options));
  }

  /**
   * The nearest sphere each sphere cast (A → B, radius: 7 floats) touches: the centre at contact
   * C with 0 ≤ |AC| ≤ |AB| and the contact point E = C + (S − C)·r1/(r1 + r2); a cast that starts
   * overlapping a sphere ignores it; ties go to the lowest index. With `allHits`, every hit.
   */
  sphereCast(casts: Float32Array, spheres: Float32Array, options: CastOptions & { allHits: true }): Promise<SphereCastAllHits>;
  sphereCast(casts: Float32Array, spheres: Float32Array, options?: CastOptions): Promise<SphereCastResult>;
  async sphereCast(casts: Float32Array, spheres: Float32Array, options: CastOptions = {}): Promise<SphereCastResult | SphereCastAllHits> {
    this.calls.checkUsable();
    const batch = validateCasts('casts', casts, 7, this.limits.maxCasts);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    return toSphereCastResult(await this.castAll(batch, spheres, stats, options));
  }

  /**
   * Runs the cast kernels and returns the raw hit records: one per cast (nearest), or every hit
   * with the per-cast offsets (allHits). All hits take two kernels: count, then (after a scan of
   * the counts) write; if the hits exceed the buffer, it grows and the write runs again.
   */
  private async castAll(batch: CastBatch, spheres: Float32Array, stats: SphereStats, options: CastOptions): Promise<HitRecords> {
    const { allHits, maxHits, profile, plan } = castCall(options, batch, stats.count, () => planGrid(stats, this.planOptions));
    const r = batch.count;
    const n = stats.count;
    if (r === 0 || n === 0) return noHits(r, allHits);
    const slack = castSlack(batch, Math.max(...stats.min.map(Math.abs), ...stats.max.map(Math.abs)), stats.maxRadius);
    const data = spheres.slice(); // the casts are already a packed copy
    return this.run(profile, async (timer) => {
      const source = await this.uploadSpheres(data, stats, plan, timer, () => this.casts.uploadCasts(batch, n, slack));
      return this.casts.run((record) => this.calls.submit(record), source, r, allHits, maxHits, timer);
    });
  }

  /** The grid plan `spherePairs` would use for these spheres (for tests and tools). */
  planFor(spheres: Float32Array): GridPlan {
    return planGrid(validateSpheres('spheres', spheres, this.limits.maxSpheres), this.planOptions);
  }

  /**
   * Uploads the spheres (and whatever `also` uploads) and, with a plan, builds the grid: the
   * source the narrow phases read.
   */
  private async uploadSpheres(spheres: Float32Array, stats: SphereStats, plan: GridPlan | null, timer: GpuTimer, also?: (encoder: GPUCommandEncoder) => void): Promise<CastSource> {
    const buffer = this.spheres.ensure(16 * Math.max(stats.count, 1));
    await this.calls.submit((encoder) => {
      upload(this.device, buffer, spheres);
      also?.(encoder);
      if (plan) {
        this.grid.prepare(plan);
        this.gridBuildPass.encode(encoder, buffer, this.grid, timer);
      }
    });
    return plan ? { grid: this.grid } : { spheres: buffer, sphereCount: stats.count };
  }

  /**
   * Runs a pass that appends to the pair list until every pair fits: the counter always holds
   * the true total, so when it exceeds the list, the list grows to it and the pass runs again
   * (its inputs are still on the GPU). A total above `maxPairs` or the device's largest list
   * throws CapacityError with that total.
   */
  private async collectPairs(maxPairs: number, encodePass: (encoder: GPUCommandEncoder) => void): Promise<Uint32Array> {
    let room = Math.min(Math.max(this.pairHint, 4096), this.limits.maxPairs);
    for (;;) {
      await this.calls.submit((encoder) => {
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

  /** Serializes `task` behind earlier calls, with a timer; a profile lands in lastProfile. */
  private run<T>(profile: boolean, task: (timer: GpuTimer) => Promise<T>): Promise<T> {
    return this.calls.serialize(async () => {
      const timer = new GpuTimer(this.device, profile);
      try {
        const result = await task(timer);
        if (timer.enabled) {
          await this.calls.submit((encoder) => timer.resolve(encoder));
          this.lastProfile = await timer.read();
        }
        return result;
      } finally {
        timer.destroy();
      }
    });
  }


  /** Frees every GPU resource (and the device, if the collider requested it). */
  destroy(): void {
    if (this.calls.isClosed) return;
    this.calls.close();
    for (const buffer of [this.spheres, this.boxes]) buffer.destroy();
    this.casts.destroy();
    this.pairs.destroy();
    this.grid.destroy();
    this.allPairsPass.destroy();
    this.gridBuildPass.destroy();
    this.boxPairsPass.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
