/**
 * The mesh queries' pass and their encoded results: `MeshQueries` owns the pipelines (rays and
 * sphere casts by mode, contacts: shaders/mesh/queries.wgsl.ts) and records a batch into a
 * caller's encoder; `EncodedMeshHits` and `EncodedMeshContacts` own what one call writes (its
 * parameters, the records, the counts) and read it back. Nothing is dropped: all hits are
 * counted and scanned before they are written, contacts are counted past their list, and a
 * total past the records' room is a CapacityError with the true total (the one-shot calls grow
 * to it and run again).
 */
import {
  meshCastShader,
  meshCastBindings,
  meshContactsShader,
  meshContactsBindings,
} from '../../shaders/mesh/queries.wgsl.js';
import { MeshQueryParams, MeshHitRecord, MeshContactRecord } from '../../shaders/mesh/layout.js';
import { packStruct } from '../layout.js';
import { computePipeline, recordPass, variant } from '../gpu/pipeline.js';
import { BufferUsage } from '../gpu/flags.js';
import { GrowableBuffer, createBuffer, readRanges } from '../gpu/buffers.js';
import { ceilDiv } from '../gpu/dispatch.js';
import { ExclusiveScanPass, scanBufferBytes } from '../passes/scan.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import { CapacityError } from '../errors.js';
import type { CastMode } from '../queryKinds.js';
import type { GpuTimer } from '../gpu/timer.js';
import type { ColliderMesh } from './mesh.js';
import {
  decodeMeshHits,
  decodeMeshContacts,
  readCounted,
  COUNTER_BYTES,
  type MeshRaycastResult,
  type MeshSphereCastResult,
  type MeshContactsResult,
} from './results.js';

const WG = WORKGROUP_SIZE.bvhQuery;

/** A mesh query's pose, validated: the centre and the unit quaternion. */
export interface MeshPose {
  centre: number[];
  rotation: number[];
}

/** Records in place: a buffer bound at its start, `count` records. */
export interface BoundRecords {
  buffer: GPUBuffer;
  count: number;
}

function paramsOf(queryCount: number, mesh: ColliderMesh, pose?: MeshPose): ArrayBuffer {
  return packStruct(MeshQueryParams, {
    centre: pose?.centre ?? [0, 0, 0],
    queryCount,
    rotation: pose?.rotation ?? [0, 0, 0, 1],
    triangleCount: mesh.triangleCount,
    posed: pose ? 1 : 0,
  });
}

/** The pipelines of a Collider's mesh queries. */
export class MeshQueries {
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly castLayout: GPUBindGroupLayout;
  private readonly contactsLayout: GPUBindGroupLayout;

  constructor(
    readonly device: GPUDevice,
    readonly maxWorkgroupsPerDimension: number,
  ) {
    this.castLayout = meshCastBindings.layout(device, 'meshCast');
    this.contactsLayout = meshContactsBindings.layout(device, 'meshContacts');
  }

  /** The pipeline of a mode, for a tree whose walks need `stack` entries (ColliderMesh.walkStack). */
  private pipeline(name: CastMode | 'contacts', kind: 'ray' | 'cast', stack: number): GPUComputePipeline {
    return variant(this.pipelines, `${name} ${kind} ${stack}`, () =>
      name === 'contacts'
        ? computePipeline(
            this.device,
            `meshContacts ${stack}`,
            [this.contactsLayout],
            meshContactsShader({ stack }),
            'meshContacts',
            { WG },
          )
        : computePipeline(
            this.device,
            `meshCast ${name} ${kind} ${stack}`,
            [this.castLayout],
            meshCastShader({ mode: name, ray: kind === 'ray', stack }),
            'meshCast',
            { WG },
          ),
    );
  }

  /**
   * Records rays or sphere casts (two vec4f each: (A, radius), (B, 0)) against `mesh` into
   * `result`: the nearest hit of each, or with `allHits` every hit (counted, scanned, written),
   * room for `capacity` hits.
   */
  encodeCasts(
    encoder: GPUCommandEncoder,
    casts: BoundRecords,
    mesh: ColliderMesh,
    result: EncodedMeshHits,
    call: { allHits: boolean; capacity: number; pose?: MeshPose; timer?: GpuTimer },
  ): void {
    const d = this.device;
    const n = casts.count;
    result.prepare(n, call.allHits, call.capacity);
    d.queue.writeBuffer(result.params, 0, paramsOf(n, mesh, call.pose));
    if (n === 0) {
      if (call.allHits) encoder.clearBuffer(result.counts.buffer, 0, 4);
      return;
    }
    const run = (mode: CastMode) =>
      recordPass(
        encoder,
        `mesh cast ${mode}`,
        this.pipeline(mode, result.kind, mesh.walkStack),
        meshCastBindings.bind(d, `mesh cast ${mode}`, {
          params: result.params,
          casts: casts.buffer,
          children: mesh.tree.children,
          sorted: mesh.tree.sorted,
          ids: mesh.tree.ids,
          hits: result.hits,
          counts: result.counts.buffer,
        }),
        ceilDiv(n, WG),
        this.maxWorkgroupsPerDimension,
        call.timer,
      );
    if (!call.allHits) {
      run('nearest');
      return;
    }
    run('count');
    result.scan().encode(encoder, result.counts.buffer, n, call.timer);
    run('write');
  }

  /** Records every sphere–triangle contact of `spheres` (vec4f: centre, radius) with `mesh` into `result`. */
  encodeContacts(
    encoder: GPUCommandEncoder,
    spheres: BoundRecords,
    mesh: ColliderMesh,
    result: EncodedMeshContacts,
    call: { capacity: number; pose?: MeshPose; timer?: GpuTimer },
  ): void {
    const d = this.device;
    result.prepare(spheres.count, call.capacity);
    d.queue.writeBuffer(result.params, 0, paramsOf(spheres.count, mesh, call.pose));
    encoder.clearBuffer(result.counter, 0, COUNTER_BYTES);
    if (spheres.count === 0) return;
    recordPass(
      encoder,
      'mesh contacts',
      this.pipeline('contacts', 'cast', mesh.walkStack),
      meshContactsBindings.bind(d, 'mesh contacts', {
        params: result.params,
        spheres: spheres.buffer,
        children: mesh.tree.children,
        sorted: mesh.tree.sorted,
        ids: mesh.tree.ids,
        contacts: result.contacts,
        counter: result.counter,
      }),
      ceilDiv(spheres.count, WG),
      this.maxWorkgroupsPerDimension,
      call.timer,
    );
  }
}

/**
 * The GPU-resident result of `encodeRaycastMesh` or `encodeSphereCastMesh`: `hits`
 * (MeshHitRecords: one a query, the nearest; or with all hits every hit, query by query, each
 * query's by (distance, triangle)), `offsets` with all hits (queries + 1 u32, the exclusive scan
 * of the per-query counts, the total last), and `read()`. Valid until the next call encoded into
 * it; pass it back as `options.into` to reuse its buffers.
 *
 * @category Meshes
 */
export class EncodedMeshHits {
  /** @internal The call's parameters. */
  readonly params: GPUBuffer;
  /** @internal */
  readonly records: GrowableBuffer;
  /** @internal The per-query counts, scanned into offsets. */
  readonly counts: GrowableBuffer;
  /** @internal A copy of inputs bound at an offset. */
  readonly input: GrowableBuffer;
  private scanPass?: ExclusiveScanPass;
  /** Queries of the last encode. */
  count = 0;
  /** Whether the last encode found every hit. */
  allHits = false;
  /** Hit records `hits` can hold. */
  capacity = 0;
  /** The total the last `read()` saw (all hits). */
  lastCount = 0;
  /** @internal */
  kind: 'ray' | 'cast' = 'ray';

  /** @internal Made by the Collider's encode calls. */
  constructor(
    private readonly device: GPUDevice,
    private readonly maxWorkgroupsPerDimension: number,
  ) {
    this.params = createBuffer(
      device,
      'mesh hits params',
      MeshQueryParams.size,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
    this.records = new GrowableBuffer(device, 'mesh hits', BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.counts = new GrowableBuffer(
      device,
      'mesh hit offsets',
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.input = new GrowableBuffer(device, 'mesh queries', BufferUsage.STORAGE | BufferUsage.COPY_DST);
  }

  /** The MeshHitRecords. */
  get hits(): GPUBuffer {
    return this.records.buffer;
  }

  /** All hits: queries + 1 u32, the exclusive scan of the per-query counts (the total last). */
  get offsets(): GPUBuffer {
    return this.counts.buffer;
  }

  /** @internal */
  prepare(count: number, allHits: boolean, capacity: number): void {
    this.count = count;
    this.allHits = allHits;
    const room = allHits ? Math.max(capacity, 1) : Math.max(count, 1);
    this.records.ensure(MeshHitRecord.size * room);
    this.capacity = allHits ? Math.floor(this.records.buffer.size / MeshHitRecord.size) : count;
    this.counts.ensure(scanBufferBytes(Math.max(count, 1)));
  }

  /** @internal */
  scan(): ExclusiveScanPass {
    this.scanPass ??= new ExclusiveScanPass(this.device, this.maxWorkgroupsPerDimension, 'mesh hits scan');
    return this.scanPass;
  }

  /**
   * Reads the hits back (after the encoder was submitted): the one-shot call's result. With all
   * hits, a total past the records' room is a CapacityError with the true total (encode into
   * this result again with a larger `capacity`).
   */
  async read(): Promise<MeshRaycastResult | MeshSphereCastResult> {
    const { total, result } = await this.readAll();
    if (!result)
      throw new CapacityError('hits', total, this.capacity, 'encode again with options.capacity of at least the total');
    return result;
  }

  /** @internal The result, or only the true total when it did not fit. */
  async readAll(): Promise<{ total: number; result?: MeshRaycastResult | MeshSphereCastResult }> {
    const n = this.count;
    if (!this.allHits) {
      const bytes = await readRanges(
        this.device,
        n > 0 ? [{ source: this.hits, offset: 0, size: n * MeshHitRecord.size }] : [],
        (b) => (b.length > 0 ? b[0].slice(0) : new ArrayBuffer(0)),
      );
      return { total: n, result: decodeMeshHits(this.kind, bytes, n) };
    }
    const offsets = new Uint32Array(
      await readRanges(this.device, [{ source: this.offsets, offset: 0, size: 4 * (n + 1) }], (b) => b[0].slice(0)),
    );
    if (n === 0) offsets[0] = 0;
    const total = offsets[n];
    this.lastCount = total;
    if (total > this.capacity) return { total };
    const bytes = await readRanges(
      this.device,
      total > 0 ? [{ source: this.hits, offset: 0, size: total * MeshHitRecord.size }] : [],
      (b) => (b.length > 0 ? b[0].slice(0) : new ArrayBuffer(0)),
    );
    return { total, result: decodeMeshHits(this.kind, bytes, total, offsets) };
  }

  /** Frees its buffers. */
  destroy(): void {
    this.params.destroy();
    this.records.destroy();
    this.counts.destroy();
    this.input.destroy();
    this.scanPass?.destroy();
  }
}

/**
 * The GPU-resident result of `encodeSphereTriangleContacts`: `contacts` (MeshContactRecords, in
 * no particular order), `counter` (a PairCounter: the true count, also past the list), and
 * `read()`.
 *
 * @category Meshes
 */
export class EncodedMeshContacts {
  /** @internal */
  readonly params: GPUBuffer;
  /** @internal */
  readonly records: GrowableBuffer;
  /** The true count of contacts (count, countHi), also past the list's room. */
  readonly counter: GPUBuffer;
  /** @internal A copy of inputs bound at an offset. */
  readonly input: GrowableBuffer;
  /** Spheres of the last encode. */
  count = 0;
  /** Records `contacts` can hold. */
  capacity = 0;
  /** The count the last `read()` saw. */
  lastCount = 0;

  /** @internal Made by the Collider's encode calls. */
  constructor(private readonly device: GPUDevice) {
    this.params = createBuffer(
      device,
      'mesh contacts params',
      MeshQueryParams.size,
      BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    );
    this.records = new GrowableBuffer(device, 'mesh contacts', BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    this.counter = createBuffer(
      device,
      'mesh contacts counter',
      COUNTER_BYTES,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.input = new GrowableBuffer(device, 'mesh contact spheres', BufferUsage.STORAGE | BufferUsage.COPY_DST);
  }

  /** The MeshContactRecords. */
  get contacts(): GPUBuffer {
    return this.records.buffer;
  }

  /** @internal */
  prepare(count: number, capacity: number): void {
    this.count = count;
    this.records.ensure(MeshContactRecord.size * Math.max(capacity, 1));
    this.capacity = Math.floor(this.records.buffer.size / MeshContactRecord.size);
  }

  /** Reads the contacts back (after the encoder was submitted); past the list's room, a CapacityError with the true count. */
  async read(): Promise<MeshContactsResult> {
    const { total, result } = await this.readAll();
    if (!result)
      throw new CapacityError(
        'pairs',
        total,
        this.capacity,
        'encode again with options.capacity of at least the count',
      );
    return result;
  }

  /** @internal */
  async readAll(): Promise<{ total: number; result?: MeshContactsResult }> {
    const { count, bytes } = await readCounted(
      this.device,
      this.counter,
      0,
      this.contacts,
      MeshContactRecord.size,
      this.capacity,
      Math.max(this.lastCount, 256),
    );
    this.lastCount = count;
    if (!bytes) return { total: count };
    return { total: count, result: decodeMeshContacts(bytes, count) };
  }

  /** Frees its buffers. */
  destroy(): void {
    this.params.destroy();
    this.records.destroy();
    this.counter.destroy();
    this.input.destroy();
  }
}
