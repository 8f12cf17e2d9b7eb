/**
 * The calls of the contract (docs/CONTRACT.md). The one-shot calls validate their typed arrays on
 * the host, upload them, and run the same recording as the GPU-resident `encode*` calls
 * (src/resident/recorder.ts) on an instance of their own, then read back
 * the count first and only the counted results. A Collider keeps its pipelines and buffers
 * between calls (buffers only grow) and runs one call at a time, in call order.

 */
import { createChecked } from './gpu/submit.js';
import { CallQueue } from './gpu/calls.js';
import {
  validateSpheres,
  validateAabbs,
  validateOrientedBoxes,
  validateCasts,
  boxSampleOf,
  type SphereStats,
} from './validate.js';
import { checkOneOf, checkGridOptions, checkDevice, checkOptions, checkEncoder } from './checks.js';
import { requestBrowserDevice } from './device.js';
import { colliderLimits, type ColliderOptions, type ColliderLimits } from './colliderOptions.js';
import { OneShotCalls } from './oneShot.js';
import type { Profile } from './gpu/timer.js';
import {
  toRaycastResult,
  toSphereCastResult,
  checkCastOut,
  type RaycastResult,
  type SphereCastResult,
  type RaycastAllHits,
  type SphereCastAllHits,
} from './castQueries.js';
import type { GridPlan, PlanOptions } from './spatial/plan.js';
import {
  QueryRecorder,
  ResidentPool,
  type EncodedPairs,
  type EncodedHits,
  type GpuRecords,
  type EncodeOptions,
  type EncodeCastOptions,
} from './resident.js';
import { GPU_STRIDE } from './layout.js';
import { MeshCalls } from './mesh/calls.js';
import { ColliderMeshCalls } from './mesh/colliderCalls.js';
import type { PairOptions, CastOptions } from './options.js';

export { BROADPHASES, AUTO_GRID_MIN_SPHERES, AUTO_GRID_MIN_BOXES } from './options.js';
export type { Broadphase, PairOptions, CastOptions, CastOut } from './options.js';
export type { ColliderOptions, ColliderLimits } from './colliderOptions.js';

/**
 * Makes a {@link Collider} on `options.device` (in a browser it may be omitted: one is requested
 * from navigator.gpu, and destroyed with the collider). Its pipelines are compiled here, so a
 * shader or layout problem is a typed error now rather than at the first query.
 *
 * @example
 * ```ts
 * import { createCollider } from 'webgpu-collide';
 * import { requestNodeDevice } from 'webgpu-collide/node';   // Node; in a browser, omit device
 *
 * const device = await requestNodeDevice();
 * const collider = await createCollider({ device });
 * const pairs = await collider.spherePairs(new Float32Array([0, 0, 0, 1,  1.5, 0, 0, 1]));   // Uint32Array [0, 1]
 * collider.destroy();
 * device.destroy();
 * ```
 *
 * @category Collider
 */
export async function createCollider(options?: ColliderOptions): Promise<Collider> {
  options = checkOptions<ColliderOptions>('options', options);
  const device = checkDevice('options.device', options.device) ?? (await requestBrowserDevice());
  // Pipelines are compiled here: report a shader or layout error now, as a typed error.
  return createChecked(device, () => new Collider(device, options, options.device === undefined));
}

export type { RaycastResult, SphereCastResult, AllHits, RaycastAllHits, SphereCastAllHits } from './castQueries.js';

/**
 * Collision queries on one device: sphere pairs, sphere–box pairs, raycasts and sphere casts over
 * flat `Float32Array`s of records. Calls may overlap; they run one at a time in call order. Make
 * one with {@link createCollider}; {@link Collider.destroy} frees its buffers.
 *
 * @category Collider
 */
export class Collider extends ColliderMeshCalls {
  /** The device the collider runs on. */
  readonly device: GPUDevice;
  /** What one call can take and return on this device. */
  readonly limits: ColliderLimits;
  /** Stage times of the last call made with `profile: true`. */
  get lastProfile(): Profile | null {
    return this.oneShot.lastProfile;
  }

  private readonly ownsDevice: boolean;
  private readonly calls: CallQueue;

  /** The one-shot calls' uploads, recorder and results (src/oneShot.ts). */
  private readonly oneShot: OneShotCalls;
  /** The GPU-resident calls' recorders (broad phases, kernels, parameters), one lent to each call until it is known to have run. */
  private readonly resident: ResidentPool;
  /** The mesh calls (src/mesh/calls.ts), made on first use. */
  private meshCalls?: MeshCalls;
  private readonly binding: number;

  /**
   * A collider on `device`, its options checked. Most code calls {@link createCollider} instead,
   * which also makes a device when none is given (browser and Deno); `ownsDevice` makes
   * `destroy()` destroy the device too.
   */
  constructor(device: GPUDevice, options: ColliderOptions = {}, ownsDevice = false) {
    super();
    this.device = device;
    this.ownsDevice = ownsDevice;
    const { limits, binding } = colliderLimits(device, options);
    this.limits = limits;
    this.binding = binding;
    const { maxWorkgroupsPerDimension } = limits;
    this.calls = new CallQueue(device, 'collider');
    const planOptions: PlanOptions = {
      ...checkGridOptions('options.grid', options.grid),
      maxBuckets: this.limits.maxBuckets,
    };
    this.oneShot = new OneShotCalls(device, this.calls, limits, binding, planOptions);
    this.resident = new ResidentPool(
      () => new QueryRecorder(device, maxWorkgroupsPerDimension, planOptions, 'resident', binding),
    );
  }

  /**
   * Every overlapping pair of spheres (|cA − cB|² ≤ (rA + rB)²), each once, as
   * [i0, j0, i1, j1, ...] with i < j, in no particular order.
   *
   * @example
   * ```ts
   * const spheres = new Float32Array([0, 0, 0, 1,  1.5, 0, 0, 1,  10, 0, 0, 1]);   // x, y, z, radius
   * const pairs = await collider.spherePairs(spheres);   // Uint32Array [0, 1]: spheres 0 and 1 touch
   * for (let k = 0; k < pairs.length; k += 2) console.log(pairs[k], 'touches', pairs[k + 1]);
   * ```
   */
  async spherePairs(spheres: Float32Array, options?: PairOptions): Promise<Uint32Array> {
    this.calls.checkUsable();
    options = checkOptions<PairOptions>('options', options);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    return this.oneShot.pairQuery(spheres, stats, undefined, options);
  }

  /**
   * Every (sphere, AABB) that overlap: the centre clamped into the box is within the radius,
   * |C − S|² ≤ r². [sphere0, box0, sphere1, box1, ...], in no particular order.
   *
   * @example
   * ```ts
   * const spheres = new Float32Array([0, 0, 0, 1,  5, 0, 0, 1]);
   * const aabbs = new Float32Array([0.5, -1, -1, 2, 1, 1]);   // minX, minY, minZ, maxX, maxY, maxZ
   * const pairs = await collider.sphereBoxPairs(spheres, aabbs);   // Uint32Array [0, 0]: sphere 0, box 0
   * ```
   */
  async sphereBoxPairs(spheres: Float32Array, aabbs: Float32Array, options?: PairOptions): Promise<Uint32Array> {
    this.calls.checkUsable();
    options = checkOptions<PairOptions>('options', options);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const boxes = validateAabbs('aabbs', aabbs, this.limits.maxBoxes);
    return this.oneShot.pairQuery(spheres, stats, { kind: 'aabb', packed: boxes, stride: GPU_STRIDE.aabb }, options);
  }

  /**
   * Every (sphere, oriented box) that overlap: the same test in the box's frame (centre rotated
   * by the inverse rotation, clamped to ± half extents). Quaternions are normalised here.
   *
   * @example
   * ```ts
   * // cx, cy, cz, hx, hy, hz, qx, qy, qz, qw: a cube of side 2 at x = 3, turned 45° about z
   * const boxes = new Float32Array([3, 0, 0, 1, 1, 1, 0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)]);
   * const spheres = new Float32Array([1.2, 0, 0, 0.5]);   // reaches x = 1.7: past the turned corner (1.59), short of a face (2)
   * const pairs = await collider.sphereOrientedBoxPairs(spheres, boxes);   // Uint32Array [0, 0]
   * ```
   */
  async sphereOrientedBoxPairs(
    spheres: Float32Array,
    boxes: Float32Array,
    options?: PairOptions,
  ): Promise<Uint32Array> {
    this.calls.checkUsable();
    options = checkOptions<PairOptions>('options', options);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const packed = validateOrientedBoxes('boxes', boxes, this.limits.maxBoxes);
    return this.oneShot.pairQuery(spheres, stats, { kind: 'obb', packed, stride: GPU_STRIDE.orientedBox }, options);
  }

  /**
   * The nearest sphere each ray (A → B, 6 floats) hits: D = A + n(|AC| − √(r² − |CS|²)) with
   * 0 ≤ |AD| ≤ |AB|; rays starting strictly inside a sphere ignore it; tangent rays hit; ties go
   * to the lowest index; zero-length rays hit nothing. With `allHits`, every hit.
   *
   * @example
   * ```ts
   * const spheres = new Float32Array([5, 0, 0, 1,  9, 0, 0, 1]);
   * const rays = new Float32Array([0, 0, 0, 20, 0, 0,  0, 5, 0, 20, 5, 0]);   // segments A → B
   * const { index, distance, point } = await collider.raycast(rays, spheres);
   * // index [0, -1]: ray 0 hits sphere 0 at distance 4, point (4, 0, 0); ray 1 misses (NaN distance)
   * const all = await collider.raycast(rays, spheres, { allHits: true });
   * // all.offsets [0, 2, 2]: ray 0 hits spheres 0 and 1 (all.index [0, 1], all.distance [4, 8]); ray 1 none
   * ```
   */
  raycast(rays: Float32Array, spheres: Float32Array, options: CastOptions & { allHits: true }): Promise<RaycastAllHits>;
  raycast(
    rays: Float32Array,
    spheres: Float32Array,
    options?: CastOptions & { allHits?: false },
  ): Promise<RaycastResult>;
  /** `allHits` not known until run time: either result (an all-hits result has `offsets`). */
  raycast(rays: Float32Array, spheres: Float32Array, options?: CastOptions): Promise<RaycastResult | RaycastAllHits>;
  async raycast(
    rays: Float32Array,
    spheres: Float32Array,
    options?: CastOptions,
  ): Promise<RaycastResult | RaycastAllHits> {
    this.calls.checkUsable();
    options = checkOptions<CastOptions>('options', options);
    const batch = validateCasts('rays', rays, 6, this.limits.maxCasts);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const out = checkCastOut('raycast', options.out);
    return toRaycastResult(await this.oneShot.castQuery('raycast', batch, spheres, stats, options), out);
  }

  /**
   * The nearest sphere each sphere cast (A → B, radius: 7 floats) touches: the centre at contact
   * C with 0 ≤ |AC| ≤ |AB| and the contact point E = C + (S − C)·r1/(r1 + r2); a cast that starts
   * overlapping a sphere ignores it; ties go to the lowest index. With `allHits`, every hit.
   *
   * @example
   * ```ts
   * const spheres = new Float32Array([5, 0, 0, 1]);
   * const casts = new Float32Array([0, 0, 0, 20, 0, 0, 0.5]);   // A, B, radius
   * const { index, distance, center, contact } = await collider.sphereCast(casts, spheres);
   * // index [0]: the cast stops with its centre at (3.5, 0, 0), distance 3.5, touching at (4, 0, 0)
   * ```
   */
  sphereCast(
    casts: Float32Array,
    spheres: Float32Array,
    options: CastOptions & { allHits: true },
  ): Promise<SphereCastAllHits>;
  sphereCast(
    casts: Float32Array,
    spheres: Float32Array,
    options?: CastOptions & { allHits?: false },
  ): Promise<SphereCastResult>;
  sphereCast(
    casts: Float32Array,
    spheres: Float32Array,
    options?: CastOptions,
  ): Promise<SphereCastResult | SphereCastAllHits>;
  async sphereCast(
    casts: Float32Array,
    spheres: Float32Array,
    options?: CastOptions,
  ): Promise<SphereCastResult | SphereCastAllHits> {
    this.calls.checkUsable();
    options = checkOptions<CastOptions>('options', options);
    const batch = validateCasts('casts', casts, 7, this.limits.maxCasts);
    const stats = validateSpheres('spheres', spheres, this.limits.maxSpheres);
    const out = checkCastOut('sphereCast', options.out);
    return toSphereCastResult(await this.oneShot.castQuery('sphereCast', batch, spheres, stats, options), out);
  }

  /**
   * The grid plan the grid broad phase would use for these spheres (for tests and tools): for
   * sphere pairs and casts, or with `boxes` (AABBs, or oriented boxes with `kind: 'obb'`, in
   * the layouts of sphereBoxPairs and sphereOrientedBoxPairs) for that box query.
   */
  planFor(spheres: Float32Array | SphereStats, boxes?: { kind: 'aabb' | 'obb'; boxes: Float32Array }): GridPlan {
    const stats =
      spheres instanceof Float32Array ? validateSpheres('spheres', spheres, this.limits.maxSpheres) : spheres;
    if (!boxes) return this.oneShot.recorder.planFor(stats);
    const kind = checkOneOf('boxes.kind', boxes.kind ?? null, ['aabb', 'obb'] as const);
    const packed =
      kind === 'aabb'
        ? validateAabbs('boxes.boxes', boxes.boxes, this.limits.maxBoxes)
        : validateOrientedBoxes('boxes.boxes', boxes.boxes, this.limits.maxBoxes);
    return this.oneShot.recorder.planFor(stats, boxSampleOf(kind!, packed));
  }

  // -------------------------------------------------------------------------------------------
  // GPU-resident calls: inputs in GPUBuffers, recorded into the caller's encoder, results left on
  // the GPU (src/resident.ts). Any number of them, of one Collider or several, may share a
  // submission: each call leases a recorder of its own (ResidentPool). Inputs: spheres as vec4<f32> (x, y, z, radius); AABBs as two vec4
  // (min, 0), (max, 0); oriented boxes as three (centre, 0), (half extents, 0), (unit
  // quaternion); rays and casts as two (A, radius), (B, 0): GPU_STRIDE and CastHitRecord.

  private residentNow(): ResidentPool {
    this.calls.checkUsable();
    return this.resident;
  }

  /**
   * Records the search for every overlapping sphere pair (i < j) of spheres already on the GPU
   * into `encoder`. The pairs stay on the GPU (`result.pairs`, the true count in
   * `result.counter`, indirect arguments in `result.dispatch`); `result.read()` after the submit
   * reads them back, or throws CapacityError with the true count if they did not fit.
   *
   * @example
   * ```ts
   * const spheres = new Float32Array([0, 0, 0, 1,  1.5, 0, 0, 1,  10, 0, 0, 1]);   // the GPU layout is the same
   * const buffer = device.createBuffer({ size: spheres.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(buffer, 0, spheres);
   * const encoder = device.createCommandEncoder();
   * const result = collider.encodeSpherePairs(encoder, { buffer, count: 3 }, {
   *   scene: { min: [0, 0, 0], max: [10, 0, 0], maxRadius: 1 },   // the centres' bounds, the largest radius
   * });
   * // a kernel of yours may read result.pairs (vec2<u32>) here: dispatchWorkgroupsIndirect(result.dispatch, 0)
   * device.queue.submit([encoder.finish()]);
   * const pairs = await result.read();   // Uint32Array [0, 1], only if you want them on the CPU
   * ```
   */
  encodeSpherePairs(encoder: GPUCommandEncoder, spheres: GpuRecords, options: EncodeOptions): EncodedPairs {
    return this.residentNow().encodePairs(checkEncoder(encoder), spheres, options);
  }

  /**
   * `encodeSpherePairs` for (sphere, AABB) pairs; `aabbs` in the GPU layout (8 floats each).
   *
   * @example
   * ```ts
   * const aabbs = new Float32Array([0.5, -1, -1, 0,  2, 1, 1, 0]);   // (min, 0), (max, 0)
   * const boxBuffer = device.createBuffer({ size: aabbs.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(boxBuffer, 0, aabbs);
   * const encoder = device.createCommandEncoder();
   * const result = collider.encodeSphereBoxPairs(encoder, { buffer: sphereBuffer, count: 2 }, { buffer: boxBuffer, count: 1 }, {
   *   scene: { min: [0, 0, 0], max: [5, 0, 0], maxRadius: 1 },   // of the spheres
   * });
   * device.queue.submit([encoder.finish()]);
   * const pairs = await result.read();   // [sphere, box, ...]: [0, 0] for spheres (0, 0, 0, 1), (5, 0, 0, 1)
   * ```
   */
  encodeSphereBoxPairs(
    encoder: GPUCommandEncoder,
    spheres: GpuRecords,
    aabbs: GpuRecords,
    options: EncodeOptions,
  ): EncodedPairs {
    return this.residentNow().encodePairs(checkEncoder(encoder), spheres, options, {
      kind: 'aabb',
      boxes: aabbs,
      argument: 'aabbs',
    });
  }

  /**
   * `encodeSpherePairs` for (sphere, oriented box) pairs; `boxes` in the GPU layout (12 floats
   * each, the quaternion normalised).
   *
   * @example
   * ```ts
   * const q = [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)];   // 45° about z, unit length
   * const boxes = new Float32Array([3, 0, 0, 0,  1, 1, 1, 0,  ...q]);   // (centre, 0), (half extents, 0), quaternion
   * const boxBuffer = device.createBuffer({ size: boxes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(boxBuffer, 0, boxes);
   * const encoder = device.createCommandEncoder();
   * const result = collider.encodeSphereOrientedBoxPairs(encoder, { buffer: sphereBuffer, count: 1 }, { buffer: boxBuffer, count: 1 }, {
   *   scene: { min: [1.2, 0, 0], max: [1.2, 0, 0], maxRadius: 0.5 },
   * });
   * device.queue.submit([encoder.finish()]);
   * const pairs = await result.read();   // [0, 0] for the sphere (1.2, 0, 0, 0.5)
   * ```
   */
  encodeSphereOrientedBoxPairs(
    encoder: GPUCommandEncoder,
    spheres: GpuRecords,
    boxes: GpuRecords,
    options: EncodeOptions,
  ): EncodedPairs {
    return this.residentNow().encodePairs(checkEncoder(encoder), spheres, options, {
      kind: 'obb',
      boxes,
      argument: 'boxes',
    });
  }

  /**
   * Records the nearest hit of each ray (8 floats each: (A, 0), (B, 0)) into `result.hits`, one
   * CastHitRecord per ray; with `options.allHits`, every hit, with per-ray `offsets`.
   *
   * @example
   * ```ts
   * const rays = new Float32Array([0, 0, 0, 0,  20, 0, 0, 0,   0, 5, 0, 0,  20, 5, 0, 0]);   // (A, 0), (B, 0) per ray
   * const rayBuffer = device.createBuffer({ size: rays.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(rayBuffer, 0, rays);
   * const encoder = device.createCommandEncoder();
   * const result = collider.encodeRaycast(encoder, { buffer: rayBuffer, count: 2 }, { buffer: sphereBuffer, count: 2 }, {
   *   scene: { min: [5, 0, 0], max: [9, 0, 0], maxRadius: 1 }, maxLength: 20,
   * });
   * // result.hits: one CastHitRecord per ray, for a kernel of yours; or on the CPU:
   * device.queue.submit([encoder.finish()]);
   * const { index, distance } = await result.read();   // index [0, -1] for spheres (5, 0, 0, 1), (9, 0, 0, 1)
   * ```
   */
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions & { allHits: true },
  ): EncodedHits<RaycastAllHits>;
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions & { allHits?: false },
  ): EncodedHits<RaycastResult>;
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions,
  ): EncodedHits<RaycastResult | RaycastAllHits>;
  encodeRaycast(
    encoder: GPUCommandEncoder,
    rays: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions,
  ): EncodedHits {
    return this.residentNow().encodeCasts(checkEncoder(encoder), 'raycast', rays, spheres, options);
  }

  /**
   * Records the nearest contact of each sphere cast (8 floats each: (A, radius), (B, 0)) into
   * `result.hits`; with `options.allHits`, every contact.
   *
   * @example
   * ```ts
   * const casts = new Float32Array([0, 0, 0, 0.5,  20, 0, 0, 0]);   // (A, radius), (B, 0)
   * const castBuffer = device.createBuffer({ size: casts.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(castBuffer, 0, casts);
   * const encoder = device.createCommandEncoder();
   * const result = collider.encodeSphereCast(encoder, { buffer: castBuffer, count: 1 }, { buffer: sphereBuffer, count: 1 }, {
   *   scene: { min: [5, 0, 0], max: [5, 0, 0], maxRadius: 1 }, maxLength: 20,
   * });
   * device.queue.submit([encoder.finish()]);
   * const { index, center } = await result.read();   // [0], (3.5, 0, 0) for the sphere (5, 0, 0, 1)
   * ```
   */
  encodeSphereCast(
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions & { allHits: true },
  ): EncodedHits<SphereCastAllHits>;
  encodeSphereCast(
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions & { allHits?: false },
  ): EncodedHits<SphereCastResult>;
  encodeSphereCast(
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions,
  ): EncodedHits<SphereCastResult | SphereCastAllHits>;
  encodeSphereCast(
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    spheres: GpuRecords,
    options: EncodeCastOptions,
  ): EncodedHits {
    return this.residentNow().encodeCasts(checkEncoder(encoder), 'sphereCast', casts, spheres, options);
  }

  protected get meshes(): MeshCalls {
    this.meshCalls ??= new MeshCalls(this.device, this.calls, this.limits.maxWorkgroupsPerDimension, this.binding);
    return this.meshCalls;
  }

  /** Frees every GPU resource (and the device, if the collider requested it). */
  destroy(): void {
    if (this.calls.isClosed) return;
    this.calls.close();
    this.meshCalls?.destroy();
    this.oneShot.destroy();
    this.resident.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
