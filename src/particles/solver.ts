/**
 * ParticleSolver: the passes of one particle-world step (shaders/particles/solver.wgsl.ts),
 * recorded into a caller's encoder with nothing read back. It owns its pipelines, bind group
 * layouts and the solver's GPU buffers; the world (src/particles/world.ts) owns the state.
 *
 * Per step: the gather (the state in the last search's order) and the decision whether to
 * search again; then either the grid's count and scan, the stable scatter and the contact search
 * (count, scan, fill), or the carry of the last lists (the decision, copied on the GPU into the
 * uniforms of those passes, makes one or the other return at once: every pass is a direct
 * dispatch, src/gpu/dispatch.ts's SkipSwitch, unless the world dispatches indirectly: then the
 * gate's arguments, src/gpu/gate.ts, skip them too); then the split (a particle with nothing to solve
 * runs its whole step there, the others go to the busy list); then per substep, over the busy
 * particles (a thread per particle, those past the busy count returning at once; or an indirect
 * dispatch sized by particleBusyArgs): prepare,
 * `iterations` Jacobi sweeps, the last of which integrates; then the
 * write-back of the world's state and of each particle's sleep record (particleSleep, before the
 * split, puts a particle to sleep when it and its partners have been at rest long enough).
 * Buffers that alternate:
 * - bodies A/B: the sweeps read one and write the other;
 * - the halves of `contacts` and `ranges`: each step writes one and warm-starts from the other,
 *   and two uniform parameter blocks (one per parity) say which is which.
 *
 * Over 500 lines: one class records every pass of a step, in order, and owns the buffers they
 * share; the kernels themselves live by stage in shaders/particles/.
 */
import { particleGatherShader, particleDecideShader, particleCarryShader, particleSleepShader, particleSplitShader, particleBusyArgsShader, particleScatterIdsShader, particleStableShader, particleCountShader, particleFillShader, particlePrepareShader, particleIterateShader, particleWriteBackShader, PARTNERS_KEPT } from '../../shaders/particles/solver.wgsl.js';
import { colliderFindShader, colliderListShader, colliderPrepareShader, colliderMoveShader, colliderCellsShader, colliderContactsShader, colliderContactsArgsShader } from '../../shaders/particles/colliders.wgsl.js';
import { gridLayoutOf, gridLayoutName, type GridLayout } from '../../shaders/broadphase/grid/grid.wgsl.js';
import { gatherBindings, decideBindings, carryBindings, scatterIdsBindings, stableBindings, countBindings, fillBindings } from '../../shaders/particles/search.wgsl.js';
import { prepareBindings, iterateBindings, iterateIntegrateBindings, iterateCollidersBindings, iterateIntegrateCollidersBindings, splitBindings, busyArgsBindings } from '../../shaders/particles/solve.wgsl.js';
import { sleepBindings, writeBackBindings } from '../../shaders/particles/sleep.wgsl.js';
import { colliderFindBindings, colliderListBindings, colliderPrepareBindings, colliderCellsBindings, colliderContactsBindings, colliderContactsArgsBindings, colliderMoveBindings } from '../../shaders/particles/colliders.wgsl.js';
import type { Bindings, BindingResource } from '../gpu/kernel.js';
import { computePipeline, setPipelineAndGroup, variant } from '../gpu/pipeline.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, GrowableBuffer, bindingLimit } from '../gpu/buffers.js';
import { DispatchGate } from '../gpu/gate.js';
import type { GpuGrid } from '../broadphase/grid/build.js';
import { createCellBinning, type CellBinning } from '../broadphase/index.js';
import { ExclusiveScanPass } from '../passes/scan.js';
import { packStruct } from '../layout.js';
import { ParticleParams, ParticleBody, ParticleContact, ParticleWalls, ParticleStats, ParticleReuse, ParticleRest, ParticleColliderContact } from '../../shaders/particles/layout.js';
import { CapacityError } from '../errors.js';
import type { GpuTimer } from '../gpu/timer.js';
import { wakeKey, type StepParams } from './step.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.particles;

/** The world's state buffers the solver reads and writes (by particle index). */
export interface ParticleState {
  /** x, y, z, radius per particle. */
  spheres: GPUBuffer;
  /** vx, vy, vz, inverse mass per particle. */
  velocities: GPUBuffer;
  /** Box colliders: poses (centre, half extents, unit quaternion: three vec4 a box) and velocities (linear, angular: two vec4), `count` boxes (0: none). */
  colliders?: { poses: GPUBuffer; velocities: GPUBuffer; count: number };
}

/**
 * Step parameters a world keeps in its log (setStep writes a slot; each recorded step copies its
 * slot into the parameter uniform, in command order): so many `encode` calls may be recorded into
 * one encoder, each with its own dt and settings, before it is submitted.
 */
export const PARAM_LOG_SLOTS = 256;

/** Collider slots a particle starts with (grown when a step finds a particle near more boxes). */
const FIRST_BOX_SLOTS = 4;

/** Solver settings for one step (validated by the world): the CPU twin's, and the count. */
export type StepSettings = StepParams & { count: number };

export class ParticleSolver {
  /** Contact-list entries per half of the contact buffer. */
  entryCapacity: number;
  /**
   * The broad phase that bins the particles by cell (the registry's CellBinning: the grid), from
   * the world's plan (`binning.prepareWith`); the search reads and fills its buffers.
   */
  readonly binning: CellBinning;
  /** Its buffers and plan. */
  readonly grid: GpuGrid;
  readonly stats: GPUBuffer;
  /** ParticleReuse: the host's `force`, and the counts of steps and searches. */
  readonly reuse: GPUBuffer;
  private readonly reuseBackup: GPUBuffer;
  /** Collider slots a particle holds (ParticleColliderContact, in each of two halves). */
  boxSlots = FIRST_BOX_SLOTS;
  /** Per particle in bucket order, colliderFind's count, then its boxSlots found boxes (made with the first colliders). */
  private readonly found: GrowableBuffer;
  /** By particle index, two halves of boxSlots ParticleColliderContact each (made with the first colliders). */
  private readonly slots: GrowableBuffer;
  /** The grid's bucket offsets as the last search left them (colliderCells). */
  private readonly savedCells: GrowableBuffer;
  /** colliderFind per grid layout, made on first use. */
  private readonly findPipelines = new Map<string, GPUComputePipeline>();
  private readonly pipelines: Record<string, GPUComputePipeline>;
  /** The search's count and fill, one pipeline per grid layout (GridLayout), made on first use. */
  private readonly searchPipelines = new Map<string, GPUComputePipeline>();
  private readonly scan: ExclusiveScanPass;
  private readonly params: [GPUBuffer, GPUBuffer];
  /** PARAM_LOG_SLOTS slots of both parities' ParticleParams (setStep writes one; a step copies its own into `params`). */
  private readonly paramLog: GPUBuffer;
  /** The slot of the last setStep. */
  private logSlot = 0;
  private readonly scratchId: GPUBuffer;
  private readonly bodies: [GPUBuffer, GPUBuffer];
  /** Per particle in bucket order, then the total: counts, scanned into list starts; then PARTNERS_KEPT partner slots per particle. */
  private readonly start: GPUBuffer;
  private readonly contacts: GrowableBuffer;
  private readonly ranges: GPUBuffer;
  private readonly walls: GPUBuffer;
  /** Where each particle was (and its reach, −1 if static) at the last search, in that search's order. */
  private readonly anchors: GPUBuffer;
  /** By particle index: ParticleRest (where it ended the last step, its time at rest, whether it slept, its list's length, whether it is static). */
  private readonly rest: GPUBuffer;
  private readonly restBackup: GPUBuffer;
  /** The search order, the sorted copies and the anchors as a step found them, for `restore`. */
  private readonly orderBackup: GPUBuffer;
  /** Indirect dispatch only: the search's and the carry's arguments (particleDecide writes them). */
  private readonly gate: DispatchGate;
  /** Indirect dispatch only: the solve's arguments, sized from the busy count (particleBusyArgs). */
  private readonly busyArgs: GPUBuffer;
  /** The settings that, changed, wake every particle (wakeKey). */
  private waking = '';
  /** The listing settings of the last recorded step: other ones make the next step search. */
  private listing = '';
  /** Bind groups by name, with the buffers they were made of. */
  private groups = new Map<string, { group: GPUBindGroup; resources: BindingResource[] }>();
  /** Which half of the contact and range buffers the next step writes. */
  private parity = 0;

  constructor(
    private readonly device: GPUDevice,
    readonly capacity: number,
    private readonly maxWorkgroupsPerDimension: number,
    /**
     * How the passes that run on part of the particles are dispatched (ParticleWorldOptions'
     * `dispatch`): 'direct', over every particle, the threads with nothing to do returning at
     * once; or 'indirect', sized on the GPU to the work.
     */
    readonly dispatch: 'direct' | 'indirect',
  ) {
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    const make = (decl: Pick<Bindings<string>, 'layout'>, entry: string, code: string): GPUComputePipeline =>
      computePipeline(device, entry, [decl.layout(device, entry)], code, entry, { WG });
    this.pipelines = {
      gather: make(gatherBindings, 'particleGather', particleGatherShader()),
      decide: make(decideBindings, 'particleDecide', particleDecideShader()),
      carry: make(carryBindings, 'particleCarry', particleCarryShader()),
      scatterIds: make(scatterIdsBindings, 'particleScatterIds', particleScatterIdsShader()),
      stable: make(stableBindings, 'particleStable', particleStableShader()),
      prepareFirst: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: true })),
      prepare: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: false })),
      iterate: make(iterateBindings, 'particleIterate', particleIterateShader({ integrate: false })),
      iterateIntegrate: make(iterateIntegrateBindings, 'particleIterate', particleIterateShader({ integrate: true })),
      // Friction 0 (the default): the sweeps without the friction code.
      iterateNoFriction: make(iterateBindings, 'particleIterate', particleIterateShader({ integrate: false, friction: false })),
      iterateIntegrateNoFriction: make(iterateIntegrateBindings, 'particleIterate', particleIterateShader({ integrate: true, friction: false })),
      // With box colliders: the prepare adds colliderPrepare's warm start, the sweeps solve the slots.
      prepareFirstColliders: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: true, colliders: true })),
      prepareColliders: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: false, colliders: true })),
      iterateColliders: make(iterateCollidersBindings, 'particleIterate', particleIterateShader({ integrate: false, colliders: true })),
      iterateIntegrateColliders: make(iterateIntegrateCollidersBindings, 'particleIterate', particleIterateShader({ integrate: true, colliders: true })),
      iterateNoFrictionColliders: make(iterateCollidersBindings, 'particleIterate', particleIterateShader({ integrate: false, friction: false, colliders: true })),
      iterateIntegrateNoFrictionColliders: make(iterateIntegrateCollidersBindings, 'particleIterate', particleIterateShader({ integrate: true, friction: false, colliders: true })),
      colliderList: make(colliderListBindings, 'colliderList', colliderListShader()),
      colliderPrepare: make(colliderPrepareBindings, 'colliderPrepare', colliderPrepareShader()),
      colliderMove: make(colliderMoveBindings, 'colliderMove', colliderMoveShader()),
      colliderCells: make(colliderCellsBindings, 'colliderCells', colliderCellsShader()),
      colliderContacts: make(colliderContactsBindings, 'colliderContacts', colliderContactsShader()),
      colliderContactsArgs: make(colliderContactsArgsBindings, 'colliderContactsArgs', colliderContactsArgsShader()),
      sleep: make(sleepBindings, 'particleSleep', particleSleepShader()),
      split: make(splitBindings, 'particleSplit', particleSplitShader()),
      busyArgs: make(busyArgsBindings, 'particleBusyArgs', particleBusyArgsShader()),
      writeBack: make(writeBackBindings, 'particleWriteBack', particleWriteBackShader()),
    };
    // The plan is always the world's (prepareWith): no plan options of its own.
    this.binning = createCellBinning({ device, maxWorkgroupsPerDimension }, {}, 'particle grid');
    this.grid = this.binning.grid;
    this.scan = new ExclusiveScanPass(device, maxWorkgroupsPerDimension, 'contact scan');
    const uniform = BufferUsage.UNIFORM | BufferUsage.COPY_DST;
    this.params = [createBuffer(device, 'particle params even', ParticleParams.size, uniform), createBuffer(device, 'particle params odd', ParticleParams.size, uniform)];
    this.paramLog = createBuffer(device, 'particle params log', 2 * PARAM_LOG_SLOTS * ParticleParams.size, BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
    this.scratchId = createBuffer(device, 'particle scratch ids', 4 * capacity, storage);
    this.bodies = [createBuffer(device, 'particle bodies A', ParticleBody.size * capacity, storage), createBuffer(device, 'particle bodies B', ParticleBody.size * capacity, storage)];
    // The counts (scanned into list starts), then the partners the count keeps for the fill.
    this.start = createBuffer(device, 'particle contact starts', 4 * (capacity + 1 + PARTNERS_KEPT * capacity), storage);
    this.ranges = createBuffer(device, 'particle contact ranges', 8 * 2 * capacity, storage);
    this.walls = createBuffer(device, 'particle wall contacts', ParticleWalls.size * capacity, storage);
    this.stats = createBuffer(device, 'particle step stats', ParticleStats.size, storage);
    this.reuse = createBuffer(device, 'particle list reuse', ParticleReuse.size, storage);
    this.reuseBackup = createBuffer(device, 'particle list reuse backup', ParticleReuse.size, storage);
    this.anchors = createBuffer(device, 'particle search anchors', 16 * capacity, storage);
    this.rest = createBuffer(device, 'particle rest', ParticleRest.size * capacity, storage);
    this.restBackup = createBuffer(device, 'particle rest backup', ParticleRest.size * capacity, storage);
    this.orderBackup = createBuffer(device, 'particle order backup', 36 * capacity, storage);
    this.gate = new DispatchGate(device, 'particle search gate');
    this.busyArgs = createBuffer(device, 'particle solve dispatch', 16, BufferUsage.STORAGE | BufferUsage.INDIRECT);
    // Room for 8 partners a particle (a packed pile lists 6–12); grown when a step needs more.
    this.entryCapacity = Math.min(8 * capacity, this.maxEntries());
    this.contacts = new GrowableBuffer(device, 'particle contacts', storage);
    this.contacts.ensure(2 * this.entryCapacity * ParticleContact.size);
    // The collider buffers stay this small (the split binds the slots) until a world has boxes.
    this.found = new GrowableBuffer(device, 'collider found', storage);
    this.found.ensure(16);
    this.slots = new GrowableBuffer(device, 'collider slots', storage);
    this.slots.ensure(ParticleColliderContact.size);
    this.savedCells = new GrowableBuffer(device, 'collider saved cells', storage);
  }

  /** Most collider slots a particle can hold (one binding holds both halves of every particle's). */
  maxBoxSlots(): number {
    return Math.floor(bindingLimit(this.device) / (2 * this.capacity * ParticleColliderContact.size));
  }

  /**
   * Makes room for the colliders: `boxSlots` slots a particle (at least the current number).
   * New slots start cold, empty. Throws CapacityError when the device cannot bind that many.
   */
  ensureBoxSlots(slots: number): void {
    const max = this.maxBoxSlots();
    if (slots > max) throw new CapacityError('collider contacts', slots, max, 'the device cannot bind that many collider contacts a particle (boxes near one particle)');
    // More: at least twice as many; fewer than now only where a binding holds no more.
    const grown = slots > this.boxSlots ? Math.min(max, Math.max(slots, 2 * this.boxSlots)) : Math.min(this.boxSlots, max);
    const bytes = 2 * this.capacity * grown * ParticleColliderContact.size;
    if (grown === this.boxSlots && this.slots.buffer.size >= bytes) return;
    this.boxSlots = grown;
    this.found.ensure(4 * this.capacity * (1 + grown));
    this.slots.ensure(bytes);
    this.groups.clear();
    this.emptySlots();
  }

  /** Every collider contact starts again cold (other boxes under the same indices). */
  forgetColliders(): void {
    this.emptySlots();
  }

  /** Marks every particle's collider slots empty, in both halves (through the queue: a cleared slot is empty). */
  private emptySlots(): void {
    const encoder = this.device.createCommandEncoder({ label: 'collider slots' });
    encoder.clearBuffer(this.slots.buffer);
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
    if (entries > max) throw new CapacityError('particle contacts', entries, max, 'the device cannot bind more contact-list entries');
    this.entryCapacity = Math.min(max, Math.max(entries, Math.ceil(this.entryCapacity * 1.25)));
    this.contacts.ensure(2 * this.entryCapacity * ParticleContact.size);
    this.groups.clear();
    // The new lists hold nothing: the next step searches, cold (the counts of steps and
    // searches go on).
    const encoder = this.device.createCommandEncoder({ label: 'particle solver grow' });
    encoder.clearBuffer(this.ranges);
    encoder.clearBuffer(this.walls);
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
    encoder.copyBufferToBuffer(this.reuse, 0, this.reuseBackup, 0, ParticleReuse.size);
    encoder.copyBufferToBuffer(this.rest, 0, this.restBackup, 0, ParticleRest.size * count);
    this.copyOrder(encoder, count, 'save');
  }

  /** Records putting back what `save` copied. */
  restore(encoder: GPUCommandEncoder, count: number): void {
    encoder.copyBufferToBuffer(this.reuseBackup, 0, this.reuse, 0, ParticleReuse.size);
    encoder.copyBufferToBuffer(this.restBackup, 0, this.rest, 0, ParticleRest.size * count);
    this.copyOrder(encoder, count, 'restore');
  }

  /** The search order (4 bytes a particle), sorted copies (16) and anchors (16), into orderBackup or back. */
  private copyOrder(encoder: GPUCommandEncoder, count: number, way: 'save' | 'restore'): void {
    if (!this.grid.plan) return; // no step has run: nothing to compare against yet
    const parts: [GPUBuffer, number, number][] = [[this.grid.sortedId.buffer, 4, 0], [this.grid.sorted.buffer, 16, 4 * this.capacity], [this.anchors, 16, 20 * this.capacity]];
    for (const [buffer, stride, at] of parts) {
      if (way === 'save') encoder.copyBufferToBuffer(buffer, 0, this.orderBackup, at, stride * count);
      else encoder.copyBufferToBuffer(this.orderBackup, at, buffer, 0, stride * count);
    }
  }

  /**
   * Starts particle `id`'s time at rest again (the host set its velocity: set moving, even slower
   * than sleepSpeed, it is awake for the next step). Through the queue.
   */
  unrest(id: number): void {
    this.device.queue.writeBuffer(this.rest, ParticleRest.size * id + ParticleRest.offsets.time, new Float32Array([0]));
  }

  /**
   * Wakes every particle, cold: the times at rest start again, and the next step searches with no
   * warm start (a sleeper's pairs held stale impulses on one side; starting every pair from 0
   * keeps both entries of each equal). Through the queue, ahead of the next submission.
   */
  wake(): void {
    const encoder = this.device.createCommandEncoder({ label: 'particle solver wake' });
    encoder.clearBuffer(this.ranges);
    encoder.clearBuffer(this.rest);
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
    encoder.clearBuffer(this.ranges);
    encoder.clearBuffer(this.walls);
    encoder.clearBuffer(this.reuse);
    encoder.clearBuffer(this.rest);
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
  setStep(settings: StepSettings, boxCount = 0): void {
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
      this.device.queue.writeBuffer(this.paramLog, (2 * this.logSlot + parity) * ParticleParams.size, packStruct(ParticleParams, {
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
        resultInB: (settings.substeps * (1 + settings.iterations)) % 2,
        sleepSpeed: settings.sleepSpeed,
        sleepTime: settings.sleepTime,
        boxCount,
        boxSlots: this.boxSlots,
      }));
    }
  }

  private findPipeline(layout: GridLayout): GPUComputePipeline {
    return variant(this.findPipelines, gridLayoutName(layout), () =>
      computePipeline(this.device, `colliderFind ${gridLayoutName(layout)}`, [colliderFindBindings.layout(this.device, 'colliderFind')], colliderFindShader(layout), 'colliderFind', { WG }));
  }

  private searchPipeline(name: 'count' | 'fill', layout: GridLayout): GPUComputePipeline {
    return variant(this.searchPipelines, `${name} ${gridLayoutName(layout)}`, () => {
      const entry = name === 'count' ? 'particleCount' : 'particleFill';
      const code = name === 'count' ? particleCountShader(layout) : particleFillShader(layout);
      return computePipeline(this.device, `${entry} ${gridLayoutName(layout)}`, [(name === 'count' ? countBindings : fillBindings).layout(this.device, entry)], code, entry, { WG });
    });
  }

  /** The bind group of `decl` for `resources` under `key`, made again when a buffer was replaced (a growable one grew). */
  private group<N extends string>(key: string, decl: Bindings<N>, resources: Readonly<Record<N, BindingResource>>): GPUBindGroup {
    const list = decl.entries.map((e) => resources[e.name]);
    const cached = this.groups.get(key);
    if (cached && cached.resources.every((resource, k) => resource === list[k])) return cached.group;
    const group = decl.bind(this.device, `particle ${key}`, resources);
    this.groups.set(key, { group, resources: list });
    return group;
  }


  /**
   * Records one step of `settings.substeps` substeps (setStep must have written the same
   * settings). Work per particle: the gather; when it searches, the grid build and two grid
   * searches, else the carry of its list (48 bytes an entry read and written); the split; then,
   * for a busy particle, per substep about (1 + iterations) passes over its contact list (48
   * bytes per entry read, 32 written).
   */
  encode(encoder: GPUCommandEncoder, state: ParticleState, settings: StepSettings, timer?: GpuTimer): void {
    const plan = this.grid.plan;
    if (!plan) throw new Error('the particle grid has no plan');
    const grid = this.grid;
    const n = settings.count;
    const workgroups = ceilDiv(n, WG);
    const parity = this.parity;
    this.parity = 1 - parity;
    const params = this.params[parity];
    // This step's parameters: the last setStep's, copied in command order.
    encoder.copyBufferToBuffer(this.paramLog, (2 * this.logSlot + parity) * ParticleParams.size, params, 0, ParticleParams.size);
    const p = `p${parity}`;
    const contacts = this.contacts.buffer;
    const max = this.maxWorkgroupsPerDimension;
    const indirect = this.dispatch === 'indirect';
    /**
     * One pass: one thread ('one'), or a thread per particle (folded), each kernel returning at
     * once where it has nothing to do: the search's kernels on a step that keeps the lists ('on'),
     * the carry on one that searches ('off'; ParticleParams.searching), the solve's past the busy
     * count ('busy'). With indirect dispatch, those run from arguments written on the GPU: the
     * gate's (zero workgroups for the outcome not taken) and particleBusyArgs'.
     */
    const run = (label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, over: 'all' | 'one' | 'on' | 'off' | 'busy' = 'all'): void => {
      const pass = encoder.beginComputePass(timer?.pass(label) ?? { label });
      setPipelineAndGroup(pass, pipeline, group);
      if (over === 'one') pass.dispatchWorkgroups(1);
      else if (!indirect || over === 'all') dispatchFolded(pass, workgroups, max);
      else if (over === 'busy') pass.dispatchWorkgroupsIndirect(this.busyArgs, 0);
      else this.gate.dispatch(pass, workgroups, max, over);
      pass.end();
    };
    // particleDecide's choice, for the shared passes that run on a search only.
    const skipSearch = { buffer: this.reuse, offset: ParticleReuse.offsets.skipSearch };
    const searching = indirect ? (pass: GPUComputePassEncoder, groups: number): void => this.gate.dispatch(pass, groups, max, 'on') : undefined;

    encoder.clearBuffer(this.stats, 0, ParticleStats.offsets.entriesNeeded); // largest speed, touching pairs, moves
    const [A, B] = this.bodies;
    run('particle gather', this.pipelines.gather, this.group(`gather ${p}`, gatherBindings, { params, spheres: state.spheres, velocities: state.velocities, sortedId: grid.sortedId.buffer, sorted: grid.sorted.buffer, bodies: A, anchors: this.anchors, stats: this.stats, rest: this.rest }));
    run('particle decide', this.pipelines.decide, this.group(`decide ${p}`, decideBindings, { params, stats: this.stats, reuse: this.reuse, gateTemplate: this.gate.template, gateArgs: this.gate.args, start: this.start }), 'one');
    encoder.copyBufferToBuffer(this.reuse, ParticleReuse.offsets.searching, params, ParticleParams.offsets.searching, 4);
    // Either the search (the grid, the stable order, the lists) or the carry of the last lists.
    this.gate.begin();
    this.binning.encodeBinning(encoder, state.spheres, timer, skipSearch, searching);
    run('particle scatter', this.pipelines.scatterIds, this.group(`scatter ${p}`, scatterIdsBindings, { grid: grid.params, params, keys: grid.keys.buffer, cellStart: grid.cellStart.buffer, scratchId: this.scratchId, velocities: state.velocities, stats: this.stats }), 'on');
    run('particle stable sort', this.pipelines.stable, this.group(`stable ${p}`, stableBindings, { grid: grid.params, params, keys: grid.keys.buffer, cellStart: grid.cellStart.buffer, scratchId: this.scratchId, spheres: state.spheres, velocities: state.velocities, sorted: grid.sorted.buffer, bodies: A, sortedId: grid.sortedId.buffer }), 'on');
    const layout = gridLayoutOf(plan);
    run('contact count', this.searchPipeline('count', layout), this.group(`count ${p}`, countBindings, { grid: grid.params, params, cellStart: grid.cellStart.buffer, sorted: grid.sorted.buffer, bodies: A, counts: this.start, stats: this.stats, anchors: this.anchors }), 'on');
    this.scan.encode(encoder, this.start, n, timer, skipSearch, searching, this.capacity); // the counts; the kept partners follow them
    run('contact fill', this.searchPipeline('fill', layout), this.group(`fill ${p}`, fillBindings, { grid: grid.params, params, cellStart: grid.cellStart.buffer, sorted: grid.sorted.buffer, bodies: A, sortedId: grid.sortedId.buffer, start: this.start, contacts, ranges: this.ranges, stats: this.stats }), 'on');
    run('contact carry', this.pipelines.carry, this.group(`carry ${p}`, carryBindings, { params, sortedId: grid.sortedId.buffer, start: this.start, contacts, ranges: this.ranges }), 'off');
    this.gate.finish();

    // Box colliders: each box's particles into their slots, by box index, warm (colliderFind, colliderList).
    const colliders = state.colliders && state.colliders.count > 0 ? state.colliders : null;
    const boxGroups = colliders ? ceilDiv(colliders.count, WG) : 0;
    const runBoxes = (label: string, pipeline: GPUComputePipeline, group: GPUBindGroup): void => {
      const pass = encoder.beginComputePass(timer?.pass(label) ?? { label });
      setPipelineAndGroup(pass, pipeline, group);
      dispatchFolded(pass, boxGroups, max);
      pass.end();
    };
    if (colliders) {
      // The grid build cleared the offsets even if it did not search: the last search's, back.
      const cells = grid.cellStart.buffer;
      this.savedCells.ensure(cells.size);
      const pass = encoder.beginComputePass(timer?.pass('collider cells') ?? { label: 'collider cells' });
      setPipelineAndGroup(pass, this.pipelines.colliderCells, this.group(`collider cells ${p}`, colliderCellsBindings, { params, cellStart: cells, saved: this.savedCells.buffer }));
      dispatchFolded(pass, ceilDiv(cells.size / 4, WG), max);
      pass.end();
      encoder.clearBuffer(this.found.buffer, 0, 4 * n);
      runBoxes('collider find', this.findPipeline(layout), this.group(`collider find ${p}`, colliderFindBindings, { grid: grid.params, params, colliderPoses: colliders.poses, colliderVelocities: colliders.velocities, cellStart: grid.cellStart.buffer, current: grid.sorted.buffer, bodies: A, found: this.found.buffer, stats: this.stats, anchors: this.anchors }));
      run('collider list', this.pipelines.colliderList, this.group(`collider list ${p}`, colliderListBindings, { params, sortedId: grid.sortedId.buffer, sorted: grid.sorted.buffer, found: this.found.buffer, slots: this.slots.buffer, colliderPoses: colliders.poses, colliderVelocities: colliders.velocities, rest: this.rest }));
    }

    // Sleepers, and the warm start of particles woken or made dynamic (also with sleep off, when
    // none sleeps); then the particles with something to solve go to the busy list (in the starts'
    // scratch, after the count), and the others run their whole step in the split.
    run('particle sleep', this.pipelines.sleep, this.group(`sleep ${p}`, sleepBindings, { params, sorted: grid.sorted.buffer, sortedId: grid.sortedId.buffer, start: this.start, bodiesA: A, bodiesB: B, contacts, rest: this.rest, stats: this.stats }));
    encoder.clearBuffer(this.start, 4 * (n + 1), 4);
    run('particle split', this.pipelines.split, this.group(`split ${p}`, splitBindings, { params, sorted: grid.sorted.buffer, sortedId: grid.sortedId.buffer, start: this.start, bodiesA: A, bodiesB: B, walls: this.walls, slots: this.slots.buffer }));
    if (indirect) run('particle busy args', this.pipelines.busyArgs, this.group(`busyArgs ${p}`, busyArgsBindings, { params, start: this.start, args: this.busyArgs }), 'one');

    const step = (bodiesIn: GPUBuffer, bodiesOut: GPUBuffer) => ({ params, sorted: grid.sorted.buffer, sortedId: grid.sortedId.buffer, start: this.start, bodiesIn, bodiesOut, contacts, walls: this.walls });
    let current = 0; // A holds the bodies
    const sweeps = settings.friction > 0 ? '' : 'NoFriction';
    const withBoxes = colliders ? 'Colliders' : '';
    const sweep = (integrate: boolean, i: GPUBuffer, o: GPUBuffer): GPUBindGroup => {
      const name = `iterate${integrate ? 'Integrate' : ''}${withBoxes} ${p} ${current}`;
      if (colliders) return this.group(name, integrate ? iterateIntegrateCollidersBindings : iterateCollidersBindings, { ...step(i, o), slots: this.slots.buffer });
      return this.group(name, integrate ? iterateIntegrateBindings : iterateBindings, step(i, o));
    };
    for (let sub = 0; sub < settings.substeps; sub++) {
      const [from, to] = current === 0 ? [A, B] : [B, A];
      if (colliders) {
        run('collider prepare', this.pipelines.colliderPrepare, this.group(`collider prepare ${p} ${current}`, colliderPrepareBindings, { params, sorted: grid.sorted.buffer, sortedId: grid.sortedId.buffer, start: this.start, bodies: from, slots: this.slots.buffer, colliderPoses: colliders.poses, colliderVelocities: colliders.velocities }), 'busy');
      }
      run('solver prepare', this.pipelines[`prepare${sub === 0 ? 'First' : ''}${withBoxes}`], this.group(`prepare ${p} ${current}`, prepareBindings, { ...step(from, to), stats: this.stats }), 'busy');
      current = 1 - current;
      for (let k = 0; k < settings.iterations; k++) {
        const [i, o] = current === 0 ? [A, B] : [B, A];
        if (k < settings.iterations - 1) {
          run('solver iterate', this.pipelines[`iterate${sweeps}${withBoxes}`], sweep(false, i, o), 'busy');
        } else {
          run('solver iterate + integrate', this.pipelines[`iterateIntegrate${sweeps}${withBoxes}`], sweep(true, i, o), 'busy');
        }
        current = 1 - current;
      }
      if (colliders) runBoxes('collider move', this.pipelines.colliderMove, this.group(`collider move ${p}`, colliderMoveBindings, { params, colliderPoses: colliders.poses, colliderVelocities: colliders.velocities }));
    }
    const result = current === 0 ? A : B;
    run('solver write back', this.pipelines.writeBack, this.group(`writeBack ${p} ${current}`, writeBackBindings, { params, sorted: grid.sorted.buffer, sortedId: grid.sortedId.buffer, bodies: result, spheres: state.spheres, velocities: state.velocities, rest: this.rest }));
  }

  /**
   * Records the last recorded step's collider contacts into `records` (vec4<u32>: particle, box,
   * normal impulse's bits, 0), their true count into `counter` (2 u32, cleared here) and the
   * indirect arguments covering them into `dispatch`.
   */
  encodeColliderContacts(encoder: GPUCommandEncoder, count: number, out: { records: GPUBuffer; counter: GPUBuffer; dispatch: GPUBuffer }): void {
    const params = this.params[1 - this.parity];
    encoder.clearBuffer(out.counter);
    const pass = encoder.beginComputePass({ label: 'collider contacts' });
    setPipelineAndGroup(pass, this.pipelines.colliderContacts, colliderContactsBindings.bind(this.device, 'collider contacts', { params, slots: this.slots.buffer, records: out.records, counter: out.counter }));
    dispatchFolded(pass, ceilDiv(Math.max(count, 1), WG), this.maxWorkgroupsPerDimension);
    pass.end();
    const args = encoder.beginComputePass({ label: 'collider contacts args' });
    setPipelineAndGroup(args, this.pipelines.colliderContactsArgs, colliderContactsArgsBindings.bind(this.device, 'collider contacts args', { params, counter: out.counter, args: out.dispatch, records: out.records }));
    args.dispatchWorkgroups(1);
    args.end();
  }

  destroy(): void {
    this.binning.destroy();
    this.scan.destroy();
    for (const buffer of [...this.params, this.paramLog, this.scratchId, ...this.bodies, this.start, this.ranges, this.walls, this.stats, this.reuse, this.reuseBackup, this.anchors, this.rest, this.restBackup, this.orderBackup, this.busyArgs]) buffer.destroy();
    this.gate.destroy();
    this.contacts.destroy();
    this.found.destroy();
    this.slots.destroy();
    this.savedCells.destroy();
  }
}
