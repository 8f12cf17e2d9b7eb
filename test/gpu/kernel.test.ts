/**
 * Kernel binding declarations (src/gpu/kernel.ts): every declaration of the Collider's kernels
 * against the WGSL of every shader variant that interpolates it, as wgsl_reflect parses that
 * WGSL: the same bindings of group 0, in the same order, names, kinds (uniform, read-only or
 * read-write storage) and types. And what the declarations give: the lines the array sizing of
 * src/gpu/pipeline.ts finds, the layout, and bind groups by name.
 *
 * Entry points (`entry`, src/gpu/kernel.ts): every kernel's entries, the particle solver's
 * included, against every variant as wgsl_reflect parses it: the same entry points, in order,
 * with their names, workgroup sizes (the override declared once, or the module's constant) and
 * builtin parameters, and the generated opening in the code as generated. What `entry` writes,
 * and a kernel made with it run on the device: its index over a 2-D dispatch and its bounds check.
 */
import { describe, it, expect } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { useGpu } from '../support/gpu.js';
import {
  bindings,
  uniform,
  dynamicUniform,
  readOnly,
  readWrite,
  entry,
  constSize,
  overrideSize,
  WG,
  TILE,
  ONE_THREAD,
  type Bindings,
  type BindingKind,
  type Entry,
} from '../../src/gpu/kernel.js';
import { runtimeArrays, setPipelineAndGroup } from '../../src/gpu/pipeline.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { BufferUsage, MapMode } from '../../src/gpu/flags.js';
import { flatWorkgroup } from '../../shaders/common.wgsl.js';
import { allPairsShader, allPairsBindings, allPairsEntry } from '../../shaders/broadphase/all-pairs/pairs.wgsl.js';
import {
  boxAllPairsShader,
  boxAllPairsBindings,
  boxAllPairsEntry,
} from '../../shaders/broadphase/all-pairs/boxes.wgsl.js';
import {
  boxGridPairsShader,
  boxGridPairsBindings,
  boxGridPairsEntry,
  pairMergeShader,
  pairMergeBindings,
  pairMergeMoveEntry,
  pairMergeCountEntry,
} from '../../shaders/broadphase/grid/boxes.wgsl.js';
import { castMainEntry } from '../../shaders/passes/casts.wgsl.js';
import { walkRows, visitLevel } from '../../shaders/spatial/walk.wgsl.js';
import { castAllPairsShader, castAllPairsBindings } from '../../shaders/broadphase/all-pairs/casts.wgsl.js';
import { castGridShader, castGridBindings } from '../../shaders/broadphase/grid/casts.wgsl.js';
import { castBvhShader, castBvhBindings } from '../../shaders/broadphase/bvh/casts.wgsl.js';
import {
  gridCountShader,
  gridCountBindings,
  gridCountEntry,
  gridScatterShader,
  gridScatterBindings,
  gridScatterEntry,
} from '../../shaders/passes/gridBuild.wgsl.js';
import { gridPairsShader, gridPairsBindings, gridPairsEntry } from '../../shaders/broadphase/grid/pairs.wgsl.js';
import {
  residentCheckShader,
  residentCheckBindings,
  residentCheckEntry,
  residentDispatchShader,
  residentDispatchBindings,
  residentDispatchEntry,
} from '../../shaders/resident/resident.wgsl.js';
import { scanShader, scanBindings, scanSerialEntries, scanTiledEntries } from '../../shaders/passes/scan.wgsl.js';
import {
  sweepKeysShader,
  sweepKeysBindings,
  sweepKeysEntry,
  sweepGatherShader,
  sweepGatherBindings,
  sweepGatherEntry,
  sweepPairsShader,
  sweepPairsBindings,
  sweepPairsEntry,
  sweepBoxesShader,
  sweepBoxesBindings,
  sweepBoxesEntry,
} from '../../shaders/broadphase/sweep/sweep.wgsl.js';
import {
  bvhCodesShader,
  bvhCodesBindings,
  bvhCodesHiShader,
  bvhCodesHiBindings,
  bvhGatherShader,
  bvhGatherBindings,
  bvhPyramidShader,
  bvhPyramidBindings,
  bvhNodesShader,
  bvhNodesBindings,
  bvhCodesEntry,
  bvhCodesHiEntry,
  bvhGatherEntry,
  bvhPyramidEntry,
  bvhNodesEntry,
} from '../../shaders/spatial/bvh.wgsl.js';
import {
  bvhPairsShader,
  bvhPairsBindings,
  bvhBoxesShader,
  bvhBoxesBindings,
  bvhBoxCodesShader,
  bvhBoxCodesBindings,
  bvhBoxCodesEntry,
  bvhPairsEntry,
  bvhBoxesEntry,
} from '../../shaders/broadphase/bvh/walk.wgsl.js';
import {
  radixSortShader,
  radixKeysBindings,
  radixPairsBindings,
  radixSortSubgroupShader,
  radixSubgroupKeysBindings,
  radixSubgroupPairsBindings,
  radixEntries,
  radixSubgroupEntries,
} from '../../shaders/passes/radixSort.wgsl.js';
import {
  particleGatherShader,
  particleGatherEntry,
  particleDecideShader,
  particleDecideEntry,
  particleCarryShader,
  particleCarryEntry,
  particleScatterIdsShader,
  particleScatterIdsEntry,
  particleStableShader,
  particleStableEntry,
  particleReachShader,
  particleReachEntry,
  particleCountShader,
  particleCountEntry,
  particleFillShader,
  particleFillEntry,
} from '../../shaders/particles/search.wgsl.js';
import {
  particlePrepareShader,
  particlePrepareEntry,
  particleSettleShader,
  particleSettleEntry,
  particleIntegrateShader,
  particleIntegrateEntry,
} from '../../shaders/particles/substep.wgsl.js';
import {
  particlePrepareWallsShader,
  particlePrepareWallsEntry,
  particleSettleWallsShader,
  particleSettleWallsEntry,
} from '../../shaders/particles/walls.wgsl.js';
import {
  colourStartShader,
  colourStartEntry,
  colourTentativeShader,
  colourTentativeEntry,
  colourResolveShader,
  colourResolveEntry,
} from '../../shaders/particles/colouring.wgsl.js';
import {
  colourRoundArgsShader,
  colourRoundArgsEntry,
  colourWorkArgsShader,
  colourWorkArgsEntry,
  colourCountShader,
  colourCountEntry,
  colourPlanShader,
  colourPlanEntry,
  colourScatterShader,
  colourScatterEntry,
} from '../../shaders/particles/colourPlan.wgsl.js';
import {
  pairSolveShader,
  pairSolveEntry,
  pairSolveTailShader,
  pairSolveTailEntry,
  overflowSolveShader,
  overflowSolveEntry,
  overflowApplyShader,
  overflowApplyEntry,
} from '../../shaders/particles/pairs.wgsl.js';
import {
  particleSplitShader,
  particleSplitEntry,
  particleBusyArgsShader,
  particleBusyArgsEntry,
} from '../../shaders/particles/split.wgsl.js';
import {
  particleSleepShader,
  particleSleepEntry,
  particleWriteBackShader,
  particleWriteBackEntry,
} from '../../shaders/particles/sleep.wgsl.js';
import {
  colliderFindShader,
  colliderFindEntry,
  colliderListShader,
  colliderListEntry,
  colliderPrepareShader,
  colliderPrepareEntry,
  colliderCellsShader,
  colliderCellsEntry,
} from '../../shaders/particles/colliders.wgsl.js';
import {
  colliderContactsShader,
  colliderContactsEntry,
  colliderContactsArgsShader,
  colliderContactsArgsEntry,
  meshColliderContactsShader,
  meshColliderContactsEntry,
} from '../../shaders/particles/contacts.wgsl.js';
import {
  colliderMoveShader,
  colliderMoveEntry,
  colliderSpeedShader,
  colliderSpeedEntry,
} from '../../shaders/particles/boxMotion.wgsl.js';
import {
  colliderFindWideShader,
  colliderFindWideEntry,
  colliderWideArgsShader,
  colliderWideArgsEntry,
} from '../../shaders/particles/colliderWide.wgsl.js';
import {
  meshFindShader,
  meshFindEntry,
  meshReduceShader,
  meshReduceEntry,
} from '../../shaders/particles/meshes.wgsl.js';

import {
  meshCodesShader,
  meshCodesBindings,
  meshCodesEntry,
  meshCodesHiShader,
  meshCodesHiBindings,
  meshCodesHiEntry,
  meshLeavesShader,
  meshLeavesBindings,
  meshLeavesEntry,
  meshSplitsShader,
  meshSplitsBindings,
  meshSplitsEntry,
  meshTopologyShader,
  meshTopologyBindings,
  meshTopologyEntry,
  meshCountShader,
  meshCountBindings,
  meshCountEntry,
  meshBucketsShader,
  meshBucketsBindings,
  meshBucketsEntry,
  meshBoxesShader,
  meshBoxesBindings,
  meshBoxesEntry,
} from '../../shaders/mesh/build.wgsl.js';
import {
  meshCastShader,
  meshCastBindings,
  meshCastEntry,
  meshContactsShader,
  meshContactsBindings,
  meshContactsEntry,
} from '../../shaders/mesh/queries.wgsl.js';

const gpu = useGpu();

const LAYOUTS = [true, false].flatMap((dense) => [false, true].map((oneLevel) => ({ dense, oneLevel })));
const KINDS = ['aabb', 'obb'] as const;
const MODES = ['nearest', 'count', 'write'] as const;

/** A declared entry (`entry`). */
type EntryPoint = Pick<Entry, 'name' | 'size'> & Partial<Entry>;

const scanEntries = (e: { reduce: Entry; downsweep: Entry }) => [e.reduce, e.downsweep];
const RADIX = [radixEntries.countTile, radixEntries.scatterTile, radixEntries.countThread, radixEntries.scatterThread];
const RADIX_SUBGROUP = [radixSubgroupEntries.count, radixSubgroupEntries.scatter];

/** Every declaration of the Collider's kernels, with its entry points and the code of every variant that uses it. */
const KERNELS: [string, Bindings<string>, EntryPoint[], string[]][] = [
  ['allPairs', allPairsBindings, [allPairsEntry], [allPairsShader()]],
  ['boxAllPairs', boxAllPairsBindings, [boxAllPairsEntry], KINDS.map((kind) => boxAllPairsShader({ kind }))],
  [
    'boxGridPairs',
    boxGridPairsBindings,
    [boxGridPairsEntry],
    KINDS.flatMap((kind) => LAYOUTS.map((layout) => boxGridPairsShader({ kind, ...layout }))),
  ],
  ['pairMerge', pairMergeBindings, [pairMergeMoveEntry, pairMergeCountEntry], [pairMergeShader()]],
  ['cast all-pairs', castAllPairsBindings, [castMainEntry], MODES.map((mode) => castAllPairsShader({ mode }))],
  [
    'cast grid',
    castGridBindings,
    [castMainEntry],
    MODES.flatMap((mode) => LAYOUTS.map((layout) => castGridShader({ mode, ...layout }))),
  ],
  ['cast bvh', castBvhBindings, [castMainEntry], MODES.map((mode) => castBvhShader({ mode }))],
  ['gridCount', gridCountBindings, [gridCountEntry], LAYOUTS.map((layout) => gridCountShader(layout))],
  ['gridScatter', gridScatterBindings, [gridScatterEntry], [gridScatterShader()]],
  ['gridPairs', gridPairsBindings, [gridPairsEntry], LAYOUTS.map((layout) => gridPairsShader(layout))],
  ['residentCheck', residentCheckBindings, [residentCheckEntry], [residentCheckShader()]],
  ['residentDispatch', residentDispatchBindings, [residentDispatchEntry], [residentDispatchShader()]],
  ['scan serial', scanBindings.serial, scanEntries(scanSerialEntries), [scanShader({ variant: 'serial' })]],
  ['scan tiled', scanBindings.tiled, scanEntries(scanTiledEntries), [scanShader({ variant: 'tiled' })]],
  ['sweepKeys', sweepKeysBindings, [sweepKeysEntry], [sweepKeysShader()]],
  ['sweepGather', sweepGatherBindings, [sweepGatherEntry], [sweepGatherShader()]],
  ['sweepPairs', sweepPairsBindings, [sweepPairsEntry], [sweepPairsShader()]],
  ['sweepBoxes', sweepBoxesBindings, [sweepBoxesEntry], KINDS.map((kind) => sweepBoxesShader({ kind }))],
  ['bvhCodes', bvhCodesBindings, [bvhCodesEntry], [bvhCodesShader()]],
  ['bvhCodesHi', bvhCodesHiBindings, [bvhCodesHiEntry], [bvhCodesHiShader()]],
  ['bvhGather', bvhGatherBindings, [bvhGatherEntry], [bvhGatherShader()]],
  ['bvhPyramid', bvhPyramidBindings, [bvhPyramidEntry], [bvhPyramidShader()]],
  ['bvhNodes', bvhNodesBindings, [bvhNodesEntry], [bvhNodesShader()]],
  ['meshCodes', meshCodesBindings, [meshCodesEntry], [meshCodesShader()]],
  ['meshCodesHi', meshCodesHiBindings, [meshCodesHiEntry], [meshCodesHiShader()]],
  ['meshLeaves', meshLeavesBindings, [meshLeavesEntry], [meshLeavesShader()]],
  ['meshSplits', meshSplitsBindings, [meshSplitsEntry], [meshSplitsShader()]],
  ['meshTopology', meshTopologyBindings, [meshTopologyEntry], [meshTopologyShader()]],
  ['meshCount', meshCountBindings, [meshCountEntry], [meshCountShader()]],
  ['meshBuckets', meshBucketsBindings, [meshBucketsEntry], [meshBucketsShader()]],
  ['meshBoxes', meshBoxesBindings, [meshBoxesEntry], [meshBoxesShader()]],
  [
    'meshCast',
    meshCastBindings,
    [meshCastEntry],
    MODES.flatMap((mode) => [false, true].map((ray) => meshCastShader({ mode, ray }))),
  ],
  ['meshContacts', meshContactsBindings, [meshContactsEntry], [meshContactsShader()]],
  ['bvhPairs', bvhPairsBindings, [bvhPairsEntry], [bvhPairsShader()]],
  ['bvhBoxCodes', bvhBoxCodesBindings, [bvhBoxCodesEntry], KINDS.map((kind) => bvhBoxCodesShader({ kind }))],
  ['bvhBoxes', bvhBoxesBindings, [bvhBoxesEntry], KINDS.map((kind) => bvhBoxesShader({ kind }))],
  ['radix keys', radixKeysBindings, RADIX, [radixSortShader({ values: false })]],
  ['radix pairs', radixPairsBindings, RADIX, [radixSortShader({ values: true })]],
  ['radix subgroup keys', radixSubgroupKeysBindings, RADIX_SUBGROUP, [radixSortSubgroupShader({ values: false })]],
  ['radix subgroup pairs', radixSubgroupPairsBindings, RADIX_SUBGROUP, [radixSortSubgroupShader({ values: true })]],
];

/** The particle solver's kernels (test/particles/particleKernels.test.ts checks their bindings): entry points and every variant. */
const BOTH = [false, true];
const PARTICLE_KERNELS: [string, EntryPoint[], string[]][] = [
  ['particleGather', [particleGatherEntry], [particleGatherShader()]],
  ['particleDecide', [particleDecideEntry], [particleDecideShader()]],
  ['particleCarry', [particleCarryEntry], [particleCarryShader()]],
  ['particleScatterIds', [particleScatterIdsEntry], [particleScatterIdsShader()]],
  ['particleStable', [particleStableEntry], [particleStableShader()]],
  ['particleReach', [particleReachEntry], [particleReachShader()]],
  ['particleCount', [particleCountEntry], LAYOUTS.map((layout) => particleCountShader(layout))],
  ['particleFill', [particleFillEntry], LAYOUTS.map((layout) => particleFillShader(layout))],
  [
    'particlePrepare',
    [particlePrepareEntry],
    BOTH.flatMap((first) => BOTH.map((colliders) => particlePrepareShader({ first, colliders }))),
  ],
  ['particlePrepareWalls (over the walled list)', [particlePrepareWallsEntry], [particlePrepareWallsShader()]],
  [
    'particleSettleWalls (over the wall settle list)',
    [particleSettleWallsEntry],
    BOTH.map((friction) => particleSettleWallsShader({ friction })),
  ],
  [
    'particleSettle (over the settle list)',
    [particleSettleEntry],
    BOTH.map((friction) => particleSettleShader({ friction })),
  ],
  ['particleIntegrate (over the busy list)', [particleIntegrateEntry], [particleIntegrateShader()]],
  ['colourStart', [colourStartEntry], [colourStartShader()]],
  ['colourTentative', [colourTentativeEntry], [colourTentativeShader()]],
  ['colourResolve', [colourResolveEntry], [colourResolveShader()]],
  ['colourRoundArgs', [colourRoundArgsEntry], [colourRoundArgsShader()]],
  ['colourWorkArgs', [colourWorkArgsEntry], [colourWorkArgsShader()]],
  ['colourCount', [colourCountEntry], [colourCountShader()]],
  ['colourPlan', [colourPlanEntry], [colourPlanShader()]],
  ['colourScatter', [colourScatterEntry], [colourScatterShader()]],
  ['pairSolve', [pairSolveEntry], BOTH.map((friction) => pairSolveShader({ friction }))],
  ['pairSolveTail', [pairSolveTailEntry], BOTH.map((friction) => pairSolveTailShader({ friction }))],
  ['overflowSolve', [overflowSolveEntry], BOTH.map((friction) => overflowSolveShader({ friction }))],
  ['overflowApply', [overflowApplyEntry], [overflowApplyShader()]],
  ['particleSplit', [particleSplitEntry], [particleSplitShader()]],
  [
    'particleBusyArgs',
    [particleBusyArgsEntry],
    (['busy', 'walled', 'settle'] as const).map((list) => particleBusyArgsShader({ list })),
  ],
  ['particleSleep', [particleSleepEntry], [particleSleepShader()]],
  ['particleWriteBack', [particleWriteBackEntry], [particleWriteBackShader()]],
  ['colliderFind', [colliderFindEntry], LAYOUTS.map((layout) => colliderFindShader(layout))],
  ['colliderList', [colliderListEntry], BOTH.map((meshes) => colliderListShader({ meshes }))],
  ['colliderPrepare', [colliderPrepareEntry], BOTH.map((meshes) => colliderPrepareShader({ meshes }))],
  ['colliderCells', [colliderCellsEntry], [colliderCellsShader()]],
  ['colliderFindWide', [colliderFindWideEntry], [colliderFindWideShader()]],
  ['colliderWideArgs', [colliderWideArgsEntry], [colliderWideArgsShader()]],
  ['colliderContacts', [colliderContactsEntry], [colliderContactsShader()]],
  ['colliderContactsArgs', [colliderContactsArgsEntry], [colliderContactsArgsShader()]],
  ['colliderMove', [colliderMoveEntry], [colliderMoveShader()]],
  ['colliderSpeed', [colliderSpeedEntry], [colliderSpeedShader()]],
  ['meshFind', [meshFindEntry], [meshFindShader()]],
  ['meshReduce', [meshReduceEntry], [meshReduceShader()]],
  ['meshColliderContacts', [meshColliderContactsEntry], [meshColliderContactsShader()]],
];

interface ReflectedType {
  name: string;
  format?: ReflectedType;
  count?: number;
}

/** A reflected type written as WGSL writes it: `array<vec4f>`, `array<u32, 2>`, `array<atomic<u32>>`, `GridParams`. */
function typeString(t: ReflectedType): string {
  if (!t.format) return t.name;
  const inner = typeString(t.format);
  if (t.name !== 'array') return `${t.name}<${inner}>`;
  return t.count ? `array<${inner}, ${t.count}>` : `array<${inner}>`;
}

function reflectedBindings(code: string): [number, string, BindingKind, string][] {
  const reflect = new WgslReflect(code);
  const vars = [
    ...reflect.uniforms.map((v) => ({ v, kind: 'uniform' as BindingKind })),
    ...reflect.storage.map((v) => ({
      v,
      kind: ((v as unknown as { access: string }).access === 'read_write'
        ? 'storage'
        : 'read-only-storage') as BindingKind,
    })),
  ];
  expect(
    vars.every(({ v }) => v.group === 0),
    'every binding in group 0',
  ).toBe(true);
  return vars
    .map(({ v, kind }): [number, string, BindingKind, string] => [
      v.binding,
      v.name,
      kind,
      typeString(v.type as unknown as ReflectedType),
    ])
    .sort((a, b) => a[0] - b[0]);
}

/** A pipeline of one thread running `body` over `decl`'s bindings, in its layout. */
function onePipeline(decl: Bindings<string>, body: string): GPUComputePipeline {
  const module = gpu.device.createShaderModule({
    code: `${decl.wgsl}
      @compute @workgroup_size(1) fn main() { ${body} }`,
  });
  return gpu.device.createComputePipeline({
    layout: gpu.device.createPipelineLayout({ bindGroupLayouts: [decl.layout(gpu.device)] }),
    compute: { module, entryPoint: 'main' },
  });
}

describe('kernel declarations', () => {
  for (const [name, decl, , codes] of KERNELS) {
    it(`${name}: the WGSL of each of its ${codes.length} variant(s) declares exactly its bindings, in order`, () => {
      // WGSL has no dynamic uniform: the offset is the layout's and the bind call's.
      const declared = decl.entries.map((e): [number, string, BindingKind, string] => [
        e.binding,
        e.name,
        e.kind === 'dynamic-uniform' ? 'uniform' : e.kind,
        e.type,
      ]);
      expect(declared.map(([binding]) => binding)).toEqual(declared.map((_, k) => k));
      for (const code of codes) {
        expect(reflectedBindings(code)).toEqual(declared);
        expect(code).not.toMatch(/@binding\((?!\d+\) var<)/); // no binding but the declaration's
      }
    });
  }

  it('every kernel of the Collider is listed above (each declaration once)', () => {
    expect(new Set(KERNELS.map(([, decl]) => decl)).size).toBe(KERNELS.length);
  });

  it('writes lines the array sizing finds (src/gpu/pipeline.ts, runtimeArrays), with their bindings and strides', () => {
    const decl = bindings({
      params: uniform('P'),
      spheres: readOnly('array<vec4f>'),
      pairs: readWrite('array<vec2u>'),
      counts: readWrite('array<atomic<u32>>'),
      fixed: readOnly('array<u32, 3>'),
    });
    expect(decl.wgsl.split('\n')).toEqual([
      '@group(0) @binding(0) var<uniform> params: P;',
      '@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;',
      '@group(0) @binding(2) var<storage, read_write> pairs: array<vec2u>;',
      '@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;',
      '@group(0) @binding(4) var<storage, read> fixed: array<u32, 3>;',
    ]);
    expect(runtimeArrays(decl.wgsl).map((a) => [a.binding, a.name, a.stride])).toEqual([
      [1, 'spheres', 16],
      [2, 'pairs', 8],
      [3, 'counts', 4],
    ]);
    expect(decl.index).toEqual({ params: 0, spheres: 1, pairs: 2, counts: 3, fixed: 4 });
    expect(decl.kinds).toEqual(['uniform', 'read-only-storage', 'storage', 'storage', 'read-only-storage']);
    expect(() => bindings({ 'not a name': uniform('P') })).toThrow(/identifier/);
  });

  it('binds by name: each resource at its binding, the layout shared with an equal declaration; a missing name throws', async () => {
    const decl = bindings({ params: uniform('vec4u'), data: readWrite('array<u32>') });
    const same = bindings({ other: uniform('vec4f'), values: readWrite('array<f32>') });
    expect(decl.layout(gpu.device)).toBe(same.layout(gpu.device));
    const pipeline = onePipeline(decl, 'data[params.x] = params.y;');
    const params = gpu.device.createBuffer({ size: 16, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
    const data = gpu.device.createBuffer({ size: 16, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
    const staging = gpu.device.createBuffer({ size: 16, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
    gpu.device.queue.writeBuffer(params, 0, new Uint32Array([2, 77, 0, 0]));
    const encoder = gpu.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    // Named in another order than declared: each lands at its own binding.
    pass.setBindGroup(0, decl.bind(gpu.device, 'test', { data, params }));
    pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(data, 0, staging, 0, 16);
    gpu.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(MapMode.READ);
    expect(Array.from(new Uint32Array(staging.getMappedRange()))).toEqual([0, 0, 77, 0]);
    staging.unmap();
    // @ts-expect-error: a name the declaration does not have, and one missing
    expect(() => decl.bind(gpu.device, 'test', { params, dta: data })).toThrow(/no resource for data/);
    for (const b of [params, data, staging]) b.destroy();
  });

  it('a dynamic uniform: one bind group, a slot of the buffer chosen at each set', async () => {
    const decl = bindings({ slot: dynamicUniform('vec4u'), data: readWrite('array<u32>') });
    expect(decl.kinds).toEqual(['dynamic-uniform', 'storage']);
    expect(decl.layout(gpu.device)).not.toBe(
      bindings({ p: uniform('vec4u'), d: readWrite('array<u32>') }).layout(gpu.device),
    );
    const pipeline = onePipeline(decl, 'data[slot.x] = slot.y;');
    const slots = gpu.device.createBuffer({ size: 512, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
    const data = gpu.device.createBuffer({ size: 16, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
    gpu.device.queue.writeBuffer(slots, 0, new Uint32Array([1, 11, 0, 0]));
    gpu.device.queue.writeBuffer(slots, 256, new Uint32Array([3, 33, 0, 0]));
    const group = decl.bind(gpu.device, 'test', { slot: { buffer: slots, size: 16 }, data });
    const encoder = gpu.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    for (const offset of [0, 256]) {
      setPipelineAndGroup(pass, pipeline, group, [offset]);
      pass.dispatchWorkgroups(1);
    }
    pass.end();
    gpu.device.queue.submit([encoder.finish()]);
    expect(Array.from(new Uint32Array(await readBuffer(gpu.device, data, 0, 16)))).toEqual([0, 11, 0, 33]);
    for (const b of [slots, data]) b.destroy();
  });
});

interface ReflectedFunction {
  name: string;
  attributes?: { name: string; value: unknown }[];
  arguments: { name: string; type: { name: string }; attributes?: { name: string; value: unknown }[] }[];
  workgroupSize: number[] | null;
}

const attribute = (f: { attributes?: { name: string; value: unknown }[] }, name: string): unknown =>
  f.attributes?.find((a) => a.name === name)?.value;

describe('entry points', () => {
  const all: [string, EntryPoint[], string[]][] = [
    ...KERNELS.map(([name, , entries, codes]): [string, EntryPoint[], string[]] => [name, entries, codes]),
    ...PARTICLE_KERNELS,
  ];
  for (const [name, entries, codes] of all) {
    it(`${name}: each of its ${codes.length} variant(s) has exactly its declared entry points, workgroup sizes and parameters`, () => {
      for (const code of codes) {
        const reflect = new WgslReflect(code);
        const found = reflect.entry.compute as unknown as ReflectedFunction[];
        expect(found.map((f) => f.name)).toEqual(entries.map((e) => e.name));
        entries.forEach((e, k) => {
          const f = found[k];
          expect(attribute(f, 'workgroup_size'), `${e.name}'s @workgroup_size`).toBe(e.size.name);
          if (e.size.value === undefined) {
            // An override: declared in the module once, as src/gpu/kernel.ts writes it.
            expect(reflect.overrides.filter((o) => o.name === e.size.name).map((o) => o.type?.name)).toEqual(['u32']);
          } else {
            expect(f.workgroupSize?.[0], `${e.name}'s workgroup size`).toBe(e.size.value);
            expect(reflect.overrides.map((o) => o.name)).not.toContain(e.size.name);
          }
          if (e.size.wgsl !== '') expect(code.split(e.size.wgsl).length - 1, `${e.size.wgsl} once`).toBe(1);
          if (e.wgsl !== undefined) {
            // Generated: the opening as `entry` wrote it (no variant rewrites it), with its parameters.
            expect(code).toContain(e.wgsl);
            expect(f.arguments.map((a) => [a.name, attribute(a, 'builtin'), a.type.name])).toEqual(e.parameters);
          }
        });
      }
    });
  }

  it('writes the opening once: index, bounds check and size; a workgroup index; one thread; builtins', () => {
    expect(WG.wgsl).toBe('override WG: u32; // src/gpu/workgroups.ts');
    expect(overrideSize('SIZE').wgsl).toBe('override SIZE: u32; // src/gpu/workgroups.ts');
    expect(constSize('N', 64).wgsl).toBe('const N: u32 = 64u;');
    const threads = entry({ name: 'perThread', index: 't', exit: 'params.skip != 0u', bound: 'params.count' });
    expect(threads.wgsl.split('\n')).toEqual([
      '@compute @workgroup_size(WG)',
      'fn perThread(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {',
      '  let t = flatWorkgroup(wid, nwg) * WG + lid;',
      '  if (params.skip != 0u || t >= params.count) {',
      '    return;',
      '  }',
    ]);
    expect(threads.parameters).toEqual([
      ['wid', 'workgroup_id', 'vec3u'],
      ['nwg', 'num_workgroups', 'vec3u'],
      ['lid', 'local_invocation_index', 'u32'],
    ]);
    expect(
      entry({ name: 'tiles', size: TILE, index: 'tile', per: 'workgroup', bound: 'params.tiles' })
        .wgsl.split('\n')
        .slice(2),
    ).toEqual(['  let tile = flatWorkgroup(wid, nwg);', '  if (tile >= params.tiles) {', '    return;', '  }']);
    // No bound: threads past the work stay (a kernel whose threads meet at barriers).
    expect(entry({ name: 'all', index: 'k' }).wgsl.split('\n').slice(2)).toEqual([
      '  let k = flatWorkgroup(wid, nwg) * WG + lid;',
    ]);
    expect(entry({ name: 'one', size: ONE_THREAD }).wgsl).toBe('@compute @workgroup_size(1)\nfn one() {');
    const lanes = entry({
      name: 'lanes',
      size: constSize('SG', 64),
      builtins: { lane: 'subgroup_invocation_id', width: 'subgroup_size' },
    });
    expect(lanes.wgsl).toBe(
      '@compute @workgroup_size(SG)\nfn lanes(@builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) width: u32) {',
    );
    // WGSL mixes || and && only in parentheses.
    expect(entry({ name: 'both', index: 't', exit: 'a && b', bound: 'n' }).wgsl).toContain(
      '  if ((a && b) || t >= n) {',
    );
    expect(() => entry({ name: 'not a name' })).toThrow(/identifier/);
    expect(() => entry({ name: 'k', bound: 'n' })).toThrow(/without an index/);
    expect(() => entry({ name: 'k', index: 'lid' })).toThrow(/repeat/);
    expect(() => constSize('N', 0)).toThrow(/positive/);
  });

  it('runs on the device: the index over a 2-D dispatch, the exit and the bound, per thread and per workgroup', async () => {
    const decl = bindings({ params: uniform('vec4u'), data: readWrite('array<u32>') });
    const threads = entry({ name: 'threads', index: 't', exit: 'params.y != 0u', bound: 'params.x' });
    const tiles = entry({ name: 'tiles', index: 'tile', per: 'workgroup', bound: 'params.z' });
    const module = gpu.device.createShaderModule({
      code: `${decl.wgsl}
${flatWorkgroup}
${WG.wgsl}
${threads.wgsl}
  data[t] = t + 1u;
}
${tiles.wgsl}
  data[64u + tile * WG + lid] = tile + 1u;
}`,
    });
    const layout = gpu.device.createPipelineLayout({ bindGroupLayouts: [decl.layout(gpu.device)] });
    const pipelines = [threads, tiles].map((e) =>
      gpu.device.createComputePipeline({ layout, compute: { module, entryPoint: e.name, constants: { WG: 4 } } }),
    );
    // count 10, skip, tiles 5; 3 × 2 workgroups of 4: 24 threads, 6 workgroups.
    const run = async (params: number[]): Promise<number[]> => {
      const uniforms = gpu.device.createBuffer({ size: 16, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
      const data = gpu.device.createBuffer({ size: 96 * 4, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const staging = gpu.device.createBuffer({ size: 96 * 4, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
      gpu.device.queue.writeBuffer(uniforms, 0, new Uint32Array(params));
      const encoder = gpu.device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setBindGroup(0, decl.bind(gpu.device, 'entry test', { params: uniforms, data }));
      for (const pipeline of pipelines) {
        pass.setPipeline(pipeline);
        pass.dispatchWorkgroups(3, 2);
      }
      pass.end();
      encoder.copyBufferToBuffer(data, 0, staging, 0, 96 * 4);
      gpu.device.queue.submit([encoder.finish()]);
      await staging.mapAsync(MapMode.READ);
      const out = Array.from(new Uint32Array(staging.getMappedRange()));
      staging.unmap();
      for (const b of [uniforms, data, staging]) b.destroy();
      return out;
    };
    const expected = (skip: boolean): number[] =>
      Array.from({ length: 96 }, (_, i) => {
        if (i < 64) return !skip && i < 10 ? i + 1 : 0;
        const tile = Math.floor((i - 64) / 4);
        return tile < 5 ? tile + 1 : 0;
      });
    expect(await run([10, 0, 5, 0])).toEqual(expected(false));
    expect(await run([10, 1, 5, 0])).toEqual(expected(true));
  });
});

describe('grid walks (shaders/spatial/walk.wgsl.ts)', () => {
  const walk = { level: '0u', lo: 'vec3u(0u)', hi: 'vec3u(1u)' };
  for (const dense of [true, false]) {
    it(`a visit body that names what the ${dense ? 'dense' : 'hashed'} walk declares is refused, naming it; q, u and members are its own`, () => {
      expect(() => walkRows({ ...walk, dense, visit: 'appendPairAt(end, sortedId[u], k);' })).toThrow(/`end`/);
      expect(() => walkRows({ ...walk, dense, levelScan: true, visit: 'let w = k0 + 1u;' })).toThrow(/`k0`/);
      expect(() =>
        visitLevel({ dense, level: '0u', lo: 'vec3u(0u)', hi: 'vec3u(1u)', visit: 'total += scanLevel;' }),
      ).toThrow(/`scanLevel`/);
      const code = walkRows({
        ...walk,
        dense,
        levelScan: true,
        visit: 'if (q.w > previous.y) { appendPairAt(pairEnd, sortedId[u], k); }',
      });
      expect(code.split('appendPairAt(pairEnd, sortedId[u], k)').length - 1).toBe(2); // the row walk's and the level scan's
    });
  }
});
