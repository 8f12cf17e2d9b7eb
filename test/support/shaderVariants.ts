/** Every shader variant the library can create, by name: for compile and layout tests. */
import { allPairsShader } from '../../shaders/broadphase/all-pairs/pairs.wgsl.js';
import { gridCountShader, gridScatterShader } from '../../shaders/passes/gridBuild.wgsl.js';
import { gridPairsShader } from '../../shaders/broadphase/grid/pairs.wgsl.js';
import { scanShader } from '../../shaders/passes/scan.wgsl.js';
import { boxAllPairsShader } from '../../shaders/broadphase/all-pairs/boxes.wgsl.js';
import { boxGridPairsShader } from '../../shaders/broadphase/grid/boxes.wgsl.js';
import { castAllPairsShader } from '../../shaders/broadphase/all-pairs/casts.wgsl.js';
import { castGridShader } from '../../shaders/broadphase/grid/casts.wgsl.js';
import { castBvhShader } from '../../shaders/broadphase/bvh/casts.wgsl.js';
import {
  sweepKeysShader,
  sweepGatherShader,
  sweepPairsShader,
  sweepBoxesShader,
} from '../../shaders/broadphase/sweep/sweep.wgsl.js';
import { residentCheckShader, residentDispatchShader } from '../../shaders/resident/resident.wgsl.js';
import { bvhCodesShader, bvhGatherShader, bvhPyramidShader, bvhNodesShader } from '../../shaders/spatial/bvh.wgsl.js';
import { bvhPairsShader, bvhBoxesShader } from '../../shaders/broadphase/bvh/walk.wgsl.js';
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
  particleWriteBackShader,
  particlePrepareWallsShader,
  particleSettleWallsShader,
} from '../../shaders/particles/solver.wgsl.js';
import {
  colliderFindShader,
  colliderListShader,
  colliderPrepareShader,
  colliderCellsShader,
} from '../../shaders/particles/colliders.wgsl.js';
import {
  colliderContactsShader,
  colliderContactsArgsShader,
  meshColliderContactsShader,
} from '../../shaders/particles/contacts.wgsl.js';
import { colliderMoveShader, colliderSpeedShader } from '../../shaders/particles/boxMotion.wgsl.js';
import { colliderFindWideShader, colliderWideArgsShader } from '../../shaders/particles/colliderWide.wgsl.js';
import { meshFindShader, meshReduceShader } from '../../shaders/particles/meshes.wgsl.js';
import {
  meshCodesShader,
  meshCodesHiShader,
  meshLeavesShader,
  meshSplitsShader,
  meshTopologyShader,
  meshCountShader,
  meshBucketsShader,
  meshBoxesShader,
} from '../../shaders/mesh/build.wgsl.js';
import { meshCastShader, meshContactsShader } from '../../shaders/mesh/queries.wgsl.js';

/** Every layout a grid-walking kernel is compiled for (shaders/spatial/grid.wgsl.ts, GridLayout). */
const GRID_LAYOUTS = [true, false].flatMap((dense) => [false, true].map((oneLevel) => ({ dense, oneLevel })));
const layoutName = ({ dense, oneLevel }: { dense: boolean; oneLevel: boolean }): string =>
  `dense=${dense} oneLevel=${oneLevel}`;

export function shaderVariants(): [string, string][] {
  return [
    ['allPairs', allPairsShader()],
    ...GRID_LAYOUTS.map((layout): [string, string] => [`gridCount ${layoutName(layout)}`, gridCountShader(layout)]),
    ['gridScatter', gridScatterShader()],
    ['scan serial', scanShader({ variant: 'serial' })],
    ['scan tiled', scanShader({ variant: 'tiled' })],
    ...GRID_LAYOUTS.map((layout): [string, string] => [`gridPairs ${layoutName(layout)}`, gridPairsShader(layout)]),
    ...(['aabb', 'obb'] as const).map((kind): [string, string] => [`boxAllPairs ${kind}`, boxAllPairsShader({ kind })]),
    ...(['aabb', 'obb'] as const).flatMap((kind) =>
      GRID_LAYOUTS.map((layout): [string, string] => [
        `boxGridPairs ${kind} ${layoutName(layout)}`,
        boxGridPairsShader({ kind, ...layout }),
      ]),
    ),
    ...(['nearest', 'count', 'write'] as const).flatMap((mode) => [
      [`cast all-pairs ${mode}`, castAllPairsShader({ mode })] as [string, string],
      ...GRID_LAYOUTS.map((layout): [string, string] => [
        `cast grid ${mode} ${layoutName(layout)}`,
        castGridShader({ mode, ...layout }),
      ]),
      [`cast bvh ${mode}`, castBvhShader({ mode })] as [string, string],
    ]),
    ['residentCheck', residentCheckShader()],
    ['residentDispatch', residentDispatchShader()],
    ['sweepKeys', sweepKeysShader()],
    ['sweepGather', sweepGatherShader()],
    ['sweepPairs', sweepPairsShader()],
    ...(['aabb', 'obb'] as const).map((kind): [string, string] => [`sweepBoxes ${kind}`, sweepBoxesShader({ kind })]),
    ['bvhCodes', bvhCodesShader()],
    ['bvhGather', bvhGatherShader()],
    ['bvhPyramid', bvhPyramidShader()],
    ['bvhNodes', bvhNodesShader()],
    ['meshCodes', meshCodesShader()],
    ['meshCodesHi', meshCodesHiShader()],
    ['meshSplits', meshSplitsShader()],
    ['meshTopology', meshTopologyShader()],
    ['meshCount', meshCountShader()],
    ['meshBuckets', meshBucketsShader()],
    ['meshBoxes', meshBoxesShader()],
    ['meshLeaves', meshLeavesShader()],
    ...(['nearest', 'count', 'write'] as const).flatMap((mode) =>
      [false, true].map((ray): [string, string] => [`meshCast ${mode} ray=${ray}`, meshCastShader({ mode, ray })]),
    ),
    ['meshContacts', meshContactsShader()],
    // A tree's own stack (walkStackFor its depth), the least and a middle size.
    ['meshCast nearest ray=true stack=8', meshCastShader({ mode: 'nearest', ray: true, stack: 8 })],
    ['meshContacts stack=40', meshContactsShader({ stack: 40 })],
    ['bvhPairs', bvhPairsShader()],
    ...(['aabb', 'obb'] as const).map((kind): [string, string] => [`bvhBoxes ${kind}`, bvhBoxesShader({ kind })]),
    ['particleGather', particleGatherShader()],
    ['particleDecide', particleDecideShader()],
    ['particleCarry', particleCarryShader()],
    ['particleScatterIds', particleScatterIdsShader()],
    ['particleStable', particleStableShader()],
    ['particleReach', particleReachShader()],
    ...GRID_LAYOUTS.flatMap((layout): [string, string][] => [
      [`particleCount ${layoutName(layout)}`, particleCountShader(layout)],
      [`particleFill ${layoutName(layout)}`, particleFillShader(layout)],
    ]),
    ...[true, false].flatMap((first) =>
      [false, true].map((colliders): [string, string] => [
        `particlePrepare first=${first} colliders=${colliders}`,
        particlePrepareShader({ first, colliders }),
      ]),
    ),
    ['particlePrepareWalls', particlePrepareWallsShader()],
    ...[false, true].flatMap((friction): [string, string][] => [
      [`particleSettleWalls friction=${friction}`, particleSettleWallsShader({ friction })],
      [`particleSettle friction=${friction}`, particleSettleShader({ friction })],
    ]),
    ['particleIntegrate', particleIntegrateShader()],
    ['colourStart', colourStartShader()],
    ['colourTentative', colourTentativeShader()],
    ['colourResolve', colourResolveShader()],
    ['colourRoundArgs', colourRoundArgsShader()],
    ['colourWorkArgs', colourWorkArgsShader()],
    ['colourCount', colourCountShader()],
    ['colourPlan', colourPlanShader()],
    ['colourScatter', colourScatterShader()],
    ...[false, true].flatMap((friction): [string, string][] => [
      [`pairSolve friction=${friction}`, pairSolveShader({ friction })],
      [`pairSolveTail friction=${friction}`, pairSolveTailShader({ friction })],
      [`overflowSolve friction=${friction}`, overflowSolveShader({ friction })],
    ]),
    ['overflowApply', overflowApplyShader()],
    ...GRID_LAYOUTS.map((layout): [string, string] => [
      `colliderFind ${layoutName(layout)}`,
      colliderFindShader(layout),
    ]),
    ...[false, true].flatMap((meshes): [string, string][] => [
      [`colliderList meshes=${meshes}`, colliderListShader({ meshes })],
      [`colliderPrepare meshes=${meshes}`, colliderPrepareShader({ meshes })],
    ]),
    ['colliderMove', colliderMoveShader()],
    ['colliderSpeed', colliderSpeedShader()],
    ['colliderCells', colliderCellsShader()],
    ['colliderFindWide', colliderFindWideShader()],
    ['colliderWideArgs', colliderWideArgsShader()],
    ['colliderContacts', colliderContactsShader()],
    ['colliderContactsArgs', colliderContactsArgsShader()],
    ['meshFind', meshFindShader()],
    ['meshFind stack=16', meshFindShader({ stack: 16 })],
    ['meshReduce', meshReduceShader()],
    ['meshColliderContacts', meshColliderContactsShader()],
    ['particleSleep', particleSleepShader()],
    ['particleSplit', particleSplitShader()],
    ['particleBusyArgs list=busy', particleBusyArgsShader({ list: 'busy' })],
    ['particleBusyArgs list=walled', particleBusyArgsShader({ list: 'walled' })],
    ['particleBusyArgs list=settle', particleBusyArgsShader({ list: 'settle' })],
    ['particleWriteBack', particleWriteBackShader()],
  ];
}
