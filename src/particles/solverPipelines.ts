/**
 * The particle solver's compute pipelines (the kernels of shaders/particles/, one pipeline per
 * variant a step may take) and its bind groups, cached by name.
 */
import {
  particleGatherShader,
  particleDecideShader,
  particleCarryShader,
  particleSleepShader,
  particleSplitShader,
  particleBusyArgsShader,
  particleScatterIdsShader,
  particleStableShader,
  particleReachShader,
  particleCountShader,
  particleFillShader,
  particlePrepareShader,
  particleSettleShader,
  particleIntegrateShader,
  particleWriteBackShader,
  colourStartShader,
  colourTentativeShader,
  colourResolveShader,
  colourRoundArgsShader,
  colourWorkArgsShader,
  colourCountShader,
  colourPlanShader,
  colourScatterShader,
  pairSolveShader,
  pairSolveTailShader,
  overflowSolveShader,
  overflowApplyShader,
} from '../../shaders/particles/solver.wgsl.js';
import {
  colliderFindShader,
  colliderListShader,
  colliderPrepareShader,
  colliderCellsShader,
} from '../../shaders/particles/colliders.wgsl.js';
import {
  colliderMoveBindings,
  colliderSpeedBindings,
  colliderMoveShader,
  colliderSpeedShader,
} from '../../shaders/particles/boxMotion.wgsl.js';
import {
  meshFindBindings,
  meshFindShader,
  meshReduceBindings,
  meshReduceShader,
} from '../../shaders/particles/meshes.wgsl.js';
import {
  colliderContactsShader,
  colliderContactsArgsShader,
  colliderContactsBindings,
  colliderContactsArgsBindings,
  meshColliderContactsBindings,
  meshColliderContactsShader,
} from '../../shaders/particles/contacts.wgsl.js';
import {
  colliderFindWideBindings,
  colliderFindWideShader,
  colliderWideArgsBindings,
  colliderWideArgsShader,
} from '../../shaders/particles/colliderWide.wgsl.js';
import { gridLayoutName, type GridLayout } from '../../shaders/spatial/grid.wgsl.js';
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
import { prepareBindings, settleBindings, integrateBindings } from '../../shaders/particles/substep.wgsl.js';
import {
  prepareWallsBindings,
  particlePrepareWallsShader,
  settleWallsBindings,
  particleSettleWallsShader,
} from '../../shaders/particles/walls.wgsl.js';
import {
  colourStartBindings,
  colourTentativeBindings,
  colourResolveBindings,
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
import { splitBindings, busyArgsBindings } from '../../shaders/particles/split.wgsl.js';
import { sleepBindings, writeBackBindings } from '../../shaders/particles/sleep.wgsl.js';
import {
  colliderFindBindings,
  colliderListBindings,
  colliderPrepareBindings,
  colliderCellsBindings,
} from '../../shaders/particles/colliders.wgsl.js';
import type { Bindings, BindingResource } from '../gpu/kernel.js';
import { computePipeline, variant } from '../gpu/pipeline.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';

const WG = WORKGROUP_SIZE.particles;

/** The pipelines a world with mesh colliders adds (SolverPipelines.meshes). */
interface MeshPipelines {
  reduce: GPUComputePipeline;
  contacts: GPUComputePipeline;
  list: GPUComputePipeline;
  prepare: GPUComputePipeline;
}

/**
 * The settles' variants, by name: `settleWalls` (particleSettleWalls) and `settle` (particleSettle,
 * the collider contacts), then `NoFriction` (friction 0) where it applies.
 */
function settlePipelines(
  make: (decl: Pick<Bindings<string>, 'layout'>, entry: string, code: string) => GPUComputePipeline,
): Record<string, GPUComputePipeline> {
  const out: Record<string, GPUComputePipeline> = {};
  for (const friction of [true, false]) {
    const suffix = friction ? '' : 'NoFriction';
    out[`settleWalls${suffix}`] = make(
      settleWallsBindings,
      'particleSettleWalls',
      particleSettleWallsShader({ friction }),
    );
    out[`settle${suffix}`] = make(settleBindings, 'particleSettle', particleSettleShader({ friction }));
  }
  return out;
}

/** Every pipeline of a particle step: the fixed ones made at once, the grid-layout variants on first use. */
export class SolverPipelines {
  /** By name: the search's, the solve's variants (first substep, friction, colliders), the colliders', the sleep's. */
  readonly fixed: Record<string, GPUComputePipeline>;
  /** colliderFind per grid layout. */
  private readonly findPipelines = new Map<string, GPUComputePipeline>();
  /** The search's count and fill, one pipeline per grid layout (GridLayout). */
  private readonly searchPipelines = new Map<string, GPUComputePipeline>();

  constructor(private readonly device: GPUDevice) {
    const make = (decl: Pick<Bindings<string>, 'layout'>, entry: string, code: string): GPUComputePipeline =>
      computePipeline(device, entry, [decl.layout(device, entry)], code, entry, { WG });
    this.fixed = {
      gather: make(gatherBindings, 'particleGather', particleGatherShader()),
      decide: make(decideBindings, 'particleDecide', particleDecideShader()),
      carry: make(carryBindings, 'particleCarry', particleCarryShader()),
      scatterIds: make(scatterIdsBindings, 'particleScatterIds', particleScatterIdsShader()),
      stable: make(stableBindings, 'particleStable', particleStableShader()),
      reach: make(reachBindings, 'particleReach', particleReachShader()),
      prepareFirst: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: true })),
      prepare: make(prepareBindings, 'particlePrepare', particlePrepareShader({ first: false })),
      prepareWalls: make(prepareWallsBindings, 'particlePrepareWalls', particlePrepareWallsShader()),
      colourStart: make(colourStartBindings, 'colourStart', colourStartShader()),
      colourTentative: make(colourTentativeBindings, 'colourTentative', colourTentativeShader()),
      colourResolve: make(colourResolveBindings, 'colourResolve', colourResolveShader()),
      colourRoundArgs: make(colourRoundArgsBindings, 'colourRoundArgs', colourRoundArgsShader()),
      colourWorkArgs: make(colourRoundArgsBindings, 'colourWorkArgs', colourWorkArgsShader()),
      colourCount: make(colourCountBindings, 'colourCount', colourCountShader()),
      colourPlan: make(colourPlanBindings, 'colourPlan', colourPlanShader()),
      colourScatter: make(colourScatterBindings, 'colourScatter', colourScatterShader()),
      // Friction 0 (the default): the sweeps without the friction code.
      pairSolve: make(pairSolveBindings, 'pairSolve', pairSolveShader()),
      pairSolveNoFriction: make(pairSolveBindings, 'pairSolve', pairSolveShader({ friction: false })),
      pairSolveTail: make(pairSolveTailBindings, 'pairSolveTail', pairSolveTailShader()),
      pairSolveTailNoFriction: make(pairSolveTailBindings, 'pairSolveTail', pairSolveTailShader({ friction: false })),
      overflowSolve: make(overflowSolveBindings, 'overflowSolve', overflowSolveShader()),
      overflowSolveNoFriction: make(overflowSolveBindings, 'overflowSolve', overflowSolveShader({ friction: false })),
      overflowApply: make(overflowApplyBindings, 'overflowApply', overflowApplyShader()),
      // With box colliders: the prepare adds colliderPrepare's warm start, the settle solves the slots.
      prepareFirstColliders: make(
        prepareBindings,
        'particlePrepare',
        particlePrepareShader({ first: true, colliders: true }),
      ),
      prepareColliders: make(
        prepareBindings,
        'particlePrepare',
        particlePrepareShader({ first: false, colliders: true }),
      ),
      ...settlePipelines(make),
      integrate: make(integrateBindings, 'particleIntegrate', particleIntegrateShader()),
      colliderList: make(colliderListBindings, 'colliderList', colliderListShader({ meshes: false })),
      colliderPrepare: make(colliderPrepareBindings, 'colliderPrepare', colliderPrepareShader({ meshes: false })),
      colliderMove: make(colliderMoveBindings, 'colliderMove', colliderMoveShader()),
      colliderSpeed: make(colliderSpeedBindings, 'colliderSpeed', colliderSpeedShader()),
      colliderCells: make(colliderCellsBindings, 'colliderCells', colliderCellsShader()),
      colliderFindWide: make(colliderFindWideBindings, 'colliderFindWide', colliderFindWideShader()),
      colliderWideArgs: make(colliderWideArgsBindings, 'colliderWideArgs', colliderWideArgsShader()),
      colliderContacts: make(colliderContactsBindings, 'colliderContacts', colliderContactsShader()),
      colliderContactsArgs: make(colliderContactsArgsBindings, 'colliderContactsArgs', colliderContactsArgsShader()),
      sleep: make(sleepBindings, 'particleSleep', particleSleepShader()),
      split: make(splitBindings, 'particleSplit', particleSplitShader()),
      busyArgs: make(busyArgsBindings, 'particleBusyArgs', particleBusyArgsShader({ list: 'busy' })),
      settleArgs: make(busyArgsBindings, 'particleBusyArgs', particleBusyArgsShader({ list: 'settle' })),
      walledArgs: make(busyArgsBindings, 'particleBusyArgs', particleBusyArgsShader({ list: 'walled' })),
      writeBack: make(writeBackBindings, 'particleWriteBack', particleWriteBackShader()),
    };
  }

  /** The mesh colliders' pipelines (made on first use: a world without meshes never compiles them). */
  private meshPipelines: MeshPipelines | null = null;

  /** meshReduce, meshContacts, and colliderList and colliderPrepare with the triangles' code (the fixed ones are without it). */
  meshes(): MeshPipelines {
    if (!this.meshPipelines) {
      const make = (decl: Pick<Bindings<string>, 'layout'>, entry: string, code: string): GPUComputePipeline =>
        computePipeline(this.device, entry, [decl.layout(this.device, entry)], code, entry, { WG });
      this.meshPipelines = {
        reduce: make(meshReduceBindings, 'meshReduce', meshReduceShader()),
        contacts: make(meshColliderContactsBindings, 'meshColliderContacts', meshColliderContactsShader()),
        list: make(colliderListBindings, 'colliderList', colliderListShader({ meshes: true })),
        prepare: make(colliderPrepareBindings, 'colliderPrepare', colliderPrepareShader({ meshes: true })),
      };
    }
    return this.meshPipelines;
  }

  /** meshFind with a stack of `stack` entries (its mesh's walkStack). */
  meshFind(stack: number): GPUComputePipeline {
    return variant(this.findPipelines, `meshFind ${stack}`, () =>
      computePipeline(
        this.device,
        `meshFind ${stack}`,
        [meshFindBindings.layout(this.device, 'meshFind')],
        meshFindShader({ stack }),
        'meshFind',
        { WG },
      ),
    );
  }

  /** colliderFind for the grid `layout`. */
  find(layout: GridLayout): GPUComputePipeline {
    return variant(this.findPipelines, gridLayoutName(layout), () =>
      computePipeline(
        this.device,
        `colliderFind ${gridLayoutName(layout)}`,
        [colliderFindBindings.layout(this.device, 'colliderFind')],
        colliderFindShader(layout),
        'colliderFind',
        { WG },
      ),
    );
  }

  /** The search's count or fill for the grid `layout`. */
  search(name: 'count' | 'fill', layout: GridLayout): GPUComputePipeline {
    return variant(this.searchPipelines, `${name} ${gridLayoutName(layout)}`, () => {
      const entry = name === 'count' ? 'particleCount' : 'particleFill';
      const code = name === 'count' ? particleCountShader(layout) : particleFillShader(layout);
      return computePipeline(
        this.device,
        `${entry} ${gridLayoutName(layout)}`,
        [(name === 'count' ? countBindings : fillBindings).layout(this.device, entry)],
        code,
        entry,
        { WG },
      );
    });
  }
}

/** Bind groups by name, each with the buffers it was made of. */
export class BindGroupCache {
  private groups = new Map<string, { group: GPUBindGroup; resources: BindingResource[] }>();

  constructor(private readonly device: GPUDevice) {}

  /** The bind group of `decl` for `resources` under `key`, made again when a buffer was replaced (a growable one grew). */
  get<N extends string>(key: string, decl: Bindings<N>, resources: Readonly<Record<N, BindingResource>>): GPUBindGroup {
    const list = decl.entries.map((e) => resources[e.name]);
    const cached = this.groups.get(key);
    if (cached?.resources.every((resource, k) => resource === list[k])) return cached.group;
    const group = decl.bind(this.device, `particle ${key}`, resources);
    this.groups.set(key, { group, resources: list });
    return group;
  }

  /** Forgets every group (the buffers they bind were replaced). */
  clear(): void {
    this.groups.clear();
  }
}
