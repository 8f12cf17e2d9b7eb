/**
 * The recording of one particle step's passes, in order (shaders/particles/solver.wgsl.ts has
 * the kernels' overview): the search or the carry of the last lists, the box colliders' lists,
 * the sleep and the split, the substeps' prepares and sweeps, the write-back.
 */
import type { GridLayout } from '../../shaders/spatial/grid.wgsl.js';
import {
  gatherBindings,
  decideBindings,
  carryBindings,
  scatterIdsBindings,
  stableBindings,
  reachBindings,
  countBindings,
  fillBindings,
} from '../../shaders/particles/search.wgsl.js';
import { prepareBindings } from '../../shaders/particles/substep.wgsl.js';
import { prepareWallsBindings } from '../../shaders/particles/walls.wgsl.js';
import { splitBindings, busyArgsBindings } from '../../shaders/particles/split.wgsl.js';
import { LIST_ARGS } from '../../shaders/particles/layout.js';
import { sleepBindings, writeBackBindings } from '../../shaders/particles/sleep.wgsl.js';
import { colliderPrepareBindings } from '../../shaders/particles/colliders.wgsl.js';
import { colliderMoveBindings } from '../../shaders/particles/boxMotion.wgsl.js';
import { ParticleParams, ParticleStats, ParticleReuse } from '../../shaders/particles/layout.js';
import { setPipelineAndGroup } from '../gpu/pipeline.js';
import { dispatchFolded, ceilDiv } from '../gpu/dispatch.js';
import type { GpuTimer } from '../gpu/timer.js';
import type { GpuGrid } from '../passes/gridBuild.js';
import type { CellBinning } from '../broadphase/index.js';
import type { ExclusiveScanPass } from '../passes/scan.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import type { StepParams } from './step.js';
import type { SolverBuffers } from './solverBuffers.js';
import type { SolverPipelines, BindGroupCache } from './solverPipelines.js';
import { recordColliderSpeed, recordColliderLists, type StepColliders } from './recordColliders.js';
import { recordColouring, recordSweep } from './recordSweeps.js';

const WG = WORKGROUP_SIZE.particles;

/** The world's state buffers the solver reads and writes (by particle index). */
export interface ParticleState {
  /** x, y, z, radius per particle. */
  spheres: GPUBuffer;
  /** vx, vy, vz, inverse mass per particle. */
  velocities: GPUBuffer;
  /** The colliders: boxes, then meshes. */
  colliders?: StepColliders;
}

/** Solver settings for one step (validated by the world): the CPU twin's, and the count. */
export type StepSettings = StepParams & { count: number };

/** What a step's passes run with: the solver's buffers, pipelines and bind groups, its broad phase and scan. */
export interface SolverParts {
  readonly capacity: number;
  readonly maxWorkgroupsPerDimension: number;
  readonly dispatch: 'direct' | 'indirect';
  readonly buffers: SolverBuffers;
  readonly pipelines: SolverPipelines;
  readonly groups: BindGroupCache;
  readonly binning: CellBinning;
  readonly grid: GpuGrid;
  readonly scan: ExclusiveScanPass;
  /** The colours the sweeps dispatch one by one (the rest in one workgroup: src/particles/recordSweeps.ts). */
  readonly colourSlots: number;
}

/** The box colliders a step solves against. */
type Boxes = NonNullable<ParticleState['colliders']>;

/**
 * Records one step's passes into an encoder: made for the step, with the parameter uniform of its
 * parity (`params`, already copied from the log) and that parity's name for its bind groups (`p`).
 */
export class StepRecorder {
  /** @internal The particles (for the colliders' recording: ./recordColliders.ts). */
  readonly n: number;
  private readonly workgroups: number;
  private readonly max: number;
  readonly indirect: boolean;

  constructor(
    readonly parts: SolverParts,
    readonly encoder: GPUCommandEncoder,
    private readonly state: ParticleState,
    /** @internal The step's settings (for the sweeps' recording: ./recordSweeps.ts). */
    readonly settings: StepSettings,
    readonly params: GPUBuffer,
    readonly p: string,
    /** @internal The pass timer, when the step is profiled. */
    readonly timer?: GpuTimer,
  ) {
    this.n = settings.count;
    this.workgroups = ceilDiv(this.n, WG);
    this.max = parts.maxWorkgroupsPerDimension;
    this.indirect = parts.dispatch === 'indirect';
  }

  /** @internal The colours the sweeps dispatch one by one (for ./recordSweeps.ts). */
  get colourSlots(): number {
    return this.parts.colourSlots;
  }

  /** Records the whole step: search or carry, colliders, sleep and split, substeps, write-back. */
  record(layout: GridLayout): void {
    const c = this.state.colliders;
    const colliders = c && c.count + c.meshes.length > 0 ? c : null;
    const b = this.parts.buffers;
    this.encoder.clearBuffer(b.stats, 0, ParticleStats.offsets.entriesNeeded); // largest speeds, touching pairs, moves
    if (colliders) recordColliderSpeed(this, colliders);
    this.search(layout);
    if (colliders) recordColliderLists(this, colliders, layout);
    this.split();
    this.substeps(colliders);
  }

  /**
   * One pass: one thread ('one'), or a thread per particle (folded), each kernel returning at
   * once where it has nothing to do: the search's kernels on a step that keeps the lists ('on'),
   * the carry on one that searches ('off'; ParticleParams.searching), the solve's past the busy
   * count ('busy'). With indirect dispatch, those run from arguments written on the GPU: the
   * gate's (zero workgroups for the outcome not taken) and particleBusyArgs'.
   */
  run(
    label: string,
    pipeline: GPUComputePipeline,
    group: GPUBindGroup,
    over: 'all' | 'one' | 'on' | 'off' | 'busy' | 'settle' | 'settleWalls' | 'wide' | 'boxed' | 'walled' = 'all',
  ): void {
    const pass = this.encoder.beginComputePass(this.timer?.pass(label) ?? { label });
    setPipelineAndGroup(pass, pipeline, group);
    if (over === 'one') pass.dispatchWorkgroups(1);
    else if (!this.indirect || over === 'all') dispatchFolded(pass, this.workgroups, this.max);
    else if (over !== 'on' && over !== 'off')
      pass.dispatchWorkgroupsIndirect(this.parts.buffers.busyArgs, 4 * LIST_ARGS[over]);
    else this.parts.buffers.gate.dispatch(pass, this.workgroups, this.max, over);
    pass.end();
  }

  /** One dispatch over a list of no more than the step's particles (SweepRecorder.dispatchList). */
  dispatchList(pass: GPUComputePassEncoder, args: GPUBuffer, offset: number): void {
    if (this.indirect) pass.dispatchWorkgroupsIndirect(args, offset);
    else dispatchFolded(pass, this.workgroups, this.max);
  }

  /** One dispatch over a list of the step's pairs (SweepRecorder.dispatchPairs). */
  dispatchPairs(pass: GPUComputePassEncoder, args: GPUBuffer, offset: number): void {
    if (this.indirect) pass.dispatchWorkgroupsIndirect(args, offset);
    else dispatchFolded(pass, ceilDiv(this.parts.buffers.entries, WG), this.max);
  }

  /** One pass of `groups` workgroups. */
  runGroups(label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, groups: number): void {
    const pass = this.encoder.beginComputePass(this.timer?.pass(label) ?? { label });
    setPipelineAndGroup(pass, pipeline, group);
    dispatchFolded(pass, groups, this.max);
    pass.end();
  }

  /** The gather and the decision, then either the search (the grid, the stable order, the lists) or the carry of the last lists. */
  private search(layout: GridLayout): void {
    const { encoder, params, p, state, n } = this;
    const { buffers: b, pipelines, groups, grid } = this.parts;
    const max = this.max;
    const contacts = b.contacts.buffer;
    // particleDecide's choice, for the shared passes that run on a search only.
    const skipSearch = { buffer: b.reuse, offset: ParticleReuse.offsets.skipSearch };
    const searching = this.indirect
      ? (pass: GPUComputePassEncoder, count: number): void => b.gate.dispatch(pass, count, max, 'on')
      : undefined;
    const A = b.bodies[0];
    this.run(
      'particle gather',
      pipelines.fixed.gather,
      groups.get(`gather ${p}`, gatherBindings, {
        params,
        spheres: state.spheres,
        velocities: state.velocities,
        sortedId: grid.sortedId.buffer,
        sorted: grid.sorted.buffer,
        bodies: A,
        anchors: b.anchors,
        stats: b.stats,
        rest: b.rest,
      }),
    );
    this.run(
      'particle decide',
      pipelines.fixed.decide,
      groups.get(`decide ${p}`, decideBindings, {
        params,
        stats: b.stats,
        reuse: b.reuse,
        gateTemplate: b.gate.template,
        gateArgs: b.gate.args,
        start: b.start,
      }),
      'one',
    );
    encoder.copyBufferToBuffer(b.reuse, ParticleReuse.offsets.searching, params, ParticleParams.offsets.searching, 4);
    b.gate.begin();
    this.parts.binning.encodeBinning(encoder, state.spheres, this.timer, skipSearch, searching);
    this.run(
      'particle scatter',
      pipelines.fixed.scatterIds,
      groups.get(`scatter ${p}`, scatterIdsBindings, {
        grid: grid.params,
        params,
        keys: grid.keys.buffer,
        cellStart: grid.cellStart.buffer,
        scratchId: b.scratchId,
        velocities: state.velocities,
        stats: b.stats,
      }),
      'on',
    );
    this.run(
      'particle stable sort',
      pipelines.fixed.stable,
      groups.get(`stable ${p}`, stableBindings, {
        grid: grid.params,
        params,
        keys: grid.keys.buffer,
        cellStart: grid.cellStart.buffer,
        scratchId: b.scratchId,
        spheres: state.spheres,
        velocities: state.velocities,
        sorted: grid.sorted.buffer,
        bodies: A,
        sortedId: grid.sortedId.buffer,
      }),
      'on',
    );
    this.run(
      'particle reach',
      pipelines.fixed.reach,
      groups.get(`reach ${p}`, reachBindings, { params, sorted: grid.sorted.buffer, bodies: A, anchors: b.anchors }),
      'on',
    );
    this.run(
      'contact count',
      pipelines.search('count', layout),
      groups.get(`count ${p}`, countBindings, {
        grid: grid.params,
        params,
        cellStart: grid.cellStart.buffer,
        sorted: grid.sorted.buffer,
        anchors: b.anchors,
        counts: b.start,
        stats: b.stats,
      }),
      'on',
    );
    this.parts.scan.encode(encoder, b.start, n, this.timer, skipSearch, searching, this.parts.capacity); // the counts; the kept partners follow them
    this.run(
      'contact fill',
      pipelines.search('fill', layout),
      groups.get(`fill ${p}`, fillBindings, {
        grid: grid.params,
        params,
        cellStart: grid.cellStart.buffer,
        sorted: grid.sorted.buffer,
        anchors: b.anchors,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        contacts,
        ranges: b.ranges,
        stats: b.stats,
      }),
      'on',
    );
    this.run(
      'contact carry',
      pipelines.fixed.carry,
      groups.get(`carry ${p}`, carryBindings, {
        params,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        contacts,
        ranges: b.ranges,
      }),
      'off',
    );
    b.gate.finish();
  }

  /**
   * Sleepers, and the warm start of particles woken or made dynamic (also with sleep off, when
   * none sleeps); then the particles with something to solve go to the busy list (in the starts'
   * scratch, after the count), and the others run their whole step in the split.
   */
  private split(): void {
    const { encoder, params, p, n } = this;
    const { buffers: b, pipelines, groups, grid } = this.parts;
    const [A, B] = b.bodies;
    const contacts = b.contacts.buffer;
    this.run(
      'particle sleep',
      pipelines.fixed.sleep,
      groups.get(`sleep ${p}`, sleepBindings, {
        params,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        bodiesA: A,
        bodiesB: B,
        contacts,
        rest: b.rest,
        stats: b.stats,
      }),
    );
    encoder.clearBuffer(b.start, 4 * (n + 1), 4); // the busy list's length
    encoder.clearBuffer(b.start, 4 * (4 * n + 3), 4); // the boxed list's (shaders/particles/colliders.wgsl.ts, boxedList)
    this.run(
      'particle split',
      pipelines.fixed.split,
      groups.get(`split ${p}`, splitBindings, {
        params,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        bodiesA: A,
        bodiesB: B,
        walls: b.walls,
        contacts,
        slots: b.slots.buffer,
      }),
    );
    if (this.indirect)
      this.run(
        'particle busy args',
        pipelines.fixed.busyArgs,
        groups.get(`busyArgs ${p}`, busyArgsBindings, { params, start: b.start, args: b.busyArgs }),
        'one',
      );
  }

  /**
   * Per substep, over the busy particles: the colliders' prepare, the prepare (from one bodies
   * buffer into the other; after the first, the colouring), `iterations` sweeps in place (the
   * last integrates), the kinematic boxes moved; then the write-back from whichever holds the
   * result.
   */
  private substeps(colliders: Boxes | null): void {
    const { params, p, settings } = this;
    const { buffers: b, pipelines, groups, grid } = this.parts;
    const [A, B] = b.bodies;
    const contacts = b.contacts.buffer;
    const boxGroups = colliders ? ceilDiv(colliders.count + colliders.meshes.length, WG) : 0;
    let current = 0; // A holds the bodies
    const withBoxes = colliders ? 'Colliders' : '';
    for (let sub = 0; sub < settings.substeps; sub++) {
      const [from, to] = current === 0 ? [A, B] : [B, A];
      if (colliders) {
        this.run(
          'collider prepare',
          colliders.meshes.length > 0 ? pipelines.meshes().prepare : pipelines.fixed.colliderPrepare,
          groups.get(`collider prepare ${p} ${current}`, colliderPrepareBindings, {
            params,
            sorted: grid.sorted.buffer,
            sortedId: grid.sortedId.buffer,
            start: b.start,
            bodies: from,
            slots: b.slots.buffer,
            colliderPoses: colliders.poses,
            colliderVelocities: colliders.velocities,
            slotTriangles: b.slotTriangles.buffer,
          }),
          'boxed',
        );
      }
      // What both prepares read and write (shaders/particles/common.wgsl.ts, substepPrepare).
      const prepared = {
        params,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        bodiesIn: from,
        bodiesOut: to,
      };
      this.encoder.clearBuffer(b.start, 4 * (2 * this.n + 2), 4); // the settle list's length
      this.encoder.clearBuffer(b.start, 4 * (5 * this.n + 4), 4); // the walled list's (walls.wgsl.ts, walledList)
      this.encoder.clearBuffer(b.start, 4 * (6 * this.n + 5), 4); // the wall settle list's (walls.wgsl.ts)
      this.run(
        sub === 0 ? 'solver prepare first' : 'solver prepare',
        pipelines.fixed[`prepare${sub === 0 ? 'First' : ''}${withBoxes}`],
        groups.get(`prepare ${p} ${current}`, prepareBindings, {
          ...prepared,
          contacts,
          stats: b.stats,
          walls: b.walls,
        }),
        'busy',
      );
      if (this.settings.bounds && this.indirect)
        this.run(
          'particle walled args',
          pipelines.fixed.walledArgs,
          groups.get(`walledArgs ${p}`, busyArgsBindings, { params, start: b.start, args: b.busyArgs }),
          'one',
        );
      if (this.settings.bounds)
        this.run(
          'solver prepare walls',
          pipelines.fixed.prepareWalls,
          groups.get(`prepareWalls ${p} ${current}`, prepareWallsBindings, { ...prepared, walls: b.walls }),
          'walled',
        );
      if (this.indirect)
        this.run(
          'particle settle args',
          pipelines.fixed.settleArgs,
          groups.get(`settleArgs ${p}`, busyArgsBindings, { params, start: b.start, args: b.busyArgs }),
          'one',
        );
      current = 1 - current;
      if (sub === 0) recordColouring(this, to);
      for (let k = 0; k < settings.iterations; k++)
        recordSweep(this, to, sub, k === settings.iterations - 1, colliders);
      if (colliders)
        this.runGroups(
          'collider move',
          pipelines.fixed.colliderMove,
          groups.get(`collider move ${p}`, colliderMoveBindings, {
            params,
            colliderPoses: colliders.poses,
            colliderVelocities: colliders.velocities,
          }),
          boxGroups,
        );
    }
    const result = current === 0 ? A : B;
    this.run(
      'solver write back',
      pipelines.fixed.writeBack,
      groups.get(`writeBack ${p} ${current}`, writeBackBindings, {
        params,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
        bodies: result,
        spheres: this.state.spheres,
        velocities: this.state.velocities,
        rest: b.rest,
      }),
    );
  }
}
