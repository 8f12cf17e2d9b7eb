/**
 * The recording of a step's colouring and sweeps (src/particles/recordStep.ts records the rest):
 * once a step, after the first prepare, the colouring of the pairs; per sweep, the colours' pair
 * solves and the overflow's in one pass, then each particle's walls and collider contacts, and
 * after a substep's last sweep the integration. Kernels: shaders/particles/colouring.wgsl.ts,
 * pairs.wgsl.ts, walls.wgsl.ts (particleSettleWalls) and substep.wgsl.ts (particleSettle,
 * particleIntegrate).
 */
import { settleBindings, integrateBindings } from '../../shaders/particles/substep.wgsl.js';
import { settleWallsBindings } from '../../shaders/particles/walls.wgsl.js';
import {
  colourStartBindings,
  colourTentativeBindings,
  colourResolveBindings,
  COLOUR_ROUNDS,
  PALETTE,
  BANDS,
  TABLE,
  ARGS,
} from '../../shaders/particles/colouring.wgsl.js';
import {
  colourRoundArgsBindings,
  colourCountBindings,
  colourPlanBindings,
  colourScatterBindings,
} from '../../shaders/particles/colourPlan.wgsl.js';
import {
  pairSolveBindings,
  pairSolveTailBindings,
  overflowSolveBindings,
  overflowApplyBindings,
} from '../../shaders/particles/pairs.wgsl.js';
import { setPipelineAndGroup } from '../gpu/pipeline.js';
import type { GpuTimer } from '../gpu/timer.js';
import type { StepColliders, RecorderParts } from './recordColliders.js';

/** What the colouring and the sweeps are recorded with: the step's recorder (src/particles/recordStep.ts). */
export interface SweepRecorder {
  readonly parts: RecorderParts;
  readonly encoder: GPUCommandEncoder;
  readonly params: GPUBuffer;
  readonly p: string;
  /** The colours the sweeps dispatch one by one; the rest are the tail's (src/particles/solver.ts, colourSlots). */
  readonly colourSlots: number;
  readonly timer?: GpuTimer;
  /**
   * One pass over the busy particles ('busy'), the substep's settle list ('settle') or wall
   * settle list ('settleWalls'), or of one thread ('one').
   */
  run(
    label: string,
    pipeline: GPUComputePipeline,
    group: GPUBindGroup,
    over: 'busy' | 'settle' | 'settleWalls' | 'one',
  ): void;
  /** The step's settings: whether the world has walls (`bounds`). */
  readonly settings: { readonly friction: number; readonly bounds: readonly number[] | null };
  /**
   * Whether the lists' dispatches are sized on the GPU (indirect), or cover every particle, the
   * threads past a list's length returning at once (direct: no indirect dispatch, which WebGPU
   * validates with a dispatch of its own and a barrier: on an H200 that made the pour's step
   * 16 times slower).
   */
  readonly indirect: boolean;
  /**
   * One dispatch over a list of no more than the step's particles: from the arguments at
   * `offset` of `args` where indirect, else over every particle.
   */
  dispatchList(pass: GPUComputePassEncoder, args: GPUBuffer, offset: number): void;
  /**
   * One dispatch over a list of the step's pairs (colouring.wgsl.ts, `work`): from the arguments
   * at `offset` of `args` where indirect, else over as many pairs as the lists' entries.
   */
  dispatchPairs(pass: GPUComputePassEncoder, args: GPUBuffer, offset: number): void;
}

/**
 * The colouring of the step's pairs (after the first prepare, on the bodies it wrote): the
 * start (which lists them), COLOUR_ROUNDS rounds of picks and their resolution over the pairs
 * still to colour, the counts, the plan (each colour's range and dispatch) and the scatter into
 * the pair list by colour.
 */
export function recordColouring(rec: SweepRecorder, bodies: GPUBuffer): void {
  const { params, p, encoder } = rec;
  const { buffers: b, pipelines, groups, grid } = rec.parts;
  const common = {
    params,
    start: b.start,
    contacts: b.contacts.buffer,
    bodies,
    state: b.pairState.buffer,
    masks: b.masks,
    mirror: b.mirror.buffer,
    table: b.colourTable,
    work: b.colourWork.buffer,
  };
  const name = (kernel: string) => `${kernel} ${p} ${bodies === b.bodies[0] ? 'A' : 'B'}`;
  encoder.clearBuffer(b.colourTable, 0, 4 * TABLE.list); // counts, cursors, ranges, the overflow's, the pending lists' and the pair list's lengths
  rec.run(
    'colour start',
    pipelines.fixed.colourStart,
    groups.get(name('colourStart'), colourStartBindings, common),
    'busy',
  );
  // One thread between the rounds: the next round's arguments, and its pending list emptied
  // (also where the dispatches are direct: the lists' lengths bound them).
  const args = (label: string, pipeline: GPUComputePipeline, round: number): void =>
    rec.run(
      label,
      pipeline,
      groups.get(`${label} ${p} ${round}`, colourRoundArgsBindings, {
        params,
        slot: b.passSlot(round),
        table: b.colourTable,
        args: b.colourArgs,
      }),
      'one',
    );
  args('colour work args', pipelines.fixed.colourWorkArgs, 0);
  const ids = { ...common, sortedId: grid.sortedId.buffer };
  const overPairs = (label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, offset: number): void => {
    const pass = encoder.beginComputePass(rec.timer?.pass(label) ?? { label });
    setPipelineAndGroup(pass, pipeline, group);
    rec.dispatchPairs(pass, b.colourArgs, offset);
    pass.end();
  };
  for (let round = 0; round < COLOUR_ROUNDS; round++) {
    const slot = b.passSlot(round);
    overPairs(
      'colour pick',
      pipelines.fixed.colourTentative,
      groups.get(`${name('colourTentative')} ${round}`, colourTentativeBindings, { ...ids, slot }),
      12 * ARGS.round,
    );
    overPairs(
      'colour resolve',
      pipelines.fixed.colourResolve,
      groups.get(`${name('colourResolve')} ${round}`, colourResolveBindings, { ...ids, slot }),
      12 * ARGS.round,
    );
    if (round < COLOUR_ROUNDS - 1) args('colour round args', pipelines.fixed.colourRoundArgs, round);
  }
  overPairs(
    'colour count',
    pipelines.fixed.colourCount,
    groups.get(name('colourCount'), colourCountBindings, { ...common, sorted: grid.sorted.buffer }),
    12 * ARGS.work,
  );
  rec.run(
    'colour plan',
    pipelines.fixed.colourPlan,
    groups.get(`colourPlan ${p} ${rec.colourSlots}`, colourPlanBindings, {
      params,
      slot: b.passSlot(rec.colourSlots),
      table: b.colourTable,
      args: b.colourArgs,
      stats: b.stats,
    }),
    'one',
  );
  overPairs(
    'colour scatter',
    pipelines.fixed.colourScatter,
    groups.get(`colourScatter ${p}`, colourScatterBindings, {
      params,
      state: b.pairState.buffer,
      table: b.colourTable,
      pairs: b.pairs.buffer,
      work: b.colourWork.buffer,
    }),
    12 * ARGS.work,
  );
}

/**
 * One sweep of substep `substep` on `bodies`, in place: each colour's pairs of the bands the
 * substep has reached (one dispatch a colour, from colourPlan's arguments for the band, for the
 * first `colourSlots` colours; one workgroup for the tail, the colours after them), the overflow's
 * Jacobi sweep and its application, in one pass; then each particle's walls (particleSettleWalls,
 * over the wall settle list) and collider contacts (particleSettle, over the settle list); with
 * `integrate` (the substep's last sweep), the
 * integration of every busy particle (particleIntegrate).
 */
export function recordSweep(
  rec: SweepRecorder,
  bodies: GPUBuffer,
  substep: number,
  integrate: boolean,
  colliders: StepColliders | null,
): void {
  const { params, p, encoder, settings } = rec;
  const { buffers: b, pipelines, groups, grid } = rec.parts;
  const which = bodies === b.bodies[0] ? 'A' : 'B';
  const friction = settings.friction > 0 ? '' : 'NoFriction';
  const pass = encoder.beginComputePass(rec.timer?.pass('solver pairs') ?? { label: 'solver pairs' });
  const band = Math.min(substep, BANDS - 1);
  const pairBuffers = {
    params,
    slot: b.sweepSlots,
    table: b.colourTable,
    pairs: b.pairs.buffer,
    contacts: b.contacts.buffer,
    mirror: b.mirror.buffer,
    bodies,
  };
  pass.setPipeline(pipelines.fixed[`pairSolve${friction}`]);
  const solveGroup = groups.get(`pairSolve ${p} ${which}`, pairSolveBindings, pairBuffers);
  for (let c = 0; c < rec.colourSlots; c++) {
    pass.setBindGroup(0, solveGroup, [b.sweepSlot(c, band)]);
    rec.dispatchList(pass, b.colourArgs, 12 * (band * PALETTE + c));
  }
  setPipelineAndGroup(
    pass,
    pipelines.fixed[`pairSolveTail${friction}`],
    groups.get(`pairSolveTail ${p} ${which}`, pairSolveTailBindings, pairBuffers),
    [b.sweepSlot(0, band)],
  );
  // One workgroup, or none where the tail holds no pair (direct: one, which then solves nothing).
  if (rec.indirect) pass.dispatchWorkgroupsIndirect(b.colourArgs, 12 * (ARGS.tail + band));
  else pass.dispatchWorkgroups(1);
  setPipelineAndGroup(
    pass,
    pipelines.fixed[`overflowSolve${friction}`],
    groups.get(`overflowSolve ${p} ${which}`, overflowSolveBindings, {
      params,
      start: b.start,
      bodies,
      contacts: b.contacts.buffer,
      state: b.pairState.buffer,
      masks: b.masks,
      table: b.colourTable,
      delta: b.delta,
    }),
  );
  rec.dispatchList(pass, b.colourArgs, 12 * ARGS.overflow);
  setPipelineAndGroup(
    pass,
    pipelines.fixed.overflowApply,
    groups.get(`overflowApply ${p} ${which}`, overflowApplyBindings, {
      params,
      table: b.colourTable,
      delta: b.delta,
      bodies,
    }),
  );
  rec.dispatchList(pass, b.colourArgs, 12 * ARGS.overflow);
  pass.end();
  if (settings.bounds)
    rec.run(
      'solver settle walls',
      pipelines.fixed[`settleWalls${friction}`],
      groups.get(`settleWalls ${p} ${which}`, settleWallsBindings, {
        params,
        sorted: grid.sorted.buffer,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        bodies,
        walls: b.walls,
      }),
      'settleWalls',
    );
  if (colliders)
    rec.run(
      'solver settle',
      pipelines.fixed[`settle${friction}`],
      groups.get(`settle ${p} ${which}`, settleBindings, {
        params,
        sortedId: grid.sortedId.buffer,
        start: b.start,
        bodies,
        slots: b.slots.buffer,
      }),
      'settle',
    );
  if (integrate)
    rec.run(
      'solver integrate',
      pipelines.fixed.integrate,
      groups.get(`integrate ${p} ${which}`, integrateBindings, {
        params,
        start: b.start,
        sorted: grid.sorted.buffer,
        bodies,
      }),
      'busy',
    );
}
