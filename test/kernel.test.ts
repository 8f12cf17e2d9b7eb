/**
 * Kernel binding declarations (src/gpu/kernel.ts): every declaration of the Collider's kernels
 * against the WGSL of every shader variant that interpolates it, as wgsl_reflect parses that
 * WGSL: the same bindings of group 0, in the same order, names, kinds (uniform, read-only or
 * read-write storage) and types. And what the declarations give: the lines the array sizing of
 * src/gpu/pipeline.ts finds, the layout, and bind groups by name.
 */
import { describe, it, expect } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { useGpu } from './support/gpu.js';
import { bindings, uniform, readOnly, readWrite, type Bindings, type BindingKind } from '../src/gpu/kernel.js';
import { runtimeArrays } from '../src/gpu/pipeline.js';
import { BufferUsage, MapMode } from '../src/gpu/flags.js';
import { allPairsShader, allPairsBindings } from '../src/broadphase/all-pairs/pairs.wgsl.js';
import { boxAllPairsShader, boxAllPairsBindings } from '../src/broadphase/all-pairs/boxes.wgsl.js';
import { boxGridPairsShader, boxGridPairsBindings } from '../src/broadphase/grid/boxes.wgsl.js';
import { castAllPairsShader, castAllPairsBindings } from '../src/broadphase/all-pairs/casts.wgsl.js';
import { castGridShader, castGridBindings } from '../src/broadphase/grid/casts.wgsl.js';
import { castBvhShader, castBvhBindings } from '../src/broadphase/bvh/casts.wgsl.js';
import { gridCountShader, gridCountBindings, gridScatterShader, gridScatterBindings } from '../shaders/grid.wgsl.js';
import { gridPairsShader, gridPairsBindings } from '../src/broadphase/grid/pairs.wgsl.js';
import { residentCheckShader, residentCheckBindings, residentDispatchShader, residentDispatchBindings } from '../shaders/resident.wgsl.js';
import { scanShader, scanBindings } from '../shaders/scan.wgsl.js';
import { sweepKeysShader, sweepKeysBindings, sweepGatherShader, sweepGatherBindings, sweepPairsShader, sweepPairsBindings, sweepBoxesShader, sweepBoxesBindings } from '../src/broadphase/sweep/sweep.wgsl.js';
import {
  bvhCodesShader, bvhCodesBindings, bvhCodesHiShader, bvhCodesHiBindings, bvhGatherShader, bvhGatherBindings, bvhPyramidShader, bvhPyramidBindings,
  bvhNodesShader, bvhNodesBindings, bvhPairsShader, bvhPairsBindings, bvhBoxesShader, bvhBoxesBindings,
} from '../src/broadphase/bvh/bvh.wgsl.js';
import {
  radixSortShader, radixKeysBindings, radixPairsBindings, radixSortSubgroupShader, radixSubgroupKeysBindings, radixSubgroupPairsBindings,
} from '../shaders/radixSort.wgsl.js';

const gpu = useGpu();

const LAYOUTS = [true, false].flatMap((dense) => [false, true].map((oneLevel) => ({ dense, oneLevel })));
const KINDS = ['aabb', 'obb'] as const;
const MODES = ['nearest', 'count', 'write'] as const;

/** Every declaration of the Collider's kernels with the code of every variant that uses it. */
const KERNELS: [string, Bindings<string>, string[]][] = [
  ['allPairs', allPairsBindings, [allPairsShader()]],
  ['boxAllPairs', boxAllPairsBindings, KINDS.map((kind) => boxAllPairsShader({ kind }))],
  ['boxGridPairs', boxGridPairsBindings, KINDS.flatMap((kind) => LAYOUTS.map((layout) => boxGridPairsShader({ kind, ...layout })))],
  ['cast all-pairs', castAllPairsBindings, MODES.map((mode) => castAllPairsShader({ mode }))],
  ['cast grid', castGridBindings, MODES.flatMap((mode) => LAYOUTS.map((layout) => castGridShader({ mode, ...layout })))],
  ['cast bvh', castBvhBindings, MODES.map((mode) => castBvhShader({ mode }))],
  ['gridCount', gridCountBindings, LAYOUTS.map((layout) => gridCountShader(layout))],
  ['gridScatter', gridScatterBindings, [gridScatterShader()]],
  ['gridPairs', gridPairsBindings, LAYOUTS.map((layout) => gridPairsShader(layout))],
  ['residentCheck', residentCheckBindings, [residentCheckShader()]],
  ['residentDispatch', residentDispatchBindings, [residentDispatchShader()]],
  ['scan serial', scanBindings.serial, [scanShader({ variant: 'serial' })]],
  ['scan tiled', scanBindings.tiled, [scanShader({ variant: 'tiled' })]],
  ['sweepKeys', sweepKeysBindings, [sweepKeysShader()]],
  ['sweepGather', sweepGatherBindings, [sweepGatherShader()]],
  ['sweepPairs', sweepPairsBindings, [sweepPairsShader()]],
  ['sweepBoxes', sweepBoxesBindings, KINDS.map((kind) => sweepBoxesShader({ kind }))],
  ['bvhCodes', bvhCodesBindings, [bvhCodesShader()]],
  ['bvhCodesHi', bvhCodesHiBindings, [bvhCodesHiShader()]],
  ['bvhGather', bvhGatherBindings, [bvhGatherShader()]],
  ['bvhPyramid', bvhPyramidBindings, [bvhPyramidShader()]],
  ['bvhNodes', bvhNodesBindings, [bvhNodesShader()]],
  ['bvhPairs', bvhPairsBindings, [bvhPairsShader()]],
  ['bvhBoxes', bvhBoxesBindings, KINDS.map((kind) => bvhBoxesShader({ kind }))],
  ['radix keys', radixKeysBindings, [radixSortShader({ values: false })]],
  ['radix pairs', radixPairsBindings, [radixSortShader({ values: true })]],
  ['radix subgroup keys', radixSubgroupKeysBindings, [radixSortSubgroupShader({ values: false })]],
  ['radix subgroup pairs', radixSubgroupPairsBindings, [radixSortSubgroupShader({ values: true })]],
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
    ...reflect.storage.map((v) => ({ v, kind: ((v as unknown as { access: string }).access === 'read_write' ? 'storage' : 'read-only-storage') as BindingKind })),
  ];
  expect(vars.every(({ v }) => v.group === 0), 'every binding in group 0').toBe(true);
  return vars
    .map(({ v, kind }): [number, string, BindingKind, string] => [v.binding, v.name, kind, typeString(v.type as unknown as ReflectedType)])
    .sort((a, b) => a[0] - b[0]);
}

describe('kernel declarations', () => {
  for (const [name, decl, codes] of KERNELS) {
    it(`${name}: the WGSL of each of its ${codes.length} variant(s) declares exactly its bindings, in order`, () => {
      const declared = decl.entries.map((e): [number, string, BindingKind, string] => [e.binding, e.name, e.kind, e.type]);
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
    const decl = bindings({ params: uniform('P'), spheres: readOnly('array<vec4f>'), pairs: readWrite('array<vec2u>'), counts: readWrite('array<atomic<u32>>'), fixed: readOnly('array<u32, 3>') });
    expect(decl.wgsl.split('\n')).toEqual([
      '@group(0) @binding(0) var<uniform> params: P;',
      '@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;',
      '@group(0) @binding(2) var<storage, read_write> pairs: array<vec2u>;',
      '@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;',
      '@group(0) @binding(4) var<storage, read> fixed: array<u32, 3>;',
    ]);
    expect(runtimeArrays(decl.wgsl).map((a) => [a.binding, a.name, a.stride])).toEqual([[1, 'spheres', 16], [2, 'pairs', 8], [3, 'counts', 4]]);
    expect(decl.index).toEqual({ params: 0, spheres: 1, pairs: 2, counts: 3, fixed: 4 });
    expect(decl.kinds).toEqual(['uniform', 'read-only-storage', 'storage', 'storage', 'read-only-storage']);
    expect(() => bindings({ 'not a name': uniform('P') })).toThrow(/identifier/);
  });

  it('binds by name: each resource at its binding, the layout shared with an equal declaration; a missing name throws', async () => {
    const decl = bindings({ params: uniform('vec4u'), data: readWrite('array<u32>') });
    const same = bindings({ other: uniform('vec4f'), values: readWrite('array<f32>') });
    expect(decl.layout(gpu.device)).toBe(same.layout(gpu.device));
    const module = gpu.device.createShaderModule({
      code: `${decl.wgsl}
        @compute @workgroup_size(1) fn main() { data[params.x] = params.y; }`,
    });
    const pipeline = gpu.device.createComputePipeline({ layout: gpu.device.createPipelineLayout({ bindGroupLayouts: [decl.layout(gpu.device)] }), compute: { module, entryPoint: 'main' } });
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
});
