/**
 * The Collider's mesh calls, after the Collider's own checks: `createMesh`, the one-shot queries
 * (validated, uploaded, recorded with MeshQueries, submitted until the results fit, read back)
 * and the encoded ones (recorded into the caller's encoder). One-shot calls run one at a time
 * behind the Collider's other calls (its CallQueue).
 */
import { InvalidInputError } from '../errors.js';
import { RULES, checkOptions, checkBoolean, checkPositiveInteger, checkEncoder } from '../checks.js';
import { validateCasts, validateSpheres } from '../validate.js';
import { checkRecords, checkTimer, type GpuRecords } from '../resident/inputs.js';
import { GPU_STRIDE } from '../layout.js';
import { upload } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import type { GpuTimer } from '../gpu/timer.js';
import { ColliderMesh, createColliderMesh } from './mesh.js';
import { MeshBuilder } from './builder.js';
import { MeshQueries, EncodedMeshHits, EncodedMeshContacts, type BoundRecords, type MeshPose } from './queries.js';
import { validatePose } from './validate.js';
import { checkTotal, type MeshRaycastResult, type MeshSphereCastResult, type MeshContactsResult } from './results.js';
import { MeshHitRecord, MeshContactRecord } from '../../shaders/mesh/layout.js';

/**
 * Options of the mesh queries.
 *
 * @category Meshes
 */
export interface MeshQueryOptions {
  /** Where the mesh is: centre x, y, z and quaternion x, y, z, w (normalised for you); default where its positions put it. */
  pose?: ArrayLike<number>;
  /** Rays and sphere casts: every hit instead of the nearest. */
  allHits?: boolean;
  /** Rays and sphere casts with `allHits`: the most hits accepted (more: CapacityError with the true count). */
  maxHits?: number;
  /** Contacts: the most contacts accepted (more: CapacityError with the true count). */
  maxPairs?: number;
}

/**
 * Options of the encoded mesh queries.
 *
 * @category Meshes
 */
export interface EncodeMeshOptions {
  /** Where the mesh is, as {@link MeshQueryOptions.pose}. */
  pose?: ArrayLike<number>;
  /** Rays and sphere casts: every hit. */
  allHits?: boolean;
  /** Room for this many hits (all hits) or contacts; default 4 a query. */
  capacity?: number;
  /** A previous result of the same kind, whose buffers are reused. */
  into?: EncodedMeshHits | EncodedMeshContacts;
  /** Times the call's passes (`timer.resolve(encoder)` before submitting). */
  timer?: GpuTimer;
}

type CastKind = 'ray' | 'cast';

export class MeshCalls {
  private readonly builder: MeshBuilder;
  private readonly queries: MeshQueries;
  private hitsSlot?: EncodedMeshHits;
  private contactsSlot?: EncodedMeshContacts;
  private hitHint = 0;
  private contactHint = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    maxWorkgroupsPerDimension: number,
    private readonly maxBindingBytes: number,
  ) {
    this.builder = new MeshBuilder(device, maxWorkgroupsPerDimension);
    this.queries = new MeshQueries(device, maxWorkgroupsPerDimension);
  }

  get limits(): { maxTriangles: number; maxVertices: number } {
    return this.builder.limits(this.maxBindingBytes);
  }

  createMesh(input: unknown, options?: { timer?: GpuTimer }): ColliderMesh {
    this.calls.checkUsable();
    const timer = checkTimer('options.timer', checkOptions('options', options).timer);
    return createColliderMesh(this.builder, input, this, this.maxBindingBytes, timer);
  }

  private checkMesh(argument: string, mesh: unknown): ColliderMesh {
    if (!(mesh instanceof ColliderMesh) || !mesh.usableBy(this))
      throw new InvalidInputError(
        argument,
        -1,
        RULES.mesh,
        mesh instanceof ColliderMesh ? 'destroyed, or made by another Collider' : `got ${typeof mesh}`,
      );
    return mesh;
  }

  /** A one-shot ray (stride 6) or sphere-cast (stride 7) batch against a mesh. */
  castQuery(
    kind: CastKind,
    casts: unknown,
    meshArg: unknown,
    options?: MeshQueryOptions,
  ): Promise<MeshRaycastResult | MeshSphereCastResult> {
    const argument = kind === 'ray' ? 'rays' : 'casts';
    const batch = validateCasts(
      argument,
      casts,
      kind === 'ray' ? 6 : 7,
      Math.floor(this.maxBindingBytes / MeshHitRecord.size),
    );
    const mesh = this.checkMesh('mesh', meshArg);
    const o = checkOptions('options', options);
    const pose = validatePose('options.pose', o.pose);
    const allHits = checkBoolean('options.allHits', o.allHits) ?? false;
    const maxHits = checkPositiveInteger('options.maxHits', o.maxHits) ?? Infinity;
    const deviceMax = Math.floor(this.maxBindingBytes / MeshHitRecord.size);
    return this.calls.serialize(async () => {
      await mesh.ready;
      const result = (this.hitsSlot ??= new EncodedMeshHits(this.device, this.builder.maxWorkgroupsPerDimension));
      result.kind = kind;
      const input = result.input.ensure(batch.packed.byteLength);
      upload(this.device, input, batch.packed);
      let capacity = Math.max(this.hitHint, batch.count);
      for (;;) {
        await this.calls.submit((encoder) =>
          this.queries.encodeCasts(encoder, { buffer: input, count: batch.count }, mesh, result, {
            allHits,
            capacity,
            pose,
          }),
        );
        const { total, result: hits } = await result.readAll();
        if (allHits) checkTotal('hits', total, maxHits, deviceMax);
        if (hits) {
          if (allHits) this.hitHint = total;
          return hits;
        }
        capacity = total;
      }
    });
  }

  /** One-shot sphere–triangle contacts. */
  contacts(spheres: unknown, meshArg: unknown, options?: MeshQueryOptions): Promise<MeshContactsResult> {
    const deviceMax = Math.floor(this.maxBindingBytes / MeshContactRecord.size);
    const stats = validateSpheres('spheres', spheres, Math.floor(this.maxBindingBytes / 16));
    const data = (spheres as Float32Array).slice();
    const mesh = this.checkMesh('mesh', meshArg);
    const o = checkOptions('options', options);
    const pose = validatePose('options.pose', o.pose);
    const maxPairs = checkPositiveInteger('options.maxPairs', o.maxPairs) ?? Infinity;
    return this.calls.serialize(async () => {
      await mesh.ready;
      const result = (this.contactsSlot ??= new EncodedMeshContacts(this.device));
      const input = result.input.ensure(data.byteLength);
      upload(this.device, input, data);
      let capacity = Math.max(this.contactHint, 4 * stats.count, 1024);
      for (;;) {
        await this.calls.submit((encoder) =>
          this.queries.encodeContacts(encoder, { buffer: input, count: stats.count }, mesh, result, { capacity, pose }),
        );
        const { total, result: found } = await result.readAll();
        checkTotal('pairs', total, maxPairs, deviceMax);
        if (found) {
          this.contactHint = total;
          return found;
        }
        capacity = total;
      }
    });
  }

  /** The records of an encoded call, bound in place or copied into the result's own input buffer. */
  private bound(
    encoder: GPUCommandEncoder,
    records: GpuRecords & { offset: number },
    bytes: number,
    copy: { ensure(n: number): GPUBuffer },
  ): BoundRecords {
    if (records.offset === 0) return { buffer: records.buffer, count: records.count };
    const buffer = copy.ensure(Math.max(records.count * bytes, 16));
    if (records.count > 0) encoder.copyBufferToBuffer(records.buffer, records.offset, buffer, 0, records.count * bytes);
    return { buffer, count: records.count };
  }

  private encodeOptions(options: EncodeMeshOptions | undefined): {
    pose?: MeshPose;
    allHits: boolean;
    capacity?: number;
    timer?: GpuTimer;
    into?: unknown;
  } {
    const o = checkOptions('options', options);
    return {
      pose: validatePose('options.pose', o.pose),
      allHits: checkBoolean('options.allHits', o.allHits) ?? false,
      capacity: checkPositiveInteger('options.capacity', o.capacity),
      timer: checkTimer('options.timer', o.timer),
      into: o.into,
    };
  }

  encodeCasts(
    kind: CastKind,
    encoder: GPUCommandEncoder,
    casts: GpuRecords,
    meshArg: unknown,
    options?: EncodeMeshOptions,
  ): EncodedMeshHits {
    this.calls.checkUsable();
    checkEncoder(encoder);
    const records = checkRecords(
      kind === 'ray' ? 'rays' : 'casts',
      casts,
      4 * GPU_STRIDE.cast,
      Math.floor(this.maxBindingBytes / MeshHitRecord.size),
    );
    const mesh = this.checkMesh('mesh', meshArg);
    const { pose, allHits, capacity, timer, into } = this.encodeOptions(options);
    if (into !== undefined && !(into instanceof EncodedMeshHits))
      throw new InvalidInputError(
        'options.into',
        -1,
        RULES.option,
        'a result of encodeRaycastMesh or encodeSphereCastMesh',
      );
    const result = into ?? new EncodedMeshHits(this.device, this.builder.maxWorkgroupsPerDimension);
    result.kind = kind;
    const bound = this.bound(encoder, records, 4 * GPU_STRIDE.cast, result.input);
    const room = capacity ?? Math.max(result.lastCount, 4 * records.count);
    this.queries.encodeCasts(encoder, bound, mesh, result, { allHits, capacity: room, pose, timer });
    return result;
  }

  encodeContacts(
    encoder: GPUCommandEncoder,
    spheres: GpuRecords,
    meshArg: unknown,
    options?: EncodeMeshOptions,
  ): EncodedMeshContacts {
    this.calls.checkUsable();
    checkEncoder(encoder);
    const records = checkRecords('spheres', spheres, 16, Math.floor(this.maxBindingBytes / 16));
    const mesh = this.checkMesh('mesh', meshArg);
    const { pose, capacity, timer, into } = this.encodeOptions(options);
    if (into !== undefined && !(into instanceof EncodedMeshContacts))
      throw new InvalidInputError('options.into', -1, RULES.option, 'a result of encodeSphereTriangleContacts');
    const result = into ?? new EncodedMeshContacts(this.device);
    const bound = this.bound(encoder, records, 16, result.input);
    const room = capacity ?? Math.max(result.lastCount, 4 * records.count);
    this.queries.encodeContacts(encoder, bound, mesh, result, { capacity: room, pose, timer });
    return result;
  }

  destroy(): void {
    this.builder.destroy();
    this.hitsSlot?.destroy();
    this.contactsSlot?.destroy();
  }
}
