/**
 * The particle solver's binding declarations (shaders/particles/*, src/gpu/kernel.ts) against the
 * WGSL of every variant that interpolates them, as wgsl_reflect parses it: the same bindings of
 * group 0, in order, with the same names, kinds and types, and no binding written by hand.
 * (test/gpu/kernel.test.ts does the same for the Collider's kernels.)
 */
import { describe, it, expect } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import type { Bindings, BindingKind } from '../../src/gpu/kernel.js';
import {
  particleGatherShader,
  gatherBindings,
  particleDecideShader,
  decideBindings,
  particleCarryShader,
  carryBindings,
  particleScatterIdsShader,
  scatterIdsBindings,
  particleStableShader,
  stableBindings,
  particleReachShader,
  reachBindings,
  particleCountShader,
  countBindings,
  particleFillShader,
  fillBindings,
} from '../../shaders/particles/search.wgsl.js';
import {
  particlePrepareShader,
  prepareBindings,
  particleSettleShader,
  settleBindings,
  particleIntegrateShader,
  integrateBindings,
} from '../../shaders/particles/substep.wgsl.js';
import {
  particlePrepareWallsShader,
  prepareWallsBindings,
  particleSettleWallsShader,
  settleWallsBindings,
} from '../../shaders/particles/walls.wgsl.js';
import {
  colourStartShader,
  colourStartBindings,
  colourTentativeShader,
  colourTentativeBindings,
  colourResolveShader,
  colourResolveBindings,
} from '../../shaders/particles/colouring.wgsl.js';
import {
  colourRoundArgsShader,
  colourWorkArgsShader,
  colourRoundArgsBindings,
  colourCountShader,
  colourCountBindings,
  colourPlanShader,
  colourPlanBindings,
  colourScatterShader,
  colourScatterBindings,
} from '../../shaders/particles/colourPlan.wgsl.js';
import {
  pairSolveShader,
  pairSolveBindings,
  pairSolveTailShader,
  pairSolveTailBindings,
  overflowSolveShader,
  overflowSolveBindings,
  overflowApplyShader,
  overflowApplyBindings,
} from '../../shaders/particles/pairs.wgsl.js';
import {
  particleSplitShader,
  splitBindings,
  particleBusyArgsShader,
  busyArgsBindings,
} from '../../shaders/particles/split.wgsl.js';
import {
  particleSleepShader,
  sleepBindings,
  particleWriteBackShader,
  writeBackBindings,
} from '../../shaders/particles/sleep.wgsl.js';
import {
  colliderFindShader,
  colliderFindBindings,
  colliderListShader,
  colliderListBindings,
  colliderPrepareShader,
  colliderPrepareBindings,
  colliderCellsShader,
  colliderCellsBindings,
} from '../../shaders/particles/colliders.wgsl.js';
import {
  colliderContactsShader,
  colliderContactsBindings,
  colliderContactsArgsShader,
  colliderContactsArgsBindings,
  meshColliderContactsShader,
  meshColliderContactsBindings,
} from '../../shaders/particles/contacts.wgsl.js';
import {
  colliderFindWideShader,
  colliderFindWideBindings,
  colliderWideArgsShader,
  colliderWideArgsBindings,
} from '../../shaders/particles/colliderWide.wgsl.js';
import {
  meshFindShader,
  meshFindBindings,
  meshReduceShader,
  meshReduceBindings,
} from '../../shaders/particles/meshes.wgsl.js';
import {
  colliderMoveShader,
  colliderMoveBindings,
  colliderSpeedShader,
  colliderSpeedBindings,
} from '../../shaders/particles/boxMotion.wgsl.js';

const LAYOUTS = [true, false].flatMap((dense) => [false, true].map((oneLevel) => ({ dense, oneLevel })));
const BOTH = [false, true];

const KERNELS: [string, Bindings<string>, string[]][] = [
  ['particleGather', gatherBindings, [particleGatherShader()]],
  ['particleDecide', decideBindings, [particleDecideShader()]],
  ['particleCarry', carryBindings, [particleCarryShader()]],
  ['particleScatterIds', scatterIdsBindings, [particleScatterIdsShader()]],
  ['particleStable', stableBindings, [particleStableShader()]],
  ['particleReach', reachBindings, [particleReachShader()]],
  ['particleCount', countBindings, LAYOUTS.map((layout) => particleCountShader(layout))],
  ['particleFill', fillBindings, LAYOUTS.map((layout) => particleFillShader(layout))],
  [
    'particlePrepare',
    prepareBindings,
    BOTH.flatMap((first) => BOTH.map((colliders) => particlePrepareShader({ first, colliders }))),
  ],
  ['particlePrepareWalls', prepareWallsBindings, [particlePrepareWallsShader()]],
  ['particleSettleWalls', settleWallsBindings, BOTH.map((friction) => particleSettleWallsShader({ friction }))],
  ['particleSettle', settleBindings, BOTH.map((friction) => particleSettleShader({ friction }))],
  ['particleIntegrate', integrateBindings, [particleIntegrateShader()]],
  ['colourStart', colourStartBindings, [colourStartShader()]],
  ['colourTentative', colourTentativeBindings, [colourTentativeShader()]],
  ['colourResolve', colourResolveBindings, [colourResolveShader()]],
  ['colourRoundArgs', colourRoundArgsBindings, [colourRoundArgsShader()]],
  ['colourWorkArgs', colourRoundArgsBindings, [colourWorkArgsShader()]],
  ['colourCount', colourCountBindings, [colourCountShader()]],
  ['colourPlan', colourPlanBindings, [colourPlanShader()]],
  ['colourScatter', colourScatterBindings, [colourScatterShader()]],
  ['pairSolve', pairSolveBindings, BOTH.map((friction) => pairSolveShader({ friction }))],
  ['pairSolveTail', pairSolveTailBindings, BOTH.map((friction) => pairSolveTailShader({ friction }))],
  ['overflowSolve', overflowSolveBindings, BOTH.map((friction) => overflowSolveShader({ friction }))],
  ['overflowApply', overflowApplyBindings, [overflowApplyShader()]],
  ['particleSplit', splitBindings, [particleSplitShader()]],
  [
    'particleBusyArgs',
    busyArgsBindings,
    (['busy', 'walled', 'settle'] as const).map((list) => particleBusyArgsShader({ list })),
  ],
  ['particleSleep', sleepBindings, [particleSleepShader()]],
  ['particleWriteBack', writeBackBindings, [particleWriteBackShader()]],
  ['colliderFind', colliderFindBindings, LAYOUTS.map((layout) => colliderFindShader(layout))],
  ['colliderList', colliderListBindings, [colliderListShader({ meshes: false }), colliderListShader({ meshes: true })]],
  [
    'colliderPrepare',
    colliderPrepareBindings,
    [colliderPrepareShader({ meshes: false }), colliderPrepareShader({ meshes: true })],
  ],
  ['colliderCells', colliderCellsBindings, [colliderCellsShader()]],
  ['colliderFindWide', colliderFindWideBindings, [colliderFindWideShader()]],
  ['colliderWideArgs', colliderWideArgsBindings, [colliderWideArgsShader()]],
  ['colliderContacts', colliderContactsBindings, [colliderContactsShader()]],
  ['colliderContactsArgs', colliderContactsArgsBindings, [colliderContactsArgsShader()]],
  ['colliderMove', colliderMoveBindings, [colliderMoveShader()]],
  ['colliderSpeed', colliderSpeedBindings, [colliderSpeedShader()]],
  ['meshFind', meshFindBindings, [meshFindShader()]],
  ['meshReduce', meshReduceBindings, [meshReduceShader()]],
  ['meshColliderContacts', meshColliderContactsBindings, [meshColliderContactsShader()]],
];

interface ReflectedType {
  name: string;
  format?: ReflectedType;
  count?: number;
}

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

describe('particle kernel declarations', () => {
  for (const [name, decl, codes] of KERNELS) {
    it(`${name}: each of its ${codes.length} variant(s) declares exactly its bindings, in order, and at most 8 storage buffers`, () => {
      // WGSL has no dynamic uniform: the offset is the layout's and the bind call's.
      const declared = decl.entries.map((e): [number, string, BindingKind, string] => [
        e.binding,
        e.name,
        e.kind === 'dynamic-uniform' ? 'uniform' : e.kind,
        e.type,
      ]);
      for (const code of codes) {
        expect(reflectedBindings(code)).toEqual(declared);
        expect(code).not.toMatch(/@binding\((?!\d+\) var<)/);
      }
      // WebGPU's default maxStorageBuffersPerShaderStage: a device made without requiredLimits runs every pass.
      expect(decl.kinds.filter((k) => k !== 'uniform').length).toBeLessThanOrEqual(8);
    });
  }
});
