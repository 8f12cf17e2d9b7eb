/**
 * ParticleSolver: the passes of one particle-world step (shaders/particles/solver.wgsl.ts),
 * recorded into a caller's encoder with nothing read back. It owns its pipelines and bind groups
 * (solverPipelines.ts) and the solver's GPU buffers (solverBuffers.ts); the world
 * (src/particles/world.ts) owns the state. This file keeps what lasts from step to step: the
 * parameters' log, the sizes of the lists and the collider slots, the parity, and what the host
 * changes between steps (new particles, a wake, a forced search); recordStep.ts records a step.
 *
 * Per step: the gather (the state in the last search's order) and the decision whether to
 * search again; then either the grid's count and scan, the stable scatter and the contact search
 * (count, scan, fill), or the carry of the last lists (the decision, copied on the GPU into the
 * uniforms of those passes, makes one or the other return at once: every pass is a direct
 * dispatch, src/gpu/dispatch.ts's SkipSwitch, unless the world dispatches indirectly: then the
 * gate's arguments, src/gpu/gate.ts, skip them too); then the split (a particle with nothing to solve
 * runs its whole step there, the others go to the busy list); then per substep, over the busy
 * particles (a thread per particle, those past the busy count returning at once; or an indirect
 * dispatch sized by particleBusyArgs): prepare (the first substep then colours the step's pairs),
 * `iterations` sweeps over the colours and then each particle's walls and collider contacts, the
 * last of which integrates; then the
 * write-back of the world's state and of each particle's sleep record (particleSleep, before the
 * split, puts a particle to sleep when it and its partners have been at rest long enough).
 * Buffers that alternate:
 * - bodies A/B: each substep's prepare reads one and writes the other, which its sweeps then
 *   update in place;
 * - the halves of `contacts` and `ranges`: each step writes one and warm-starts from the other,
 *   and two uniform parameter blocks (one per parity) say which is which.
 */
import { gridLayoutOf } from '../../shaders/spatial/grid.wgsl.js';
import {
  colliderContactsBindings,
  colliderContactsArgsBindings,
  meshColliderContactsBindings,
} from '../../shaders/particles/contacts.wgsl.js';
import { TRIANGLE_WORDS } from '../../shaders/particles/meshes.wgsl.js';
import { setPipelineAndGroup } from '../gpu/pipeline.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import { bindingLimit } from '../gpu/buffers.js';
import type { GpuGrid } from '../passes/gridBuild.js';
import { createCellBinning, type CellBinning } from '../broadphase/index.js';
import { ExclusiveScanPass } from '../passes/scan.js';
import { packStruct } from '../layout.js';
import {
  ParticleParams,
  ParticleContact,
  ParticleReuse,
  ParticleRest,
  ParticleColliderContact,
} from '../../shaders/particles/layout.js';
import { CapacityError } from '../errors.js';
import type { GpuTimer } from '../gpu/timer.js';
import { wakeKey, PALETTE } from './step.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import { SolverBuffers, PARAM_LOG_SLOTS } from './solverBuffers.js';
import { SolverPipelines, BindGroupCache } from './solverPipelines.js';
import { StepRecorder, type ParticleState, type StepSettings, type SolverParts } from './recordStep.js';

export { PARAM_LOG_SLOTS } from './solverBuffers.js';
export type { ParticleState, StepSettings } from './recordStep.js';

const WG = WORKGROUP_SIZE.particles;

/** Collider slots a particle starts with (grown when a step finds a particle near more boxes). */
const FIRST_BOX_SLOTS = 4;

/** Colours dispatched one by one beyond those the last call wanted (ParticleSolver.fitColourSlots). */
const COLOUR_SLOTS_SPARE = 2;

export class ParticleSolver implements SolverParts {
  /** Contact-list entries per half of the contact buffer. */
  entryCapacity: number;
  /**
   * The broad phase that bins the particles by cell (the registry's CellBinning: the grid), from
   * the world's plan (`binning.prepareWith`); the search reads and fills its buffers.
   */
  readonly binning: CellBinning;
  /** Its buffers and plan. */
  readonly grid: GpuGrid;
  /** ParticleStats: the step's counters. */
  readonly stats: GPUBuffer;
  /** ParticleReuse: the host's `force`, and the counts of steps and searches. */
  readonly reuse: GPUBuffer;
  /** Collider slots a particle holds (ParticleColliderContact, in each of two halves). */
  boxSlots = FIRST_BOX_SLOTS;
  /**
   * Colliders a particle may be found near in a step (the found list its slots are made of):
   * `boxSlots` without meshes; with them its own number, since a fine mesh puts many triangles
   * within a particle's reach and meshReduce drops most of them.
   */
  foundSlots = FIRST_BOX_SLOTS;
  /**
   * The colours the sweeps dispatch one by one; the colours after them, whatever their size, are
   * the tail's, solved in one workgroup (shaders/particles/pairs.wgsl.ts, pairSolveTail). Every
   * value gives the same result; it follows the colours the last call's steps wanted
   * (fitColourSlots), so that a quiet scene records few dispatches a sweep and a crowded one
   * gives each large colour its own. All of them until a call says.
   */
  colourSlots = PALETTE;
  private pinnedColourSlots: number | null = null;
  /** Whether the world has had mesh colliders (the found triangles and the slots' triangles have room). */
  private meshes = false;
  readonly pipelines: SolverPipelines;
  readonly buffers: SolverBuffers;
  /** Bind groups by name, with the buffers they were made of. */
  readonly groups: BindGroupCache;
  readonly scan: ExclusiveScanPass;
  /** The slot of the last setStep. */
  private logSlot = 0;
  /** The settings that, changed, wake every particle (wakeKey). */
  private waking = '';
  /** The listing settings of the last recorded step: other ones make the next step search. */
  private listing = '';
  /** Which half of the contact and range buffers the next step writes. */
  private parity = 0;

  constructor(
    private readonly device: GPUDevice,
    readonly capacity: number,
    readonly maxWorkgroupsPerDimension: number,
    /**
     * How the passes that run on part of the particles are dispatched (ParticleWorldOptions'
     * `dispatch`): 'direct', over every particle, the threads with nothing to do returning at
     * once; or 'indirect', sized on the GPU to the work.
     */
    readonly dispatch: 'direct' | 'indirect',
  ) {
    this.pipelines = new SolverPipelines(device);
    this.groups = new BindGroupCache(device);
    // The plan is always the world's (prepareWith): no plan options of its own.
    this.binning = createCellBinning({ device, maxWorkgroupsPerDimension }, {}, 'particle grid');
    this.grid = this.binning.grid;
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'contact scan');
    // Room for 8 partners a particle (a packed pile lists 6–12); grown when a step needs more.
    this.entryCapacity = Math.min(8 * capacity, this.maxEntries());
    this.buffers = new SolverBuffers(device, capacity, this.entryCapacity);
    this.stats = this.buffers.stats;
    this.reuse = this.buffers.reuse;
  }

  /**
   * Sets the colours the next calls dispatch one by one from the most a step of the last call
   * wanted (ParticleStats.colourSlotsNeeded), with COLOUR_SLOTS_SPARE to spare for a scene
   * that crowds more from one call to the next.
   */
  fitColourSlots(needed: number): void {
    if (this.pinnedColourSlots === null) this.colourSlots = Math.min(PALETTE, needed + COLOUR_SLOTS_SPARE);
  }

  /** Fixes colourSlots at `slots` (0 to PALETTE), or lets it follow the calls again (null): tests. */
  pinColourSlots(slots: number | null): void {
    this.pinnedColourSlots = slots;
    if (slots !== null) this.colourSlots = slots;
  }

  /** Most collider slots a particle can hold (one binding holds both halves of every particle's, and their triangles). */
  maxBoxSlots(): number {
    const perSlot = Math.max(2 * ParticleColliderContact.size, this.meshes ? 4 * TRIANGLE_WORDS : 0);
    return Math.floor(bindingLimit(this.device) / (this.capacity * perSlot));
  }

  /** Most colliders a particle can be found near (one binding holds every particle's count and found list). */
  maxFoundSlots(): number {
    const words = Math.floor(bindingLimit(this.device) / (4 * this.capacity)) - 1;
    return Math.floor(words / (this.meshes ? 1 + TRIANGLE_WORDS : 1));
  }

  /**
   * Makes room for `found` colliders found near a particle and `kept` collider contacts a
   * particle (at least the current numbers; without meshes one number, the larger). New slots
   * start cold, empty. Throws CapacityError when the device cannot bind that many.
   */
  ensureColliderSlots(found: number, kept: number): void {
    if (!this.meshes) found = kept = Math.max(found, kept);
    const maxKept = this.maxBoxSlots();
    const maxFound = this.meshes ? this.maxFoundSlots() : maxKept;
    if (kept > maxKept)
      throw new CapacityError(
        'collider contacts',
        kept,
        maxKept,
        'the device cannot bind that many collider contacts a particle (boxes and triangles touching one particle)',
      );
    if (found > maxFound)
      throw new CapacityError(
        'colliders found',
        found,
        maxFound,
        'the device cannot bind that many colliders found near a particle (boxes and triangles within its reach in a step)',
      );
    // More: at least twice as many; fewer than now only where a binding holds no more.
    const grow = (now: number, wanted: number, max: number): number =>
      wanted > now ? Math.min(max, Math.max(wanted, 2 * now)) : Math.min(now, max);
    const boxSlots = grow(this.boxSlots, kept, maxKept);
    const foundSlots = this.meshes ? grow(this.foundSlots, found, maxFound) : boxSlots;
    const bytes = 2 * this.capacity * boxSlots * ParticleColliderContact.size;
    const foundBytes = 4 * this.capacity * (1 + foundSlots * (this.meshes ? 1 + TRIANGLE_WORDS : 1));
    const triangleBytes = this.meshes ? 4 * TRIANGLE_WORDS * this.capacity * boxSlots : 0;
    if (
      boxSlots === this.boxSlots &&
      foundSlots === this.foundSlots &&
      this.buffers.slots.buffer.size >= bytes &&
      this.buffers.found.buffer.size >= foundBytes &&
      this.buffers.slotTriangles.buffer.size >= triangleBytes
    )
      return;
    const moved = boxSlots !== this.boxSlots || this.buffers.slots.buffer.size < bytes;
    this.boxSlots = boxSlots;
    this.foundSlots = foundSlots;
    this.buffers.found.ensure(foundBytes);
    if (this.meshes) this.buffers.slotTriangles.ensure(triangleBytes);
    this.buffers.slots.ensure(bytes);
    this.groups.clear();
    if (moved) this.emptySlots();
  }

  /** Makes room for mesh colliders' contacts in the collider slots (once, with the first meshes). */
  enableMeshes(): void {
    if (this.meshes) return;
    this.meshes = true;
    this.ensureColliderSlots(1, 1);
  }

  /** Every collider contact starts again cold (other boxes under the same indices). */
  forgetColliders(): void {
    this.emptySlots();
  }

  /** Marks every particle's collider slots empty, in both halves (through the queue: a cleared slot is empty). */
  private emptySlots(): void {
    const encoder = this.device.createCommandEncoder({ label: 'collider slots' });
    encoder.clearBuffer(this.buffers.slots.buffer);
    this.device.queue.submit([encoder.finish()]);
  }

  /** Most entries per half that one binding holds. */
  maxEntries(): number {
    return Math.floor(bindingLimit(this.device) / (2 * ParticleContact.size));
  }

  /**
   * Makes room for `entries` contact-list entries per half (after a step asked for more). The
   * lists are replaced, so the next step starts cold (no warm start). Throws CapacityError when
   * the device cannot bind that many.
   */
  growEntries(entries: number): void {
    const max = this.maxEntries();
    // Whatever happens next, lists that overflowed are not kept (particleDecide checks too).
    this.forceSearch();
    if (entries > max)
      throw new CapacityError('particle contacts', entries, max, 'the device cannot bind more contact-list entries');
    this.entryCapacity = Math.min(max, Math.max(entries, Math.ceil(this.entryCapacity * 1.25)));
    this.buffers.contacts.ensure(2 * this.entryCapacity * ParticleContact.size);
    this.buffers.ensureEntries(this.entryCapacity);
    this.groups.clear();
    // The new lists hold nothing: the next step searches, cold (the counts of steps and
    // searches go on).
    const encoder = this.device.createCommandEncoder({ label: 'particle solver grow' });
    encoder.clearBuffer(this.buffers.ranges);
    encoder.clearBuffer(this.buffers.walls);
    this.device.queue.submit([encoder.finish()]);
    this.forceSearch();
  }

  /**
   * Records a copy of what a step changes and the next step's gather compares against, for
   * `restore` (a step that runs again): the counts of steps and searches, the sleep records, and
   * the search order with its sorted copies and anchors (the gather notices a new radius or a
   * particle made static or dynamic from them: a failed attempt's copies would hide the change
   * from the step run again, and leave a sleeper on a support made dynamic hanging in the air).
   */
  save(encoder: GPUCommandEncoder, count: number): void {
    encoder.copyBufferToBuffer(this.reuse, 0, this.buffers.reuseBackup, 0, ParticleReuse.size);
    encoder.copyBufferToBuffer(this.buffers.rest, 0, this.buffers.restBackup, 0, ParticleRest.size * count);
    this.copyOrder(encoder, count, 'save');
  }

  /** Records putting back what `save` copied. */
  restore(encoder: GPUCommandEncoder, count: number): void {
    encoder.copyBufferToBuffer(this.buffers.reuseBackup, 0, this.reuse, 0, ParticleReuse.size);
    encoder.copyBufferToBuffer(this.buffers.restBackup, 0, this.buffers.rest, 0, ParticleRest.size * count);
    this.copyOrder(encoder, count, 'restore');
  }

  /** The search order (4 bytes a particle), sorted copies (16) and anchors (16), into orderBackup or back. */
  private copyOrder(encoder: GPUCommandEncoder, count: number, way: 'save' | 'restore'): void {
    if (!this.grid.plan) return; // no step has run: nothing to compare against yet
    const parts: [GPUBuffer, number, number][] = [
      [this.grid.sortedId.buffer, 4, 0],
      [this.grid.sorted.buffer, 16, 4 * this.capacity],
      [this.buffers.anchors, 16, 20 * this.capacity],
    ];
    for (const [buffer, stride, at] of parts) {
      if (way === 'save') encoder.copyBufferToBuffer(buffer, 0, this.buffers.orderBackup, at, stride * count);
      else encoder.copyBufferToBuffer(this.buffers.orderBackup, at, buffer, 0, stride * count);
    }
  }

  /**
   * Starts particle `id`'s time at rest again (the host set its velocity: set moving, even slower
   * than sleepSpeed, it is awake for the next step). Through the queue.
   */
  unrest(id: number): void {
    this.device.queue.writeBuffer(
      this.buffers.rest,
      ParticleRest.size * id + ParticleRest.offsets.time,
      new Float32Array([0]),
    );
  }

  /**
   * Wakes every particle, cold: the times at rest start again, and the next step searches with no
   * warm start (a sleeper's pairs held stale impulses on one side; starting every pair from 0
   * keeps both entries of each equal). Through the queue, ahead of the next submission.
   */
  wake(): void {
    const encoder = this.device.createCommandEncoder({ label: 'particle solver wake' });
    encoder.clearBuffer(this.buffers.ranges);
    encoder.clearBuffer(this.buffers.rest);
    this.device.queue.submit([encoder.finish()]);
    this.emptySlots();
    this.forceSearch();
  }

  /**
   * Forgets every contact (new particles, `count` of them, after `binning.prepareWith`): the next
   * step searches, with no warm start; the counts of steps and searches start again. The search
   * order becomes 0..count−1: the next step's gather visits it before its search sorts, and reads
   * every particle's velocity through it (the fastest particle's travel grows every box's
   * search), so it must hold each new id once, not the last search's order of other particles.
   */
  forget(count: number): void {
    const encoder = this.device.createCommandEncoder({ label: 'particle solver reset' });
    encoder.clearBuffer(this.buffers.ranges);
    encoder.clearBuffer(this.buffers.walls);
    encoder.clearBuffer(this.reuse);
    encoder.clearBuffer(this.buffers.rest);
    this.device.queue.submit([encoder.finish()]);
    if (count > 0) {
      const order = new Uint32Array(count);
      for (let i = 0; i < count; i++) order[i] = i;
      this.device.queue.writeBuffer(this.grid.sortedId.buffer, 0, order);
    }
    this.emptySlots();
    this.forceSearch();
  }

  /** Makes the next step search (through the queue). */
  private forceSearch(): void {
    this.device.queue.writeBuffer(this.reuse, ParticleReuse.offsets.force, new Uint32Array([1]));
  }

  /**
   * Writes the parameters of the steps recorded next (both parities), with `boxCount` box
   * colliders, into a new slot of the log (through the queue): steps recorded before, not yet
   * submitted, keep theirs.
   */
  setStep(settings: StepSettings, boxCount = 0, meshCount = 0): void {
    const h = settings.dt / settings.substeps;
    // The lists were made for these: others may need pairs the lists lack.
    const listing = [settings.count, settings.margin, settings.skin, settings.dt].join(' ');
    if (listing !== this.listing) this.forceSearch();
    this.listing = listing;
    // New physics (gravity, friction, ...) wakes every particle, cold, as the CPU twin does.
    const waking = wakeKey(settings);
    if (waking !== this.waking && this.waking !== '') this.wake();
    this.waking = waking;
    const b = settings.bounds ?? [0, 0, 0, 0, 0, 0];
    this.logSlot = (this.logSlot + 1) % PARAM_LOG_SLOTS;
    for (const parity of [0, 1]) {
      this.device.queue.writeBuffer(
        this.buffers.paramLog,
        (2 * this.logSlot + parity) * ParticleParams.size,
        packStruct(ParticleParams, {
          count: settings.count,
          dt: h,
          frameDt: settings.dt,
          restitution: settings.restitution,
          gravity: settings.gravity,
          friction: settings.friction,
          boundsMin: [b[0], b[1], b[2]],
          bounded: settings.bounds ? 1 : 0,
          boundsMax: [b[3], b[4], b[5]],
          percent: settings.percent,
          slop: settings.slop,
          maxPushSpeed: settings.maxPushSpeed,
          restitutionThreshold: settings.restitutionThreshold,
          margin: settings.margin,
          skin: settings.skin,
          entryCapacity: this.entryCapacity,
          entryBase: parity * this.entryCapacity,
          prevEntryBase: (1 - parity) * this.entryCapacity,
          rangeBase: parity * this.capacity,
          prevRangeBase: (1 - parity) * this.capacity,
          substeps: settings.substeps,
          iterations: settings.iterations,
          maxGroups: this.maxWorkgroupsPerDimension,
          searching: 0, // particleDecide's choice, copied here on the GPU every step
          resultInB: settings.substeps % 2,
          sleepSpeed: settings.sleepSpeed,
          sleepTime: settings.sleepTime,
          boxCount,
          boxSlots: this.boxSlots,
          foundSlots: this.foundSlots,
          boxSpeed: 0, // colliderSpeed's, copied here on the GPU every step with boxes
          meshCount,
        }),
      );
    }
  }

  /**
   * Records one step of `settings.substeps` substeps (setStep must have written the same
   * settings). Work per particle: the gather; when it searches, the grid build and two grid
   * searches, else the carry of its list (48 bytes an entry read and written); the split; for a
   * busy particle, the colouring (about 2 + 2·COLOUR_ROUNDS passes over its list's states); then
   * per substep a prepare over its list (48 bytes per entry read, 32 written) and per sweep each
   * pair it owns once (an entry and two bodies read; the bodies and both entries written).
   */
  encode(encoder: GPUCommandEncoder, state: ParticleState, settings: StepSettings, timer?: GpuTimer): void {
    const plan = this.grid.plan;
    if (!plan) throw new Error('the particle grid has no plan');
    const parity = this.parity;
    this.parity = 1 - parity;
    const params = this.buffers.params[parity];
    // This step's parameters: the last setStep's, copied in command order.
    encoder.copyBufferToBuffer(
      this.buffers.paramLog,
      (2 * this.logSlot + parity) * ParticleParams.size,
      params,
      0,
      ParticleParams.size,
    );
    new StepRecorder(this, encoder, state, settings, params, `p${parity}`, timer).record(gridLayoutOf(plan));
  }

  /**
   * Records the last recorded step's box contacts (`kind` 'boxes': vec4<u32> records of particle,
   * box, normal impulse's bits, 0) or mesh contacts ('meshes': particle, mesh, triangle, normal
   * impulse's bits) into `records`, their true count into `counter` (2 u32, cleared here) and the
   * indirect arguments covering them into `dispatch`.
   */
  encodeColliderContacts(
    kind: 'boxes' | 'meshes',
    encoder: GPUCommandEncoder,
    count: number,
    out: { records: GPUBuffer; counter: GPUBuffer; dispatch: GPUBuffer },
  ): void {
    const params = this.buffers.params[1 - this.parity];
    encoder.clearBuffer(out.counter);
    const pass = encoder.beginComputePass({ label: `${kind === 'boxes' ? 'collider' : 'mesh'} contacts` });
    if (kind === 'boxes')
      setPipelineAndGroup(
        pass,
        this.pipelines.fixed.colliderContacts,
        colliderContactsBindings.bind(this.device, 'collider contacts', {
          params,
          slots: this.buffers.slots.buffer,
          records: out.records,
          counter: out.counter,
        }),
      );
    else
      setPipelineAndGroup(
        pass,
        this.pipelines.meshes().contacts,
        meshColliderContactsBindings.bind(this.device, 'mesh contacts', {
          params,
          slots: this.buffers.slots.buffer,
          slotTriangles: this.buffers.slotTriangles.buffer,
          records: out.records,
          counter: out.counter,
        }),
      );
    dispatchFolded(pass, ceilDiv(Math.max(count, 1), WG), this.maxWorkgroupsPerDimension);
    pass.end();
    const args = encoder.beginComputePass({ label: 'collider contacts args' });
    setPipelineAndGroup(
      args,
      this.pipelines.fixed.colliderContactsArgs,
      colliderContactsArgsBindings.bind(this.device, 'collider contacts args', {
        params,
        counter: out.counter,
        args: out.dispatch,
        records: out.records,
      }),
    );
    args.dispatchWorkgroups(1);
    args.end();
  }

  destroy(): void {
    this.binning.destroy();
    this.scan.destroy();
    this.buffers.destroy();
  }
}
