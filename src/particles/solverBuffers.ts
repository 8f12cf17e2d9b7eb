/**
 * The particle solver's GPU buffers: the step's parameters and their log, the bodies the sweeps
 * alternate between, the contact lists and their search, the sleep records, the collider slots,
 * the step's counters and the copies a step that runs again starts from.
 */
import { PARTNERS_KEPT } from '../../shaders/particles/solver.wgsl.js';
import {
  PALETTE,
  COLOUR_ROUNDS,
  BANDS,
  COLOUR_ARGS_WORDS,
  MASK,
  tableWords,
  workWords,
} from '../../shaders/particles/colouring.wgsl.js';
import { BufferUsage } from '../gpu/flags.js';
import { createBuffer, GrowableBuffer } from '../gpu/buffers.js';
import { DispatchGate } from '../gpu/gate.js';
import {
  ParticleParams,
  ParticleBody,
  ParticleContact,
  ParticleWalls,
  ParticleStats,
  ParticleReuse,
  ParticleRest,
  ParticleColliderContact,
} from '../../shaders/particles/layout.js';

/**
 * Step parameters a world keeps in its log (setStep writes a slot; each recorded step copies its
 * slot into the parameter uniform, in command order): so many `encode` calls may be recorded into
 * one encoder, each with its own dt and settings, before it is submitted.
 */
export const PARAM_LOG_SLOTS = 256;

/** Bytes between the pass index's uniform slots (WebGPU's minUniformBufferOffsetAlignment at most). */
const PASS_SLOT = 256;

/** The buffers of a solver of `capacity` particles (by particle index unless said otherwise). */
export class SolverBuffers {
  /** ParticleParams of the step being recorded, one uniform per parity (each step copies its own from the log). */
  readonly params: [GPUBuffer, GPUBuffer];
  /** PARAM_LOG_SLOTS slots of both parities' ParticleParams (setStep writes one; a step copies its own into `params`). */
  readonly paramLog: GPUBuffer;
  /** The stable scatter's particle ids. */
  readonly scratchId: GPUBuffer;
  /** Bodies A and B (ParticleBody, in bucket order): the sweeps read one and write the other. */
  readonly bodies: [GPUBuffer, GPUBuffer];
  /** Per particle in bucket order, then the total: counts, scanned into list starts; then PARTNERS_KEPT partner slots per particle. */
  readonly start: GPUBuffer;
  /** Two halves of list ranges: each step writes one and warm-starts from the other. */
  readonly ranges: GPUBuffer;
  /** ParticleWalls: each particle's wall contacts. */
  readonly walls: GPUBuffer;
  /** ParticleStats: the step's counters. */
  readonly stats: GPUBuffer;
  /** ParticleReuse: the host's `force`, and the counts of steps and searches. */
  readonly reuse: GPUBuffer;
  readonly reuseBackup: GPUBuffer;
  /** Where each particle was (and its reach, −1 if static) at the last search, in that search's order. */
  readonly anchors: GPUBuffer;
  /** ParticleRest (where it ended the last step, its time at rest, whether it slept, its list's length, whether it is static). */
  readonly rest: GPUBuffer;
  readonly restBackup: GPUBuffer;
  /** The search order, the sorted copies and the anchors as a step found them, for `restore`. */
  readonly orderBackup: GPUBuffer;
  /** Indirect dispatch only: the search's and the carry's arguments (particleDecide writes them). */
  readonly gate: DispatchGate;
  /** Indirect dispatch only: the solve's arguments, sized from the busy count (particleBusyArgs). */
  readonly busyArgs: GPUBuffer;
  /** Two halves of ParticleContact list entries: each step writes one and warm-starts from the other. */
  readonly contacts: GrowableBuffer;
  /** Per particle in bucket order, colliderFind's count, then its boxSlots found boxes (grown with the first colliders). */
  readonly found: GrowableBuffer;
  /** Two halves of boxSlots ParticleColliderContact each (grown with the first colliders). */
  readonly slots: GrowableBuffer;
  /** The grid's bucket offsets as the last search left them (colliderCells). */
  readonly savedCells: GrowableBuffer;
  /**
   * The triangle of each collider slot of this step's half that holds one (three vec4f: its
   * vertices in the mesh's frame, mesh, triangle and flags in their w; grown with the first meshes).
   */
  readonly slotTriangles: GrowableBuffer;
  /**
   * The colouring (shaders/particles/colouring.wgsl.ts), per entry of a half: each owned pair's
   * mirror (the partner's entry), each entry's state, and the pair list in colour order (entry,
   * owner); grown with the contacts (`ensureEntries`).
   */
  readonly mirror: GrowableBuffer;
  readonly pairState: GrowableBuffer;
  readonly pairs: GrowableBuffer;
  /** The step's pairs to colour and the colouring's pending lists (colouring.wgsl.ts, workWords). */
  readonly colourWork: GrowableBuffer;
  /** The entries a half the per-entry buffers hold (ensureEntries): the most pairs a step colours. */
  entries = 0;
  /** Per particle in bucket order: its colour masks, overflow pairs, strike speed and claims (MASK.words u32). */
  readonly masks: GPUBuffer;
  /** The colour table: counts, cursors, ranges, the overflow's count and particles (TABLE). */
  readonly colourTable: GPUBuffer;
  /** Indirect arguments of each colour's pairSolve and of the overflow's passes (colourPlan writes them). */
  readonly colourArgs: GPUBuffer;
  /** The overflow's changes of the bodies (ParticleBody, one per overflow particle). */
  readonly delta: GPUBuffer;
  /** The round or colour of each colouring and pair pass: slot i (256 bytes apart) holds i. */
  readonly passIndex: GPUBuffer;
  private readonly passSlots: { buffer: GPUBuffer; offset: number; size: number }[];
  /** The sweeps' slots: a group binds it once, each dispatch picks its (colour, band) by sweepSlot's offset. */
  readonly sweepSlots: { buffer: GPUBuffer; offset: number; size: number };

  constructor(device: GPUDevice, capacity: number, entryCapacity: number) {
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    const uniform = BufferUsage.UNIFORM | BufferUsage.COPY_DST;
    this.params = [
      createBuffer(device, 'particle params even', ParticleParams.size, uniform),
      createBuffer(device, 'particle params odd', ParticleParams.size, uniform),
    ];
    this.paramLog = createBuffer(
      device,
      'particle params log',
      2 * PARAM_LOG_SLOTS * ParticleParams.size,
      BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
    this.scratchId = createBuffer(device, 'particle scratch ids', 4 * capacity, storage);
    this.bodies = [
      createBuffer(device, 'particle bodies A', ParticleBody.size * capacity, storage),
      createBuffer(device, 'particle bodies B', ParticleBody.size * capacity, storage),
    ];
    // The counts (scanned into list starts), then the partners the count keeps for the fill.
    this.start = createBuffer(
      device,
      'particle contact starts',
      4 * (capacity + 1 + PARTNERS_KEPT * capacity),
      storage,
    );
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
    // The busy list's arguments, the settle list's, colliderFindWide's, the boxed list's (LIST_ARGS).
    this.busyArgs = createBuffer(device, 'particle solve dispatch', 96, BufferUsage.STORAGE | BufferUsage.INDIRECT);
    this.contacts = new GrowableBuffer(device, 'particle contacts', storage);
    this.contacts.ensure(2 * entryCapacity * ParticleContact.size);
    // The collider buffers stay this small (the split binds the slots) until a world has boxes.
    this.found = new GrowableBuffer(device, 'collider found', storage);
    this.found.ensure(16);
    this.slots = new GrowableBuffer(device, 'collider slots', storage);
    this.slots.ensure(ParticleColliderContact.size);
    this.savedCells = new GrowableBuffer(device, 'collider saved cells', storage);
    this.slotTriangles = new GrowableBuffer(device, 'collider slot triangles', storage);
    this.slotTriangles.ensure(48);
    this.mirror = new GrowableBuffer(device, 'particle pair mirrors', storage);
    this.pairState = new GrowableBuffer(device, 'particle pair states', storage);
    this.pairs = new GrowableBuffer(device, 'particle pairs by colour', storage);
    this.colourWork = new GrowableBuffer(device, 'particle pairs to colour', storage);
    this.ensureEntries(entryCapacity);
    this.masks = createBuffer(device, 'particle colour masks', 4 * MASK.words * capacity, storage);
    this.colourTable = createBuffer(device, 'particle colour table', 4 * tableWords(capacity), storage);
    this.colourArgs = createBuffer(
      device,
      'particle colour dispatch',
      4 * COLOUR_ARGS_WORDS,
      BufferUsage.STORAGE | BufferUsage.INDIRECT,
    );
    this.delta = createBuffer(device, 'particle overflow changes', ParticleBody.size * capacity, storage);
    // A colour's index, a round's, and the colours the sweeps dispatch one by one (0 to PALETTE);
    // then a sweep's (colour, band) pairs, at dynamic offsets (sweepSlot).
    const slots = Math.max(PALETTE + 1, COLOUR_ROUNDS);
    this.passIndex = createBuffer(device, 'particle pass index', PASS_SLOT * (slots + PALETTE * BANDS), uniform);
    const indices = new Uint32Array((PASS_SLOT / 4) * (slots + PALETTE * BANDS));
    for (let i = 0; i < slots; i++) indices[(PASS_SLOT / 4) * i] = i;
    for (let band = 0; band < BANDS; band++)
      for (let c = 0; c < PALETTE; c++) {
        const at = (PASS_SLOT / 4) * (slots + band * PALETTE + c);
        indices[at] = c;
        indices[at + 1] = band;
      }
    device.queue.writeBuffer(this.passIndex, 0, indices);
    this.sweepSlots = { buffer: this.passIndex, offset: PASS_SLOT * slots, size: 16 };
    this.passSlots = Array.from({ length: slots }, (_, i) => ({
      buffer: this.passIndex,
      offset: PASS_SLOT * i,
      size: 16,
    }));
  }

  /** The colouring's per-entry buffers for `entryCapacity` entries a half. */
  ensureEntries(entryCapacity: number): void {
    this.entries = entryCapacity;
    this.colourWork.ensure(4 * workWords(entryCapacity));
    this.mirror.ensure(4 * entryCapacity);
    this.pairState.ensure(4 * entryCapacity);
    this.pairs.ensure(8 * entryCapacity);
  }

  /** The dynamic offset of a sweep's slot: colour `colour`, the pairs of bands up to `band`. */
  sweepSlot(colour: number, band: number): number {
    return PASS_SLOT * (band * PALETTE + colour);
  }

  /** The uniform binding of pass index `i` (a round or a colour): the same object each call, so that bind groups made with it are cached. */
  passSlot(i: number): { buffer: GPUBuffer; offset: number; size: number } {
    return this.passSlots[i];
  }

  destroy(): void {
    for (const buffer of [
      ...this.params,
      this.paramLog,
      this.scratchId,
      ...this.bodies,
      this.start,
      this.ranges,
      this.walls,
      this.stats,
      this.reuse,
      this.reuseBackup,
      this.anchors,
      this.rest,
      this.restBackup,
      this.orderBackup,
      this.busyArgs,
      this.masks,
      this.colourTable,
      this.colourArgs,
      this.delta,
      this.passIndex,
    ])
      buffer.destroy();
    this.gate.destroy();
    this.contacts.destroy();
    this.found.destroy();
    this.slots.destroy();
    this.savedCells.destroy();
    this.slotTriangles.destroy();
    this.mirror.destroy();
    this.pairState.destroy();
    this.pairs.destroy();
    this.colourWork.destroy();
  }
}
