/**
 * What one lane's memory access costs on this adapter: `npx tsx bench/probes/laneCosts.ts`.
 *
 * Tiny kernels over 100k invocations, each timed by timestamp queries (median of 15 after a
 * warm-up): a store alone, then the store plus loads of different kinds, then atomics. The
 * difference from the store alone, scaled to 100k accesses, is what a kernel pays per access of
 * that kind, whatever else it does. On SwiftShader (docs/PERFORMANCE.md, "What a lane's load
 * costs") the kernels of this library are bound by these numbers: count a kernel's accesses per
 * thread, multiply, and that is most of its time.
 */
import { requestNodeDevice, describeDevice } from '../../src/node.js';
import { BufferUsage, MapMode, ShaderStage } from '../../src/gpu/flags.js';

const N = 100_000;
const M = 4 * N;
const RUNS = 15;

const device = await requestNodeDevice();
const data = device.createBuffer({ label: 'probe data', size: 16 * M, usage: BufferUsage.STORAGE });
const out = device.createBuffer({ label: 'probe out', size: 4 * M, usage: BufferUsage.STORAGE });
const querySet = device.createQuerySet({ label: 'probe timestamps', type: 'timestamp', count: 2 });
const resolve = device.createBuffer({
  label: 'probe resolve',
  size: 16,
  usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
});
const read = device.createBuffer({ label: 'probe read', size: 16, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
const layout = device.createBindGroupLayout({
  label: 'probe layout',
  entries: [
    { binding: 0, visibility: ShaderStage.COMPUTE, buffer: { type: 'storage' } },
    { binding: 1, visibility: ShaderStage.COMPUTE, buffer: { type: 'storage' } },
  ],
});
const group = device.createBindGroup({
  label: 'probe group',
  layout,
  entries: [
    { binding: 0, resource: { buffer: data } },
    { binding: 1, resource: { buffer: out } },
  ],
});

/** Median GPU ms of one dispatch of a kernel whose body is `body` (i: the invocation; acc: an f32 it may add to). */
async function time(body: string, threads = N): Promise<number> {
  const code = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> a: array<vec4f, ${M}>;
@group(0) @binding(1) var<storage, read_write> o: array<atomic<u32>, ${M}>;
@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if (i >= ${threads}u) {
    return;
  }
  var acc = 0.0;
  ${body}
  atomicStore(&o[i], bitcast<u32>(acc));
}`;
  const pipeline = device.createComputePipeline({
    label: 'probe',
    layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
    compute: { module: device.createShaderModule({ label: 'probe', code }), entryPoint: 'main' },
  });
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass({
      timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(threads / 128));
    pass.end();
    encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
    encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
    device.queue.submit([encoder.finish()]);
    await read.mapAsync(MapMode.READ);
    const [begin, end] = new BigUint64Array(read.getMappedRange().slice(0));
    read.unmap();
    if (run > 0) times.push(Number(end - begin) / 1e6);
  }
  return times.sort((x, y) => x - y)[RUNS >> 1];
}

const random = (k: number) => `(i * 2654435761u + ${k * 7919}u) % ${M}u`;
const repeat = (k: number, f: (j: number) => string) => Array.from({ length: k }, (_, j) => f(j)).join('\n  ');
const K = 8;

const base = await time('');
const rows: [string, number][] = [];
const perAccess = async (name: string, body: string, accesses: number) =>
  rows.push([name, ((await time(body)) - base) / accesses]);
await perAccess(
  `f32 load, this lane's own record (a[i], ${K} a thread)`,
  repeat(K, (j) => `acc += a[(i * ${K}u + ${j}u) % ${M}u].x;`),
  K,
);
await perAccess(
  `f32 load, a random record (${K} a thread)`,
  repeat(K, (j) => `acc += a[${random(j)}].x;`),
  K,
);
await perAccess(
  `vec4f load, a random record (${K} a thread)`,
  repeat(K, (j) => `{ let v = a[${random(j)}]; acc += v.x + v.y + v.z + v.w; }`),
  K,
);
await perAccess(
  `vec4f load, the same record in every lane (${K} a thread)`,
  repeat(K, (j) => `{ let v = a[(i / 1024u + ${j}u) % ${M}u]; acc += v.x + v.y + v.z + v.w; }`),
  K,
);
await perAccess(
  `vec4f store, a random record (${K} a thread)`,
  repeat(K, (j) => `a[${random(j)}] = vec4f(acc);`),
  K,
);
await perAccess(
  `atomicAdd, a random counter (${K} a thread)`,
  repeat(K, (j) => `acc += f32(atomicAdd(&o[${random(j)}], 1u));`),
  K,
);
await perAccess(
  `atomicAdd, one counter for all (${K} a thread)`,
  repeat(K, () => `acc += f32(atomicAdd(&o[${M - 1}u], 1u));`),
  K,
);
const quarter = await time(
  repeat(4, (j) => `atomicStore(&o[(i * 4u + ${j}u) % ${M}u], ${j}u);`),
  N / 4,
);

console.log(`# What a lane's access costs\n\nadapter: ${describeDevice(device)?.label ?? 'unknown'}\n`);
console.log(
  `A kernel of 100k invocations that only stores its result: ${base.toFixed(2)} ms (25k invocations storing 4 each: ${quarter.toFixed(2)} ms).\n`,
);
console.log('| access | ms per 100k accesses |\n|---|---|');
for (const [name, ms] of rows) console.log(`| ${name} | ${(ms).toFixed(2)} |`);
device.destroy();
