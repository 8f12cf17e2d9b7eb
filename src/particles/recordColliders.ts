/**
 * The recording of a step's collider passes (src/particles/recordStep.ts records the rest): the
 * fastest collider's speed, and each particle's collider slots (the boxes' find, each mesh's
 * find, the meshes' reduction, the list). Kernels: shaders/particles/boxMotion.wgsl.ts,
 * colliders.wgsl.ts, meshes.wgsl.ts.
 */
import type { GridLayout } from '../../shaders/spatial/grid.wgsl.js';
import {
  colliderFindBindings,
  colliderListBindings,
  colliderCellsBindings,
} from '../../shaders/particles/colliders.wgsl.js';
import { colliderSpeedBindings } from '../../shaders/particles/boxMotion.wgsl.js';
import { colliderFindWideBindings, colliderWideArgsBindings } from '../../shaders/particles/colliderWide.wgsl.js';
import { meshFindBindings, meshReduceBindings } from '../../shaders/particles/meshes.wgsl.js';
import { ParticleParams, ParticleStats, MeshFindParams } from '../../shaders/particles/layout.js';
import { ceilDiv } from '../gpu/dispatch.js';
import { WORKGROUP_SIZE } from '../gpu/workgroups.js';
import type { SolverBuffers } from './solverBuffers.js';
import type { SolverPipelines, BindGroupCache } from './solverPipelines.js';
import type { GpuGrid } from '../passes/gridBuild.js';
import type { MeshBinding } from './colliders.js';

const WG = WORKGROUP_SIZE.particles;

/**
 * The colliders a step solves against: poses (centre, half extents, unit quaternion: three vec4
 * a box) and velocities (linear, angular: two vec4) of `count` boxes, then of the `meshes`
 * (src/particles/colliders.ts).
 */
export interface StepColliders {
  poses: GPUBuffer;
  velocities: GPUBuffer;
  count: number;
  meshes: readonly MeshBinding[];
}

/** The solver's parts a recording of some of a step's passes uses. */
export interface RecorderParts {
  readonly buffers: SolverBuffers;
  readonly pipelines: SolverPipelines;
  readonly groups: BindGroupCache;
  readonly grid: GpuGrid;
}

/** What the collider passes are recorded with: the step's recorder (src/particles/recordStep.ts). */
export interface ColliderRecorder {
  readonly parts: RecorderParts;
  readonly encoder: GPUCommandEncoder;
  readonly params: GPUBuffer;
  readonly p: string;
  readonly n: number;
  /**
   * One pass of a thread per particle ('all'), of one thread ('one'), or of colliderFindWide's
   * ('wide': from colliderWideArgs' arguments where the step dispatches indirectly).
   */
  run(label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, over?: 'all' | 'one' | 'wide'): void;
  /** Whether the step dispatches its lists from arguments written on the GPU. */
  readonly indirect: boolean;
  /** One pass of `groups` workgroups. */
  runGroups(label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, groups: number): void;
}

type Boxes = StepColliders;

/**
 * Before the gather: the fastest a box can send a particle this step (colliderSpeed, into the
 * stats), copied into the parameters, where every reach reads it (shaders/particles/formula.ts).
 */
export function recordColliderSpeed(rec: ColliderRecorder, colliders: Boxes): void {
  const { buffers: b, pipelines, groups } = rec.parts;
  rec.runGroups(
    'collider speed',
    pipelines.fixed.colliderSpeed,
    groups.get(`collider speed ${rec.p}`, colliderSpeedBindings, {
      params: rec.params,
      colliderPoses: colliders.poses,
      colliderVelocities: colliders.velocities,
      stats: b.stats,
    }),
    ceilDiv(colliders.count + colliders.meshes.length, WG),
  );
  rec.encoder.copyBufferToBuffer(
    b.stats,
    ParticleStats.offsets.boxSpeedBits,
    rec.params,
    ParticleParams.offsets.boxSpeed,
    4,
  );
}

/** Colliders: each box's particles and each particle's triangles into its slots, by collider id, warm (colliderFind, meshFind, meshReduce, colliderList). */
export function recordColliderLists(rec: ColliderRecorder, colliders: Boxes, layout: GridLayout): void {
  const { encoder, params, p, n } = rec;
  const { buffers: b, pipelines, groups, grid } = rec.parts;
  // The grid build cleared the offsets even if it did not search: the last search's, back.
  const cells = grid.cellStart.buffer;
  b.savedCells.ensure(cells.size);
  rec.runGroups(
    'collider cells',
    pipelines.fixed.colliderCells,
    groups.get(`collider cells ${p}`, colliderCellsBindings, {
      params,
      cellStart: cells,
      saved: b.savedCells.buffer,
    }),
    ceilDiv(cells.size / 4, WG),
  );
  encoder.clearBuffer(b.found.buffer, 0, 4 * n);
  if (colliders.count > 0)
    rec.runGroups(
      'collider find',
      pipelines.find(layout),
      groups.get(`collider find ${p}`, colliderFindBindings, {
        grid: grid.params,
        params,
        colliderPoses: colliders.poses,
        colliderVelocities: colliders.velocities,
        cellStart: grid.cellStart.buffer,
        current: grid.sorted.buffer,
        bodies: b.bodies[0],
        found: b.found.buffer,
        stats: b.stats,
        anchors: b.anchors,
      }),
      ceilDiv(colliders.count, WG),
    );
  if (colliders.count > 0) {
    // The boxes colliderFind left to a thread a particle (none: the threads return at once, or
    // none run where the step dispatches indirectly).
    const wide = { params, stats: b.stats };
    if (rec.indirect)
      rec.run(
        'collider wide args',
        pipelines.fixed.colliderWideArgs,
        groups.get(`collider wide args ${p}`, colliderWideArgsBindings, { ...wide, args: b.busyArgs }),
        'one',
      );
    rec.run(
      'collider find wide',
      pipelines.fixed.colliderFindWide,
      groups.get(`collider find wide ${p}`, colliderFindWideBindings, {
        ...wide,
        colliderPoses: colliders.poses,
        colliderVelocities: colliders.velocities,
        current: grid.sorted.buffer,
        bodies: b.bodies[0],
        found: b.found.buffer,
      }),
      'wide',
    );
  }
  for (const m of colliders.meshes) {
    // The mesh's pose and velocities now (a kinematic mesh moved in the last step) into its find's parameters.
    const k = colliders.count + m.index;
    encoder.copyBufferToBuffer(colliders.poses, 48 * k, m.params, MeshFindParams.offsets.centre, 48);
    encoder.copyBufferToBuffer(colliders.velocities, 32 * k, m.params, MeshFindParams.offsets.linear, 32);
    rec.run(
      'mesh find',
      pipelines.meshFind(m.mesh.walkStack),
      groups.get(`mesh find ${p} ${m.index}`, meshFindBindings, {
        params,
        mesh: m.params,
        current: grid.sorted.buffer,
        bodies: b.bodies[0],
        children: m.mesh.tree.children,
        sorted: m.mesh.tree.sorted,
        ids: m.mesh.tree.ids,
        edgeFlags: m.mesh.edgeFlags(),
        found: b.found.buffer,
        stats: b.stats,
      }),
    );
  }
  if (colliders.meshes.length > 0)
    rec.run(
      'mesh reduce',
      pipelines.meshes().reduce,
      groups.get(`mesh reduce ${p}`, meshReduceBindings, {
        params,
        sorted: grid.sorted.buffer,
        colliderPoses: colliders.poses,
        found: b.found.buffer,
        stats: b.stats,
      }),
    );
  rec.run(
    'collider list',
    colliders.meshes.length > 0 ? pipelines.meshes().list : pipelines.fixed.colliderList,
    groups.get(`collider list ${p}`, colliderListBindings, {
      params,
      sortedId: grid.sortedId.buffer,
      sorted: grid.sorted.buffer,
      found: b.found.buffer,
      slots: b.slots.buffer,
      colliderPoses: colliders.poses,
      colliderVelocities: colliders.velocities,
      rest: b.rest,
      slotTriangles: b.slotTriangles.buffer,
    }),
  );
}
