/**
 * The particle world's collider contacts of its last step, left on the GPU
 * (`world.encodeColliderContacts`): which particles touch which boxes, with the normal impulse,
 * for a kernel of yours (indirect arguments included) or read back.
 */
import { CapacityError, InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';
import type { CallQueue } from '../gpu/calls.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, readBuffer, bindingLimit } from '../gpu/buffers.js';

/** Bytes of one record: particle u32, box u32, normal impulse f32, a pad. */
export const COLLIDER_CONTACT_BYTES = 16;

/**
 * The contacts read back, one entry a contact (in no particular order).
 *
 * @category Particle world
 */
export interface ColliderContactList {
  /** The particle's index. */
  particles: Uint32Array;
  /** The box's index (in the order `setColliders` took them). */
  boxes: Uint32Array;
  /** The normal impulse of the step's last substep (mass × length / time, ≥ 0; 0 for a contact that did not push). */
  impulses: Float32Array;
}

/**
 * The mesh contacts read back (`world.meshContacts`), one entry a contact (in no particular order).
 *
 * @category Particle world
 */
export interface MeshContactList {
  /** The particle's index. */
  particles: Uint32Array;
  /** The mesh's index (in the order `setMeshes` took them). */
  meshes: Uint32Array;
  /** The triangle's index in its mesh (as `createMesh` took them). */
  triangles: Uint32Array;
  /** The normal impulse of the step's last substep (mass × length / time, ≥ 0). */
  impulses: Float32Array;
}

/**
 * A particle world's contacts with its colliders left on the GPU: the records, their true count
 * and indirect dispatch arguments for a kernel of yours, and `read()` (ColliderContacts for the
 * boxes, MeshContacts for the meshes).
 *
 * @category Particle world
 */
export abstract class ContactRecords<L> {
  /** vec4<u32> records (in no particular order): the layout is the subclass's. */
  records: GPUBuffer;
  /** Two u32: the true count of contacts (even past `capacity`), then 0 (a PairCounter's shape). */
  readonly counter: GPUBuffer;
  /** Indirect dispatch arguments (x, y, 1) covering min(count, capacity) records at 64 threads a workgroup, folded to 2-D past the device's limit. */
  readonly dispatch: GPUBuffer;
  /** The true count the last `read()` saw (the next encode into this result grows to it). */
  lastCount = 0;

  /** What the records are, for labels and errors ('collider contacts', 'mesh contacts'). */
  protected abstract readonly what: string;
  /** @internal Which contacts the solver records into it: the boxes' or the meshes'. */
  abstract readonly kind: 'boxes' | 'meshes';

  /** @internal Made by the world's `encodeColliderContacts` or `encodeMeshContacts`. */
  constructor(
    private readonly device: GPUDevice,
    capacity: number,
  ) {
    this.records = ContactRecords.recordsBuffer(device, capacity);
    this.counter = createBuffer(
      device,
      'collider contacts counter',
      8,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.dispatch = createBuffer(
      device,
      'collider contacts dispatch',
      12,
      BufferUsage.STORAGE | BufferUsage.INDIRECT | BufferUsage.COPY_SRC,
    );
  }

  private static recordsBuffer(device: GPUDevice, capacity: number): GPUBuffer {
    return createBuffer(
      device,
      'collider contacts',
      COLLIDER_CONTACT_BYTES * Math.max(1, capacity),
      BufferUsage.STORAGE | BufferUsage.COPY_SRC,
    );
  }

  /** The most records one binding holds. */
  static maxCapacity(device: GPUDevice): number {
    return Math.floor(bindingLimit(device) / COLLIDER_CONTACT_BYTES);
  }

  /** Records `records` holds. */
  get capacity(): number {
    return this.records.size / COLLIDER_CONTACT_BYTES;
  }

  /** @internal Grows the records to hold `count` (before a recording); past a binding: CapacityError with the count. */
  reserve(count: number): void {
    if (count <= this.capacity) return;
    const max = ContactRecords.maxCapacity(this.device);
    if (count > max) throw new CapacityError(this.what, count, max, `the device cannot bind more ${this.what}`);
    this.records.destroy();
    this.records = ContactRecords.recordsBuffer(
      this.device,
      Math.min(max, Math.max(count, Math.ceil(this.capacity * 1.5))),
    );
  }

  /**
   * Reads the contacts back (after the encoder was submitted). Throws CapacityError with the
   * true count if they did not fit (encode into this result again: it grows to that count).
   */
  async read(): Promise<L> {
    const count = new Uint32Array(await readBuffer(this.device, this.counter, 0, 4))[0];
    this.lastCount = count;
    if (count > this.capacity)
      throw new CapacityError(this.what, count, this.capacity, 'encode into this result again (it grows to the count)');
    return this.decode(new Uint32Array(await readBuffer(this.device, this.records, 0, COLLIDER_CONTACT_BYTES * count)));
  }

  /** The list from `count` records' words. */
  protected abstract decode(words: Uint32Array): L;

  /** Frees the buffers. */
  destroy(): void {
    this.records.destroy();
    this.counter.destroy();
    this.dispatch.destroy();
  }
}

/**
 * A particle world's box contacts left on the GPU (`world.encodeColliderContacts`): records of
 * (particle, box, the normal impulse's f32 bits, 0).
 *
 * @category Particle world
 */
export class ColliderContacts extends ContactRecords<ColliderContactList> {
  protected readonly what = 'collider contacts';
  /** @internal */
  readonly kind = 'boxes';

  protected decode(words: Uint32Array): ColliderContactList {
    const count = words.length / 4;
    const floats = new Float32Array(words.buffer, words.byteOffset, words.length);
    const particles = new Uint32Array(count);
    const boxes = new Uint32Array(count);
    const impulses = new Float32Array(count);
    for (let k = 0; k < count; k++) {
      particles[k] = words[4 * k];
      boxes[k] = words[4 * k + 1];
      impulses[k] = floats[4 * k + 2];
    }
    return { particles, boxes, impulses };
  }
}

/**
 * A particle world's mesh contacts left on the GPU (`world.encodeMeshContacts`): records of
 * (particle, mesh, triangle, the normal impulse's f32 bits).
 *
 * @category Particle world
 */
export class MeshContacts extends ContactRecords<MeshContactList> {
  protected readonly what = 'mesh contacts';
  /** @internal */
  readonly kind = 'meshes';

  protected decode(words: Uint32Array): MeshContactList {
    const count = words.length / 4;
    const floats = new Float32Array(words.buffer, words.byteOffset, words.length);
    const particles = new Uint32Array(count);
    const meshes = new Uint32Array(count);
    const triangles = new Uint32Array(count);
    const impulses = new Float32Array(count);
    for (let k = 0; k < count; k++) {
      particles[k] = words[4 * k];
      meshes[k] = words[4 * k + 1];
      triangles[k] = words[4 * k + 2];
      impulses[k] = floats[4 * k + 3];
    }
    return { particles, meshes, triangles, impulses };
  }
}

/**
 * The result `encodeColliderContacts` records into: `into` (validated: the ColliderContacts of an
 * earlier call), or a new one for a world of `count` particles.
 */
export function contactsInto<C extends ColliderContacts | MeshContacts>(
  kind: new (device: GPUDevice, capacity: number) => C,
  device: GPUDevice,
  into: unknown,
  count: number,
): C {
  if (into !== undefined && !(into instanceof kind))
    throw new InvalidInputError('into', -1, RULES.option, `the ${kind.name} of an earlier call, or undefined`);
  return (into as C | undefined) ?? new kind(device, Math.max(1024, count));
}

/**
 * Records the contacts into `contacts` with `encode`, submits and reads them back; when they did
 * not fit, grows `contacts` to their count and runs again (CapacityError past a binding).
 */
export async function readColliderContacts<L>(
  device: GPUDevice,
  calls: CallQueue,
  contacts: ContactRecords<L>,
  encode: (encoder: GPUCommandEncoder) => void,
): Promise<L> {
  for (;;) {
    contacts.reserve(contacts.lastCount);
    const encoder = device.createCommandEncoder({ label: 'collider contacts' });
    encode(encoder);
    device.queue.submit([encoder.finish()]);
    try {
      return await calls.typed(contacts.read());
    } catch (error) {
      if (!(error instanceof CapacityError) || contacts.lastCount > ContactRecords.maxCapacity(device)) throw error;
    }
  }
}

/** Records a kind of contacts of the last step recorded into `out` (the solver's encodeColliderContacts). */
export type EncodeContacts = (
  kind: 'boxes' | 'meshes',
  encoder: GPUCommandEncoder,
  count: number,
  out: { records: GPUBuffer; counter: GPUBuffer; dispatch: GPUBuffer },
) => void;

/**
 * A world's contacts out (`encodeColliderContacts`, `colliderContacts`, and the meshes'): the
 * result to record into (the caller's, or a new one), and the one the reading calls keep.
 */
export class WorldContacts {
  private readonly kept = new Map<'boxes' | 'meshes', ColliderContacts | MeshContacts>();

  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    private readonly record: EncodeContacts,
  ) {}

  /** Records the contacts of `Kind` into `into` (validated) or a new result, for `count` particles. */
  encode<C extends ColliderContacts | MeshContacts>(
    Kind: new (device: GPUDevice, capacity: number) => C,
    encoder: GPUCommandEncoder,
    count: number,
    into?: unknown,
  ): C {
    const contacts = contactsInto(Kind, this.device, into, count);
    contacts.reserve(contacts.lastCount);
    this.record(contacts.kind, encoder, count, contacts);
    return contacts;
  }

  /** Records and reads back the contacts of `Kind` through the result kept for it, growing it until they fit. */
  read(Kind: typeof ColliderContacts, count: number): Promise<ColliderContactList>;
  read(Kind: typeof MeshContacts, count: number): Promise<MeshContactList>;
  read(
    Kind: typeof ColliderContacts | typeof MeshContacts,
    count: number,
  ): Promise<ColliderContactList | MeshContactList> {
    const kind = Kind === ColliderContacts ? 'boxes' : 'meshes';
    const contacts = contactsInto<ColliderContacts | MeshContacts>(Kind, this.device, this.kept.get(kind), count);
    this.kept.set(kind, contacts);
    return readColliderContacts<ColliderContactList | MeshContactList>(
      this.device,
      this.calls,
      contacts as ContactRecords<ColliderContactList | MeshContactList>,
      (encoder) => this.record(kind, encoder, count, contacts),
    );
  }

  destroy(): void {
    for (const contacts of this.kept.values()) contacts.destroy();
    this.kept.clear();
  }
}
