/**
 * Triangle meshes (`--suites meshes [--mesh-sizes 10000,100000,1000000 --mesh-rays 100000]`):
 * the GPU build and refit of a mesh's BVH, first-hit rays (coherent and incoherent) and sphere
 * casts against it, beside three-mesh-bvh on the CPU (the three.js standard: `new
 * MeshBVH(geometry)` with its defaults, `raycastFirst` per ray, double-sided), on a torus knot
 * of three's own geometry (TorusKnotGeometry, its segments chosen for the triangle count).
 *
 *   build      GPU: createMesh until the queue is done (upload, codes, two sorts, leaves, pyramid,
 *              nodes);
 *              three-mesh-bvh: `new MeshBVH(geometry)` (each from the knot's own index order,
 *              which its build rearranges in place; "rebuild": again on the order it left)
 *   refit      GPU: `encodeRefit` from positions already on the GPU, until the queue is done;
 *              three-mesh-bvh: `bvh.refit()`
 *   rays       GPU: `raycastMesh` (validation, upload, walk, read-back of every hit record);
 *              three-mesh-bvh: `raycastFirst` for each ray. Coherent: parallel rays from a grid
 *              facing the knot; incoherent: from random points in its box to random ones
 *   casts      GPU: `sphereCastMesh`, radius 1% of the knot's size (three-mesh-bvh has none)
 *
 * GPU ms (timestamp queries): the build's passes (`createMesh`'s timer), a refit's, and an
 * encoded batch's (`encodeRaycastMesh` on rays already on the GPU), where the adapter has
 * timestamps; each after 300 ms of keeping the GPU busy (warmGpu: a GPU idle between short
 * submissions runs them at its idle clock), a refit's and a batch's the mean of 8 recorded into
 * one submission. `--mesh-methods gpu` leaves three-mesh-bvh out (a lent GPU's run).
 *
 * Before any time counts, the GPU's first hits are held against three-mesh-bvh's: the same
 * triangle (its three vertex indices: three-mesh-bvh's build reorders the index), or the same
 * distance within 1e-4 of the knot's size (a ray through a shared edge may name either
 * triangle); the count of the others, and of the hits that name another triangle at the same
 * distance, is in the notes.
 */
import { TorusKnotGeometry, Ray, Vector3, DoubleSide, BufferAttribute } from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { BufferUsage } from '../../src/gpu/flags.js';
import { GpuTimer } from '../../src/gpu/timer.js';
import { workDone } from '../../src/gpu/wait.js';
import { mulberry32 } from '../../test/support/random.js';
import { summarize } from '../stats.js';
import type { Context, Row } from '../harness.js';
import type { EncodedMeshHits } from '../../src/mesh/queries.js';

/** A torus knot of about `triangles` triangles: 2 · tubular · radial of them, tubular = 8 · radial. */
export function knot(triangles: number): {
  positions: Float32Array;
  indices: Uint32Array;
  geometry: TorusKnotGeometry;
} {
  const radial = Math.max(3, Math.round(Math.sqrt(triangles / 16)));
  const geometry = new TorusKnotGeometry(10, 3, 8 * radial, radial);
  const positions = new Float32Array(geometry.getAttribute('position').array);
  const index = geometry.getIndex()!;
  const indices = new Uint32Array(index.array);
  geometry.setIndex(new BufferAttribute(indices, 1));
  return { positions, indices, geometry };
}

/** Rays 6 floats each: coherent (a grid of parallel rays along −z) or incoherent (random point to random point in the box). */
export function meshRays(kind: 'coherent' | 'incoherent', count: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const rays = new Float32Array(6 * count);
  const side = Math.ceil(Math.sqrt(count));
  for (let k = 0; k < count; k++) {
    if (kind === 'coherent') {
      const x = -15 + (30 * (k % side)) / side;
      const y = -15 + (30 * Math.floor(k / side)) / side;
      rays.set([x, y, 20, x, y, -20], 6 * k);
    } else {
      rays.set(
        Array.from({ length: 6 }, () => -16 + 32 * rand()),
        6 * k,
      );
    }
  }
  return rays;
}

function threeFirstHits(bvh: MeshBVH, rays: Float32Array): { triangle: Int32Array; distance: Float32Array } {
  const n = rays.length / 6;
  const triangle = new Int32Array(n).fill(-1);
  const distance = new Float32Array(n).fill(NaN);
  const ray = new Ray();
  const end = new Vector3();
  for (let k = 0; k < n; k++) {
    ray.origin.set(rays[6 * k], rays[6 * k + 1], rays[6 * k + 2]);
    end.set(rays[6 * k + 3], rays[6 * k + 4], rays[6 * k + 5]);
    const length = end.distanceTo(ray.origin);
    ray.direction.subVectors(end, ray.origin).normalize();
    const hit = bvh.raycastFirst(ray, DoubleSide, 0, length);
    if (hit) {
      triangle[k] = hit.faceIndex ?? -1;
      distance[k] = hit.distance;
    }
  }
  return { triangle, distance };
}

/** Wall ms of `reps` runs after `warmup`; `before` runs ahead of each, untimed. */
async function timed(
  reps: number,
  warmup: number,
  run: () => Promise<unknown> | unknown,
  before?: () => void,
): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < warmup + reps; r++) {
    before?.();
    const t0 = performance.now();
    await run();
    if (r >= warmup) times.push(performance.now() - t0);
  }
  return times;
}

/** Rays or casts (6 or 7 floats) as the GPU's records, (A, radius), (B, 0), in a storage buffer. */
function queryBuffer(device: GPUDevice, queries: Float32Array, stride: 6 | 7): GPUBuffer {
  const n = queries.length / stride;
  const packed = new Float32Array(8 * n);
  for (let k = 0; k < n; k++) {
    packed.set(queries.subarray(stride * k, stride * k + 3), 8 * k);
    packed[8 * k + 3] = stride === 7 ? queries[stride * k + 6] : 0;
    packed.set(queries.subarray(stride * k + 3, stride * k + 6), 8 * k + 4);
  }
  const buffer = device.createBuffer({
    label: 'bench mesh queries',
    size: packed.byteLength,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(buffer, 0, packed);
  return buffer;
}

/**
 * Keeps the GPU busy with `record` for `ms` of wall time: a GPU idle between short submissions
 * runs them at its idle clock (an H200 idles at 345 MHz and works at 1,980: its first 1M
 * incoherent rays after a pause took 10–11 ms of GPU time, the same rays 1.9 ms once it was
 * busy; docs/PERFORMANCE.md, "Meshes"), so every GPU time here follows this.
 */
async function warmGpu(device: GPUDevice, record: (encoder: GPUCommandEncoder) => void, ms = 300): Promise<void> {
  const start = performance.now();
  do {
    const encoder = device.createCommandEncoder();
    for (let k = 0; k < GPU_BATCH; k++) record(encoder);
    device.queue.submit([encoder.finish()]);
    await workDone(device);
  } while (performance.now() - start < ms);
}

/** Runs of `record` a timed submission holds (gpuTimes): the GPU runs them back to back. */
const GPU_BATCH = 8;

/**
 * `reps` GPU times (timestamp queries) of one run of `record`, after warmGpu: each the mean of a
 * submission that records it GPU_BATCH times.
 */
async function gpuTimes(
  device: GPUDevice,
  reps: number,
  record: (encoder: GPUCommandEncoder, timer?: GpuTimer) => void,
): Promise<number[]> {
  await warmGpu(device, (encoder) => record(encoder));
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const timer = new GpuTimer(device, true, 128 * GPU_BATCH);
    const encoder = device.createCommandEncoder();
    for (let k = 0; k < GPU_BATCH; k++) record(encoder, timer);
    timer.resolve(encoder);
    device.queue.submit([encoder.finish()]);
    if (timer.enabled) times.push((await timer.read()).totalMs / GPU_BATCH);
    else await workDone(device);
    timer.destroy();
  }
  return times;
}

export async function meshesSuite(ctx: Context, sizes: number[], rayCount: number, methods: string[]): Promise<Row[]> {
  const { collider } = ctx;
  const device = collider.device;
  const rows: Row[] = [];
  const reps = Math.max(ctx.reps, 1);
  const three = methods.includes('three-mesh-bvh');
  for (const wanted of sizes) {
    const { positions, indices, geometry } = knot(wanted);
    const original = indices.slice();
    const t = indices.length / 3;
    const scene = `torus knot`;
    const size = { triangles: t };
    // Build.
    let mesh = collider.createMesh({ positions, indices });
    await mesh.ready;
    const gpuBuild = await timed(reps, 1, async () => {
      mesh.destroy();
      mesh = collider.createMesh({ positions, indices });
      await mesh.ready;
      await workDone(device);
    });
    // Positions on the GPU, for the refit (the mesh's own, moved by nothing: the work is the
    // same) and to keep the GPU busy before each timed build (warmGpu).
    const buffer = device.createBuffer({
      label: 'bench mesh positions',
      size: positions.byteLength,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(buffer, 0, positions);
    const buildGpu: number[] = [];
    for (let r = 0; r < reps; r++) {
      await warmGpu(device, (encoder) => mesh.encodeRefit(encoder, { buffer }));
      const timer = new GpuTimer(device, true);
      const timedMesh = collider.createMesh({ positions, indices }, { timer });
      await timedMesh.ready;
      const encoder = device.createCommandEncoder();
      timer.resolve(encoder);
      device.queue.submit([encoder.finish()]);
      if (timer.enabled) buildGpu.push((await timer.read()).totalMs);
      timer.destroy();
      timedMesh.destroy();
    }
    let bvh = three ? new MeshBVH(geometry) : undefined;
    rows.push({
      suite: 'meshes',
      scene,
      size,
      method: 'gpu build',
      wallMs: summarize(gpuBuild),
      ...(buildGpu.length ? { gpuMs: summarize(buildGpu) } : {}),
    });
    if (three) {
      // Each build from the knot's own order, as ours: three-mesh-bvh's build reorders the
      // geometry's index in place, and built again on that order it takes about a fifth less
      // (the row after: a rebuild of a mesh it has built before; not the goal's peer).
      const threeBuild = await timed(
        reps,
        1,
        () => {
          bvh = new MeshBVH(geometry);
        },
        () => indices.set(original),
      );
      rows.push({ suite: 'meshes', scene, size, method: 'three-mesh-bvh build', wallMs: summarize(threeBuild) });
      const rebuild = await timed(reps, 1, () => {
        bvh = new MeshBVH(geometry);
      });
      rows.push({
        suite: 'meshes',
        scene,
        size,
        method: 'three-mesh-bvh rebuild',
        wallMs: summarize(rebuild),
        note: 'built again on the index order its last build left',
      });
    }
    // Refit, from positions on the GPU.
    const gpuRefit = await timed(reps, 1, async () => {
      const encoder = device.createCommandEncoder();
      mesh.encodeRefit(encoder, { buffer });
      device.queue.submit([encoder.finish()]);
      await workDone(device);
    });
    const refitGpu = await gpuTimes(device, reps, (encoder, timer) => mesh.encodeRefit(encoder, { buffer }, timer));
    rows.push({
      suite: 'meshes',
      scene,
      size,
      method: 'gpu refit',
      wallMs: summarize(gpuRefit),
      ...(refitGpu.length ? { gpuMs: summarize(refitGpu) } : {}),
    });
    if (bvh) {
      const b = bvh;
      const threeRefit = await timed(reps, 1, () => b.refit());
      rows.push({ suite: 'meshes', scene, size, method: 'three-mesh-bvh refit', wallMs: summarize(threeRefit) });
    }
    // Rays.
    for (const kind of ['coherent', 'incoherent'] as const) {
      const rays = meshRays(kind, rayCount, 11);
      const gpu = await collider.raycastMesh(rays, mesh);
      const gpuTimes_ = await timed(reps, 1, () => collider.raycastMesh(rays, mesh));
      const rayBuffer = queryBuffer(device, rays, 6);
      let into: EncodedMeshHits | undefined;
      const gpuMs = await gpuTimes(device, reps, (encoder, timer) => {
        into = collider.encodeRaycastMesh(encoder, { buffer: rayBuffer, count: rayCount }, mesh, { timer, into });
      });
      into?.destroy();
      rayBuffer.destroy();
      const g = summarize(gpuTimes_);
      const gm = gpuMs.length ? summarize(gpuMs) : undefined;
      const common = { suite: 'meshes', scene: `${scene}, ${kind} rays`, size: { triangles: t, rays: rayCount } };
      const rate = { unit: 'rays/s', value: rayCount / ((gm ?? g).median / 1000) };
      if (!bvh) {
        rows.push({
          ...common,
          method: 'gpu raycastMesh',
          answer: gpu.triangle.filter((x) => x >= 0).length,
          wallMs: g,
          ...(gm ? { gpuMs: gm } : {}),
          rate,
        });
        continue;
      }
      const threeHits = threeFirstHits(bvh, rays);
      let differ = 0;
      let hits = 0;
      let otherTriangle = 0;
      // Our triangle g is (original[3g], ...); three-mesh-bvh's face f is (indices[3f], ...) in
      // the order its last build left the index (it moves whole triangles, corners in order).
      const sameTriangle = (g: number, f: number) =>
        g < 0 || f < 0
          ? g === f
          : original[3 * g] === indices[3 * f] &&
            original[3 * g + 1] === indices[3 * f + 1] &&
            original[3 * g + 2] === indices[3 * f + 2];
      for (let k = 0; k < rayCount; k++) {
        if (threeHits.triangle[k] >= 0) hits++;
        const sameFace = sameTriangle(gpu.triangle[k], threeHits.triangle[k]);
        const near =
          gpu.triangle[k] >= 0 &&
          threeHits.triangle[k] >= 0 &&
          Math.abs(gpu.distance[k] - threeHits.distance[k]) <= 4e-3;
        if (!sameFace && near) otherTriangle++;
        if (!(sameFace && (gpu.triangle[k] < 0 || near)) && !near) differ++;
      }
      const b = bvh;
      const c = summarize(await timed(reps, 1, () => threeFirstHits(b, rays)));
      rows.push({
        ...common,
        method: 'gpu raycastMesh',
        answer: hits,
        wallMs: g,
        ...(gm ? { gpuMs: gm } : {}),
        rate,
        note: `${differ} of ${rayCount} differ from three-mesh-bvh beyond a near tie (${otherTriangle} name another triangle at the same distance: a shared edge or vertex); wall ${(g.median / c.median).toFixed(2)}× three-mesh-bvh's time`,
      });
      rows.push({
        ...common,
        method: 'three-mesh-bvh raycastFirst',
        answer: hits,
        wallMs: c,
        rate: { unit: 'rays/s', value: rayCount / (c.median / 1000) },
      });
      console.log(
        `meshes ${t} ${kind}: gpu ${g.median.toFixed(1)} ms, three-mesh-bvh ${c.median.toFixed(1)} ms, ${differ} differ`,
      );
    }
    // Sphere casts: the incoherent rays with a radius.
    const rays = meshRays('incoherent', rayCount, 12);
    const casts = new Float32Array(7 * rayCount);
    for (let k = 0; k < rayCount; k++) {
      casts.set(rays.subarray(6 * k, 6 * k + 6), 7 * k);
      casts[7 * k + 6] = 0.3;
    }
    const first = await collider.sphereCastMesh(casts, mesh);
    const castTimes = summarize(await timed(reps, 1, () => collider.sphereCastMesh(casts, mesh)));
    rows.push({
      suite: 'meshes',
      scene: `${scene}, incoherent sphere casts r 0.3`,
      size: { triangles: t, casts: rayCount },
      method: 'gpu sphereCastMesh',
      answer: first.triangle.filter((x) => x >= 0).length,
      wallMs: castTimes,
      rate: { unit: 'casts/s', value: rayCount / (castTimes.median / 1000) },
      note: 'three-mesh-bvh has no sphere cast',
    });
    buffer.destroy();
    mesh.destroy();
    geometry.dispose();
  }
  return rows;
}
