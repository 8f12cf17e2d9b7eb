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
 * A particle world's collider contacts left on the GPU (`world.encodeColliderContacts`): the
 * records, their true count and indirect dispatch arguments for a kernel of yours, and `read()`.
 *
 * @category Particle world
 */
export class ColliderContacts {
  /** vec4<u32> records: particle, box, the normal impulse's f32 bits, 0 (in no particular order). */
  records: GPUBuffer;
  /** Two u32: the true count of contacts (even past `capacity`), then 0 (a PairCounter's shape). */
  readonly counter: GPUBuffer;
  /** Indirect dispatch arguments (x, y, 1) covering min(count, capacity) records at 64 threads a workgroup, folded to 2-D past the device's limit. */
  readonly dispatch: GPUBuffer;
  /** The true count the last `read()` saw (the next encode into this result grows to it). */
  lastCount = 0;

  /** @internal Made by the world's `encodeColliderContacts`. */
  constructor(
    private readonly device: GPUDevice,
    capacity: number,
  ) {
    this.records = ColliderContacts.recordsBuffer(device, capacity);
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
    const max = ColliderContacts.maxCapacity(this.device);
    if (count > max)
      throw new CapacityError('collider contacts', count, max, 'the device cannot bind more collider contacts');
    this.records.destroy();
    this.records = ColliderContacts.recordsBuffer(
      this.device,
      Math.min(max, Math.max(count, Math.ceil(this.capacity * 1.5))),
    );
  }

  /**
   * Reads the contacts back (after the encoder was submitted). Throws CapacityError with the
   * true count if they did not fit (encode into this result again: it grows to that count).
   */
  async read(): Promise<ColliderContactList> {
    const count = new Uint32Array(await readBuffer(this.device, this.counter, 0, 4))[0];
    this.lastCount = count;
    if (count > this.capacity)
      throw new CapacityError(
        'collider contacts',
        count,
        this.capacity,
        'encode into this result again (it grows to the count)',
      );
    const words = new Uint32Array(await readBuffer(this.device, this.records, 0, COLLIDER_CONTACT_BYTES * count));
    const floats = new Float32Array(words.buffer);
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

  /** Frees the buffers. */
  destroy(): void {
    this.records.destroy();
    this.counter.destroy();
    this.dispatch.destroy();
  }
}

/**
 * The result `encodeColliderContacts` records into: `into` (validated: the ColliderContacts of an
 * earlier call), or a new one for a world of `count` particles.
 */
export function contactsInto(device: GPUDevice, into: unknown, count: number): ColliderContacts {
  if (into !== undefined && !(into instanceof ColliderContacts))
    throw new InvalidInputError('into', -1, RULES.option, 'the ColliderContacts of an earlier call, or undefined');
  return into ?? new ColliderContacts(device, Math.max(1024, count));
}

/**
 * Records the contacts into `contacts` with `encode`, submits and reads them back; when they did
 * not fit, grows `contacts` to their count and runs again (CapacityError past a binding).
 */
export async function readColliderContacts(
  device: GPUDevice,
  calls: CallQueue,
  contacts: ColliderContacts,
  encode: (encoder: GPUCommandEncoder) => void,
): Promise<ColliderContactList> {
  for (;;) {
    contacts.reserve(contacts.lastCount);
    const encoder = device.createCommandEncoder({ label: 'collider contacts' });
    encode(encoder);
    device.queue.submit([encoder.finish()]);
    try {
      return await calls.typed(contacts.read());
    } catch (error) {
      if (!(error instanceof CapacityError) || contacts.lastCount > ColliderContacts.maxCapacity(device)) throw error;
    }
  }
}
