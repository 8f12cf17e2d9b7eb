/**
 * The `step` call's submission: the step recorded after a copy of everything it changes, then
 * the sizes it needed read back (16 bytes). Lists that overflowed grow, and the step runs again
 * from the copy, so that nothing is solved with contacts lost. Beside it, what else changes or
 * reads the solver's step state for the world: the recording of steps (`step`, `encode`), the
 * box colliders' setting (`setColliders`) and the counters' read-back.
 */
import { InvalidInputError } from '../errors.js';
import { RULES } from '../checks.js';
import { readBuffer } from '../gpu/buffers.js';
import type { CallQueue } from '../gpu/calls.js';
import { GpuTimer, type Profile } from '../gpu/timer.js';
import { ParticleStats, ParticleReuse } from '../../shaders/particles/layout.js';
import type { ParticleSolver } from './solver.js';
import { WorldColliders, packColliders, type ColliderSet } from './colliders.js';
import { packMeshes } from './meshColliders.js';
import type { WorldState } from './state.js';
import type { StepParams } from './step.js';

/**
 * What {@link ParticleWorld.contactSearches} counts.
 *
 * @category Particle world
 */
export interface ContactSearches {
  /** Steps taken since the particles were set. */
  steps: number;
  /** Those of them that searched for contacts (the others kept the last search's lists). */
  searches: number;
}

/** Validates `encode`'s `timer`: a GpuTimer, or undefined. */
export function checkTimer(timer: unknown): void {
  if (timer !== undefined && !(timer instanceof GpuTimer))
    throw new InvalidInputError('timer', -1, RULES.option, `a GpuTimer, got ${String(timer)}`);
}

/** What a step call submits: `steps` steps, recorded by `record`. */
export interface StepCall {
  count: number;
  steps: number;
  profile: boolean;
  record: (encoder: GPUCommandEncoder, timer: GpuTimer) => void;
  /** Whether no other call changed or read the world since this one began (it may then run again). */
  unchanged: () => boolean;
}

/** Runs the world's step calls and grows the solver's lists from what the steps needed. */
export class WorldStepper {
  constructor(
    private readonly device: GPUDevice,
    private readonly calls: CallQueue,
    private readonly solver: ParticleSolver,
    private readonly colliders: WorldColliders,
    private readonly state: WorldState,
  ) {}

  /** Records `steps` steps of `settings` (the particles' count included) into `encoder`. */
  record(encoder: GPUCommandEncoder, settings: StepParams & { count: number }, steps: number, timer?: GpuTimer): void {
    const boxes = this.colliders.count;
    const meshes = this.colliders.meshes;
    this.solver.setStep(settings, boxes, meshes.length);
    const state =
      boxes + meshes.length > 0
        ? { ...this.state.buffers, colliders: { ...this.colliders.buffers!, meshes } }
        : this.state.buffers;
    for (let k = 0; k < steps; k++) {
      this.colliders.markDeformed(encoder);
      this.solver.encode(encoder, state, settings, timer);
    }
  }

  /**
   * `setMeshes`: validates and packs `list`, makes room for the meshes' contacts in the collider
   * slots, sets the meshes after the boxes. Other meshes than before (or in another order) wake
   * every particle, cold: their triangles' ids name other triangles now.
   */
  setMeshes(list: unknown): void {
    const packed = packMeshes(list, this.device, this.colliders.count);
    if (packed.meshes.length > 0) {
      this.solver.enableMeshes();
      for (const mesh of packed.meshes) mesh.edgeFlags();
    }
    const before = this.colliders.meshes.map((m) => m.mesh);
    if (before.length !== packed.meshes.length || before.some((m, i) => m !== packed.meshes[i])) this.solver.wake();
    this.colliders.setMeshes(packed);
  }

  /** `setColliders`: validates and packs `set`, sizes the particles' collider slots, sets the boxes. */
  setColliders(set: ColliderSet): void {
    const packed = packColliders(set, WorldColliders.maxBoxes(this.device));
    // Collider slots for every particle (4 at first, fewer where one binding holds no more).
    if (packed.count > 0) this.solver.ensureColliderSlots(1, 1);
    // Boxes added or removed: every particle wakes, cold (a sleeper on a box that went would
    // hang in the air; other boxes under the same indices, and the meshes' triangles under ids
    // moved by the count, would warm-start wrong contacts).
    if (packed.count !== this.colliders.count) this.solver.wake();
    this.colliders.set(packed);
  }

  /** The counter `name` of the last step submitted (4 bytes read back). */
  async readStat(name: 'touching' | 'asleep'): Promise<number> {
    return (await this.readWords(this.solver.stats, ParticleStats.offsets[name], 1))[0];
  }

  /** The steps since the particles were set, and the searches among them (8 bytes read back). */
  async contactSearches(): Promise<ContactSearches> {
    const words = await this.readWords(this.solver.reuse, ParticleReuse.offsets.steps, 2);
    return { steps: words[0], searches: words[1] };
  }

  /** `words` u32 of `buffer` from `offset`, read back (copied when called: they answer even if the world is destroyed meanwhile). */
  private async readWords(buffer: GPUBuffer, offset: number, words: number): Promise<Uint32Array> {
    return new Uint32Array(await this.calls.typed(readBuffer(this.device, buffer, offset, 4 * words), true));
  }

  /**
   * Submits `call`'s steps in one submission, again from their start while a step found more
   * contacts than the lists hold (or a particle near more boxes than it has slots for) and no
   * other call came between; answers the stage times when profiled.
   */
  async run(call: StepCall): Promise<Profile | null> {
    const { count } = call;
    for (;;) {
      // What this attempt's lists hold: an earlier step read back after it was submitted may grow them.
      const capacity = this.solver.entryCapacity;
      // Every pass is timed, in query sets of 128 passes (a step records about 100).
      const timer = new GpuTimer(this.device, call.profile, 128);
      const submitted = this.calls.submit((encoder) => {
        this.state.save(encoder, count);
        this.colliders.save(encoder);
        this.solver.save(encoder, count);
        encoder.clearBuffer(this.solver.stats);
        call.record(encoder, timer);
        timer.resolve(encoder);
      });
      try {
        await this.calls.typed(submitted);
        const [needed, foundNeeded, coloursNeeded, keptNeeded] = await this.entriesNeeded();
        this.solver.fitColourSlots(coloursNeeded);
        if (this.slotsShort(foundNeeded, keptNeeded)) {
          // A particle was near more colliders than it has slots for: back to the start, more
          // slots (or CapacityError with the true count), run again.
          if (call.unchanged()) this.restore(count);
          this.solver.ensureColliderSlots(foundNeeded, keptNeeded);
          if (call.unchanged()) continue;
        }
        if (needed > capacity && !call.unchanged()) {
          // The world was changed while the step ran (a call not awaited): running it again from
          // its start would undo those changes. As with encode(), its extra contacts went
          // unsolved in this step; the lists grow for the next. (More than the device holds:
          // the next step that needs as many throws CapacityError, with its world restored.)
          if (needed > this.solver.entryCapacity && needed <= this.solver.maxEntries()) this.solver.growEntries(needed);
        } else if (needed > capacity) {
          // Back to the state the call started with, then grow (or throw CapacityError with
          // the true count, the world as it was before the call).
          this.restore(count);
          this.solver.growEntries(needed);
          continue;
        }
        return timer.enabled ? await this.calls.typed(timer.read()) : null;
      } finally {
        timer.destroy();
      }
    }
  }

  /**
   * For `encode` users: grows the lists and the collider slots to what the steps recorded since
   * the last `step` call needed; answers the list entries the largest step needed.
   */
  async checkContactCapacity(): Promise<number> {
    const [needed, foundNeeded, coloursNeeded, keptNeeded] = await this.entriesNeeded();
    this.solver.fitColourSlots(coloursNeeded);
    if (this.slotsShort(foundNeeded, keptNeeded)) this.solver.ensureColliderSlots(foundNeeded, keptNeeded);
    if (needed > this.solver.entryCapacity) this.solver.growEntries(needed);
    return needed;
  }

  /** Back to the state a `step` call of `count` particles started with, the colliders' poses too. */
  private restore(count: number): void {
    const restore = this.device.createCommandEncoder({ label: 'particle step restore' });
    this.state.restore(restore, count);
    this.colliders.restore(restore);
    this.solver.restore(restore, count);
    this.device.queue.submit([restore.finish()]);
  }

  /**
   * The longest contact list, the most colliders found near a particle, the most colours the
   * sweeps wanted to dispatch one by one, and the most collider contacts a particle kept past its
   * slots, that any step since the last `step` call asked for (16 bytes read back).
   */
  private async entriesNeeded(): Promise<[number, number, number, number]> {
    const bytes = await this.calls.typed(
      readBuffer(this.device, this.solver.stats, ParticleStats.offsets.entriesNeeded, 16),
    );
    const words = new Uint32Array(bytes);
    return [words[0], words[1], words[2], words[3]];
  }

  /** Whether a step found a particle near more colliders, or keeping more contacts, than its slots hold. */
  private slotsShort(foundNeeded: number, keptNeeded: number): boolean {
    return foundNeeded > this.solver.foundSlots || keptNeeded > this.solver.boxSlots;
  }
}
