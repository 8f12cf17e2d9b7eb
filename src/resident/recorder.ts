/**
 * A recorder (QueryRecorder): the broad phases, kernels and parameter buffers of one recording,
 * and the recording every query shares (pairs of spheres or boxes, casts), into a caller's encoder.
 */
import { InvalidInputError } from '../errors.js';
import { BufferUsage } from '../gpu/flags.js';
import { GrowableBuffer, createBuffer, bindingLimit } from '../gpu/buffers.js';
import { computePipeline, setPipelineAndGroup, recordPass } from '../gpu/pipeline.js';
import { ceilDiv } from '../gpu/dispatch.js';
import { CastPass } from '../passes/casts.js';
import {
  residentCheckShader,
  residentCheckBindings,
  residentDispatchShader,
  residentDispatchBindings,
} from '../../shaders/resident/resident.wgsl.js';
import { PairCounter, GPU_STRIDE, PAIR_BYTES, packStruct } from '../layout.js';
import { ResidentParams } from '../../shaders/resident/layout.js';
import { CastHitRecord } from '../../shaders/passes/layout.js';
import {
  createBroadPhases,
  destroyBroadPhases,
  chooseBroadphase,
  checkServes,
  WITHOUT_SPHERES,
  type BroadPhase,
  type BroadPhases,
  type BroadphaseName,
  type CastShape,
  type QueryShape,
} from '../broadphase/index.js';
import type { SphereStats } from '../validate.js';
import { checkOneOf, checkPositiveInteger, checkBoolean, checkNumber, RULES, MAX_MAGNITUDE } from '../checks.js';
import { BROADPHASES, type Broadphase } from '../options.js';
import type { CastReach } from '../spatial/reach.js';
import { ExclusiveScanPass, scanBufferBytes } from '../passes/scan.js';
import { planGrid, type BoxSample, type GridPlan, type PlanOptions } from '../spatial/plan.js';
import type { GpuTimer } from '../gpu/timer.js';
import type { BoxKind } from '../queryKinds.js';
import type { CastMode } from '../queryKinds.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import {
  type GpuRecords,
  type EncodeOptions,
  type EncodeCastOptions,
  statsFromScene,
  checkScene,
  checkTimer,
  checkRecords,
} from './inputs.js';
import { CLEAN_STATUS, EncodedPairs, EncodedHits } from './results.js';

/** A pair search, its inputs checked (by the encode call or, for a one-shot call, on the host). */
export interface PairJob {
  /** The spheres' statistics: exact from the host, or from the scene's promise. */
  stats: SphereStats;
  /** A box query's boxes, sampled on the host (boxSampleOf), when it has them: the grid plans its cells for them. */
  boxes?: BoxSample;
  broadphase: Broadphase;
  /** Pairs the result holds at first. */
  capacity: number;
  into?: EncodedPairs;
  workgroupSize: number;
  timer?: GpuTimer;
  /** The promised largest radius, checked on the GPU; undefined when the host validated the spheres. */
  promisedRadius?: number;
  /** Whether to write the result's indirect arguments (default true; a one-shot call reads the result back instead). */
  dispatchArguments?: boolean;
  /** The broad phase was built over these inputs by the previous recording (a run again after an overflow): search only. */
  reuseBuild?: boolean;
}

/** A cast batch's search, its inputs checked. */
export interface CastJobSpec {
  kind: 'raycast' | 'sphereCast';
  stats: SphereStats;
  /** What 'auto' weighs: the casts, and their total length (or a bound on it). */
  shape: CastShape;
  /** What the walks' rounding slack depends on (each broad phase's castSlack). */
  reach: CastReach;
  broadphase: Broadphase;
  allHits: boolean;
  /** All hits: records the result holds at first. */
  capacity: number;
  into?: EncodedHits;
  workgroupSize: number;
  timer?: GpuTimer;
  promisedRadius?: number;
  dispatchArguments?: boolean;
  reuseBuild?: boolean;
}

/**
 * Records queries over records already on the GPU: the encode calls' validation in front of
 * `recordPairs` and `recordCasts`, which the one-shot calls (inputs validated on the host,
 * uploaded into the Collider's buffers) and the particle world's queries call directly. Each
 * owner keeps its own instance, so that encoded calls and one-shot calls in flight never share
 * a buffer.
 */
export class QueryRecorder {
  private readonly broadphases: BroadPhases;
  private readonly kernels: CastPass;
  private readonly scan: ExclusiveScanPass;
  private readonly params: GPUBuffer;
  private readonly checkPipeline: GPUComputePipeline;
  private readonly dispatchPipeline: GPUComputePipeline;
  /** Copies of inputs given at a nonzero offset. */
  private readonly spheres: GrowableBuffer;
  private readonly others: GrowableBuffer;
  private readonly maxRecords: number;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
    private readonly planOptions: PlanOptions,
    label = 'resident',
    /** The largest binding a buffer of the calls may have (the Collider's `maxBindingBytes`). */
    private readonly bindingBytes = bindingLimit(device),
  ) {
    this.broadphases = createBroadPhases({ device, maxWorkgroupsPerDimension }, planOptions, `${label} grid`);
    this.kernels = new CastPass(device, maxWorkgroupsPerDimension);
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'hit count scan');
    this.params = createBuffer(
      device,
      `${label} params`,
      ResidentParams.size,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
    this.checkPipeline = computePipeline(
      device,
      'residentCheck',
      [residentCheckBindings.layout(device, 'residentCheck')],
      residentCheckShader(),
      'residentCheck',
      { WG: WORKGROUP_SIZE.residentCheck },
    );
    this.dispatchPipeline = computePipeline(
      device,
      'residentDispatch',
      [residentDispatchBindings.layout(device, 'residentDispatch')],
      residentDispatchShader(),
      'residentDispatch',
    );
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST;
    this.spheres = new GrowableBuffer(device, `${label} spheres copy`, usage);
    this.others = new GrowableBuffer(device, `${label} records copy`, usage);
    this.maxRecords = Math.floor(bindingBytes / 16); // spheres (limits.maxSpheres)
  }

  /** The grid plan the grid broad phase would use for these statistics (and boxes, for a box query): src/spatial/plan.ts. */
  planFor(stats: SphereStats, boxes?: BoxSample): GridPlan {
    return planGrid(stats, this.planOptions, boxes);
  }

  /** The broad phase a query runs on: the caller's choice, or 'auto''s. */
  phaseFor(
    requested: Broadphase,
    shape: Omit<QueryShape, 'gridPlan'> & { stats: SphereStats },
  ): BroadPhase<BroadphaseName> {
    checkServes(requested, shape.query);
    return this.broadphases[chooseBroadphase(requested, { ...shape, gridPlan: () => this.planFor(shape.stats) })];
  }

  /** The records' buffer to bind: the caller's at offset 0, else a copy recorded into `encoder`. */
  private source(encoder: GPUCommandEncoder, records: GpuRecords, bytes: number, copy: GrowableBuffer): GPUBuffer {
    if (!records.offset) return records.buffer;
    const target = copy.ensure(Math.max(bytes, 16));
    if (bytes > 0) encoder.copyBufferToBuffer(records.buffer, records.offset, target, 0, bytes);
    return target;
  }

  /**
   * Resets `status` and writes the parameters (through the queue: this recorder's, which no
   * other call uses until this one is known to have run), and with a promised radius records
   * the check of the spheres against it. Returns the recording's number.
   */
  private check(
    encoder: GPUCommandEncoder,
    spheres: GPUBuffer,
    count: number,
    status: GPUBuffer,
    values: { capacity: number; workgroupSize: number; promisedRadius?: number },
  ): number {
    this.device.queue.writeBuffer(status, 0, CLEAN_STATUS);
    const { promisedRadius, ...rest } = values;
    const call = nextRecording();
    this.device.queue.writeBuffer(
      this.params,
      0,
      packStruct(ResidentParams, {
        sphereCount: count,
        maxDimension: this.maxWorkgroupsPerDimension,
        maxRadius: promisedRadius ?? 0,
        call,
        ...rest,
      }),
    );
    if (promisedRadius !== undefined && count > 0) {
      recordPass(
        encoder,
        'resident check',
        this.checkPipeline,
        residentCheckBindings.bind(this.device, 'residentCheck', { params: this.params, spheres, status }),
        ceilDiv(count, WORKGROUP_SIZE.residentCheck),
        this.maxWorkgroupsPerDimension,
      );
    }
    return call;
  }

  /** Sphere pairs (boxes undefined) or sphere–box pairs (`kind` and boxes in the GPU layout): the encode calls' validation. */
  encodePairs(
    encoder: GPUCommandEncoder,
    spheresIn: unknown,
    options: EncodeOptions,
    box?: { kind: BoxKind; boxes: unknown; argument: string },
  ): EncodedPairs {
    const spheres = checkRecords('spheres', spheresIn, 16, this.maxRecords);
    if (!options || typeof options !== 'object')
      throw new InvalidInputError('options', -1, RULES.option, 'the options with { scene } are required');
    const scene = checkScene(options.scene);
    const stride = box ? 4 * (box.kind === 'aabb' ? GPU_STRIDE.aabb : GPU_STRIDE.orientedBox) : 0;
    // Boxes of either kind as many as the Collider's limits.maxBoxes (the oriented box's record).
    const boxes = box
      ? checkRecords(box.argument, box.boxes, stride, Math.floor(this.bindingBytes / (4 * GPU_STRIDE.orientedBox)))
      : undefined;
    const workgroupSize = checkPositiveInteger('options.workgroupSize', options.workgroupSize, 1024) || 64;
    const timer = checkTimer('options.timer', options.timer);
    const maxPairs = Math.floor(this.bindingBytes / PAIR_BYTES);
    const asked = checkPositiveInteger('options.capacity', options.capacity, maxPairs);
    const into = options.into;
    if (into !== undefined && !(into instanceof EncodedPairs))
      throw new InvalidInputError('options.into', -1, RULES.option, 'a result of an earlier encode call');
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const capacity = asked ?? 4 * Math.max(spheres.count, 1);
    const stats = statsFromScene(scene, spheres.count);
    return this.recordPairs(encoder, spheres, box && boxes ? { kind: box.kind, records: boxes } : undefined, {
      stats,
      broadphase,
      capacity,
      into,
      workgroupSize,
      timer,
      promisedRadius: scene.maxRadius,
    });
  }

  /**
   * Records a pair search over checked inputs: the check (with a promise), the broad phase's build
   * and search into the result's list (cleared first; it grows to the capacity asked for or to
   * the count the result's last read saw), and the indirect arguments from the count.
   */
  recordPairs(
    encoder: GPUCommandEncoder,
    spheres: GpuRecords,
    box: { kind: BoxKind; records: GpuRecords } | undefined,
    job: PairJob,
  ): EncodedPairs {
    const maxPairs = Math.floor(this.bindingBytes / PAIR_BYTES);
    const capacity = Math.min(Math.max(job.capacity, job.into?.lastCount ?? 0, 1), maxPairs);
    const m = box?.records.count ?? 0;
    const phase = this.phaseFor(job.broadphase, {
      query: box ? 'boxes' : 'pairs',
      sphereCount: spheres.count,
      boxCount: box ? m : undefined,
      stats: job.stats,
    });
    const result = job.into ?? new EncodedPairs(this.device, capacity);
    result.list.reserve(capacity);
    result.maxRadius = job.promisedRadius ?? 0;
    const sphereBuffer = this.source(encoder, spheres, 16 * spheres.count, this.spheres);
    result.call = this.check(encoder, sphereBuffer, spheres.count, result.status, {
      capacity: result.capacity,
      workgroupSize: job.workgroupSize,
      promisedRadius: job.promisedRadius,
    });
    result.list.clear(encoder);
    if (spheres.count > 0 && (!box || m > 0)) {
      if (!job.reuseBuild) {
        phase.prepare(job.stats, box ? job.boxes : undefined);
        phase.encodeBuild(encoder, sphereBuffer, job.timer);
      }
      if (box) {
        const stride = 4 * (box.kind === 'aabb' ? GPU_STRIDE.aabb : GPU_STRIDE.orientedBox);
        phase.encodeBoxPairs(
          encoder,
          box.kind,
          this.source(encoder, box.records, stride * m, this.others),
          m,
          result.list,
          job.timer,
        );
      } else {
        phase.encodeSpherePairs(encoder, result.list, job.timer);
      }
    }
    if (job.dispatchArguments !== false) this.encodeDispatch(encoder, result.counter, result.dispatch, result.status);
    return result;
  }

  /** Indirect arguments from a PairCounter-shaped count, by the params' capacity and workgroup size; the recording's number into the status. */
  private encodeDispatch(encoder: GPUCommandEncoder, counter: GPUBuffer, dispatch: GPUBuffer, status: GPUBuffer): void {
    const pass = encoder.beginComputePass({ label: 'resident dispatch arguments' });
    setPipelineAndGroup(
      pass,
      this.dispatchPipeline,
      residentDispatchBindings.bind(this.device, 'residentDispatch', {
        params: this.params,
        counter: { buffer: counter, size: PairCounter.size },
        args: dispatch,
        status,
      }),
    );
    pass.dispatchWorkgroups(1);
    pass.end();
  }

  /** Nearest-hit raycasts (radius 0 in the records) or sphere casts, in the GPU cast layout: the encode calls' validation. */
  encodeCasts(
    encoder: GPUCommandEncoder,
    kind: 'raycast' | 'sphereCast',
    castsIn: unknown,
    spheresIn: unknown,
    options: EncodeCastOptions,
  ): EncodedHits {
    const argument = kind === 'raycast' ? 'rays' : 'casts';
    // As limits.maxCasts: a nearest hit a cast, one CastHitRecord each.
    const casts = checkRecords(
      argument,
      castsIn,
      4 * GPU_STRIDE.cast,
      Math.floor(this.bindingBytes / CastHitRecord.size),
    );
    const spheres = checkRecords('spheres', spheresIn, 16, this.maxRecords);
    if (!options || typeof options !== 'object')
      throw new InvalidInputError('options', -1, RULES.option, 'the options with { scene } are required');
    const scene = checkScene(options.scene);
    const into = options.into;
    if (into !== undefined && !(into instanceof EncodedHits))
      throw new InvalidInputError('options.into', -1, RULES.option, 'a result of an earlier encode call');
    const broadphase = checkOneOf('options.broadphase', options.broadphase, BROADPHASES) ?? 'auto';
    const sceneAbs = Math.max(...[0, 1, 2].flatMap((a) => [Math.abs(scene.min[a]), Math.abs(scene.max[a])]));
    const diagonal = Math.hypot(...[0, 1, 2].map((a) => scene.max[a] - scene.min[a]));
    const maxAbs = Math.max(
      sceneAbs,
      checkNumber('options.maxAbs', options.maxAbs, 0, MAX_MAGNITUDE) ?? sceneAbs + diagonal,
    );
    // A segment between two points within 2^60 of the origin is shorter than 4 · 2^60.
    const maxLength =
      checkNumber('options.maxLength', options.maxLength, 0, 4 * MAX_MAGNITUDE) ?? 2 * diagonal + scene.maxRadius;
    const allHits = checkBoolean('options.allHits', options.allHits) ?? false;
    const workgroupSize = checkPositiveInteger('options.workgroupSize', options.workgroupSize, 1024) || 64;
    const timer = checkTimer('options.timer', options.timer);
    const maxHits = Math.floor(this.bindingBytes / CastHitRecord.size);
    const asked = checkPositiveInteger('options.capacity', options.capacity, maxHits);
    return this.recordCasts(encoder, casts, spheres, {
      kind,
      stats: statsFromScene(scene, spheres.count),
      // The host cannot see the casts: 'auto' weighs them as if every one were of the longest length.
      shape: { count: casts.count, totalLength: casts.count * maxLength },
      reach: { maxAbs, maxLength, maxRadius: scene.maxRadius },
      broadphase,
      allHits,
      capacity: asked ?? 4 * Math.max(casts.count, 1),
      into,
      workgroupSize,
      timer,
      promisedRadius: scene.maxRadius,
    });
  }

  /**
   * Records a cast batch's search over checked inputs: nearest hits (one record per cast), or
   * all hits (count, scan of the counts into offsets, write; a cast whose hits pass the
   * capacity writes none; the total copied into the result's `total`), then the indirect
   * arguments.
   */
  recordCasts(encoder: GPUCommandEncoder, casts: GpuRecords, spheres: GpuRecords, job: CastJobSpec): EncodedHits {
    const maxHits = Math.floor(this.bindingBytes / CastHitRecord.size);
    const phase = this.phaseFor(job.broadphase, {
      query: 'casts',
      sphereCount: spheres.count,
      casts: job.shape,
      stats: job.stats,
    });
    const result = job.into ?? new EncodedHits(this.device);
    result.kind = job.kind;
    result.count = casts.count;
    result.allHits = job.allHits;
    result.maxRadius = job.promisedRadius ?? 0;
    result.capacity = job.allHits ? Math.min(Math.max(job.capacity, result.lastCount, 1), maxHits) : casts.count;
    const hits = result.records.ensure(Math.max(CastHitRecord.size * result.capacity, 16));
    // The buffer may have grown past the capacity asked for: it holds what it holds.
    if (job.allHits) result.capacity = Math.min(Math.floor(hits.size / CastHitRecord.size), maxHits);
    const counts = result.counts.ensure(scanBufferBytes(casts.count));
    const sphereBuffer = this.source(encoder, spheres, 16 * spheres.count, this.spheres);
    const castBuffer = this.source(encoder, casts, 4 * GPU_STRIDE.cast * casts.count, this.others);
    result.call = this.check(encoder, sphereBuffer, spheres.count, result.status, {
      capacity: result.capacity,
      workgroupSize: job.workgroupSize,
      promisedRadius: job.promisedRadius,
    });
    // The total: all hits copy the scan's last word in below; nearest hits are the casts.
    this.device.queue.writeBuffer(result.total, 0, new Uint32Array([job.allHits ? 0 : casts.count, 0]));
    if (casts.count > 0) {
      // No spheres: every cast misses, which the phase that builds nothing finds over zero spheres.
      const use = spheres.count === 0 ? this.broadphases[WITHOUT_SPHERES] : phase;
      this.kernels.setParams(casts.count, spheres.count, use.castSlack(job.reach));
      if (!job.reuseBuild) {
        use.prepare(job.stats);
        use.encodeBuild(encoder, sphereBuffer, job.timer);
      }
      const run = (mode: CastMode): void =>
        use.encodeCasts(
          encoder,
          { kernels: this.kernels, mode, casts: castBuffer, castCount: casts.count, targets: { hits, counts } },
          job.timer,
        );
      if (job.allHits) {
        run('count');
        this.scan.encode(encoder, counts, casts.count, job.timer);
        run('write');
        encoder.copyBufferToBuffer(counts, 4 * casts.count, result.total, PairCounter.offsets.count, 4);
      } else {
        run('nearest');
      }
    } else if (job.allHits) {
      encoder.clearBuffer(counts, 0, 4);
    }
    if (job.dispatchArguments !== false) this.encodeDispatch(encoder, result.total, result.dispatch, result.status);
    return result;
  }

  destroy(): void {
    destroyBroadPhases(this.broadphases);
    this.kernels.destroy();
    this.scan.destroy();
    this.params.destroy();
    this.spheres.destroy();
    this.others.destroy();
  }
}

/** Recordings so far, over every recorder (ResidentParams.call of the latest). */
let recordings = 0;

/** The next recording's number: from 1 (a status the call never reached says 0), wrapping past 2^32 - 1. */
export function nextRecording(): number {
  recordings = (recordings % 0xffffffff) + 1;
  return recordings;
}
