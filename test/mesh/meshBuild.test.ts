/**
 * The mesh's BVH as the GPU builds and refits it, read back and checked whole: the leaves are a
 * permutation of the triangles holding their vertices, every triangle is reached once from the
 * root, every node holds its children's boxes (the exact f32 bounds of the vertices, so the
 * check is exact) and its height, its split is the radix tree's (where its run's keys share the
 * shortest prefix), the depth is within the walks' stack and sizes it; a refit keeps the tree's shape and
 * makes the same checks hold for the new vertices. Seeded triangle soups (the seed in the test
 * name), with coincident and degenerate triangles, 0 to 100,000 triangles.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { createCollider } from '../../src/collider.js';
import { CapacityError } from '../../src/errors.js';
import { mulberry32 } from '../support/random.js';
import { readBuffer } from '../../src/gpu/buffers.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { BvhChildBoxes } from '../../shaders/spatial/bvhLayout.js';
import { BVH_LEAF, BVH_MAX_DEPTH } from '../../src/spatial/bvhShape.js';
import type { ColliderMesh } from '../../src/mesh/mesh.js';
import type { MeshBuilder } from '../../src/mesh/builder.js';

const gpu = useGpu();

/** A soup of `count` triangles around random points in a box `span` wide (some coincident, some degenerate). */
function soup(count: number, seed: number, span = 100): { positions: Float32Array; indices: Uint32Array } {
  const rand = mulberry32(seed);
  const positions = new Float32Array(9 * count);
  for (let t = 0; t < count; t++) {
    const c = [rand() * span, rand() * span, rand() * span];
    const size = rand() < 0.05 ? span / 4 : span / 200;
    for (let v = 0; v < 3; v++) for (let a = 0; a < 3; a++) positions[9 * t + 3 * v + a] = c[a] + (rand() - 0.5) * size;
    if (t > 0 && rand() < 0.05) positions.copyWithin(9 * t, 9 * (t - 1), 9 * t); // coincident with the one before
    if (rand() < 0.03) positions.copyWithin(9 * t + 3, 9 * t, 9 * t + 3); // a repeated vertex: degenerate
  }
  const indices = new Uint32Array(3 * count).map((_, i) => i);
  return { positions, indices };
}

async function readTree(mesh: ColliderMesh) {
  const t = mesh.triangleCount;
  const bytes = await readBuffer(gpu.device, mesh.tree.children, 0, BvhChildBoxes.size * Math.max(t - 1, 1));
  const sorted = new Float32Array(await readBuffer(gpu.device, mesh.tree.sorted, 0, 48 * t));
  const ids = new Uint32Array(await readBuffer(gpu.device, mesh.tree.ids, 0, 4 * t));
  // The leaves' keys (high and low word of the centroid's Morton code, by triangle: the build
  // scratch of the Collider's MeshBuilder, as the last build left it), in sorted order.
  const keyBuffer = (mesh as unknown as { builder: MeshBuilder }).builder.scratch(t).keys;
  const byTriangle = new Uint32Array(await readBuffer(gpu.device, keyBuffer, 0, 8 * t));
  const ids0 = new Uint32Array(await readBuffer(gpu.device, mesh.tree.ids, 0, 4 * t));
  const keys = new Uint32Array(2 * t);
  for (let k = 0; k < t; k++) keys.set(byTriangle.subarray(2 * ids0[k], 2 * ids0[k] + 2), 2 * k);
  const f = new Float32Array(bytes);
  const u = new Uint32Array(bytes);
  const o = BvhChildBoxes.offsets;
  const w = BvhChildBoxes.size / 4;
  const at = (k: number, offset: number) => [0, 1, 2].map((a) => f[w * k + offset / 4 + a]);
  const nodes = Array.from({ length: Math.max(t - 1, 0) }, (_, k) => ({
    left: u[w * k + o.left / 4],
    right: u[w * k + o.right / 4],
    height: u[w * k + o.height / 4],
    boxes: [
      { lo: at(k, o.leftLo), hi: at(k, o.leftHi) },
      { lo: at(k, o.rightLo), hi: at(k, o.rightHi) },
    ],
  }));
  return { nodes, sorted, ids, keys };
}

/** Every check of the module's comment, for `positions` the mesh holds now; returns the tree's shape. */
async function checkTree(mesh: ColliderMesh, positions: Float32Array, indices: Uint32Array): Promise<number[]> {
  const t = mesh.triangleCount;
  const { nodes, sorted, ids, keys } = await readTree(mesh);
  expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: t }, (_, k) => k));
  const wrong: string[] = [];
  const leafBox = (k: number) => {
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    for (let v = 0; v < 3; v++)
      for (let a = 0; a < 3; a++) {
        const x = sorted[12 * k + 4 * v + a];
        if (x !== positions[3 * indices[3 * ids[k] + v] + a]) wrong.push(`leaf ${k} vertex ${v}`);
        lo[a] = Math.min(lo[a], x);
        hi[a] = Math.max(hi[a], x);
      }
    return { lo, hi };
  };
  const boxes = Array.from({ length: t }, (_, k) => leafBox(k));
  expect(wrong.slice(0, 5)).toEqual([]);
  if (t < 2) return [];
  // The prefix keys j and j + 1 share, the key being (high word, low word, sorted position).
  const clz = Math.clz32;
  const across = (j: number) =>
    keys[2 * j] !== keys[2 * j + 2]
      ? clz(keys[2 * j] ^ keys[2 * j + 2])
      : keys[2 * j + 1] !== keys[2 * j + 3]
        ? 32 + clz(keys[2 * j + 1] ^ keys[2 * j + 3])
        : 64 + clz(j ^ (j + 1));
  const reached = new Uint8Array(t);
  let depth = 0;
  // Each node's record holds its children's boxes: a leaf's exactly, an internal child's the
  // union of the two boxes in that child's own record, exactly (f32 min and max round nothing).
  // Its height is the internal nodes on the longest path down from it, itself included. Its
  // leaves are a run of the sorted order, the left child's before the right's, and it is
  // numbered as Karras numbers a node: a left child by its run's last leaf, a right child by its
  // first, the root 0.
  type Walked = { lo: number[]; hi: number[]; height: number; first: number; last: number; split: number };
  const walk = (node: number, level: number): Walked => {
    depth = Math.max(depth, level);
    const n = nodes[node];
    let height = 1;
    const runs: { first: number; last: number }[] = [];
    const kidSplits: number[] = [];
    [n.left, n.right].forEach((c, side) => {
      let box: { lo: number[]; hi: number[] };
      if (c & BVH_LEAF) {
        reached[c & (BVH_LEAF - 1)]++;
        box = boxes[c & (BVH_LEAF - 1)];
        runs.push({ first: c & (BVH_LEAF - 1), last: c & (BVH_LEAF - 1) });
      } else {
        const kid = walk(c, level + 1);
        height = Math.max(height, kid.height + 1);
        box = kid;
        runs.push(kid);
        if (c !== (side === 0 ? kid.last : kid.first)) wrong.push(`node ${c} numbered out of Karras's order`);
        kidSplits.push(kid.split);
      }
      const held = n.boxes[side];
      for (let a = 0; a < 3; a++)
        if (held.lo[a] !== box.lo[a] || held.hi[a] !== box.hi[a]) wrong.push(`node ${node} child ${side} axis ${a}`);
    });
    if (n.height !== height) wrong.push(`node ${node} height ${n.height}, not ${height}`);
    if (runs[0].last + 1 !== runs[1].first) wrong.push(`node ${node}: its children's leaves are not one run`);
    // The radix tree: a node splits its run where the keys share the shortest prefix, so each
    // child's split shares a longer one.
    const split = runs[0].last;
    for (const k of kidSplits) if (!(across(k) > across(split))) wrong.push(`node ${node}: not the radix tree's split`);
    return {
      height,
      split,
      first: runs[0].first,
      last: runs[1].last,
      lo: [0, 1, 2].map((a) => Math.min(n.boxes[0].lo[a], n.boxes[1].lo[a])),
      hi: [0, 1, 2].map((a) => Math.max(n.boxes[0].hi[a], n.boxes[1].hi[a])),
    };
  };
  const all = walk(0, 1);
  expect([all.first, all.last], 'the root holds every leaf').toEqual([0, t - 1]);
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(reached.every((r) => r === 1)).toBe(true);
  expect(depth).toBeLessThanOrEqual(BVH_MAX_DEPTH);
  // The walks' stack, sized from the root's height (the depth), holds a node for every internal
  // ancestor (depth − 1 at most), and no more than 8 beyond the depth.
  expect(mesh.walkStack, `the walks' stack for depth ${depth}`).toBeGreaterThanOrEqual(depth);
  expect(mesh.walkStack, `the walks' stack for depth ${depth}`).toBeLessThan(Math.max(depth + 8, 9));
  return nodes.flatMap((n) => [n.left, n.right]);
}

describe('mesh BVH build', () => {
  for (const [count, seed] of [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
    [1000, 5],
    [100_000, 6],
  ]) {
    it(`holds every triangle once, boxes nested: ${count} triangles, seed ${seed}`, async () => {
      const { positions, indices } = soup(count, seed);
      const mesh = gpu.collider.createMesh({ positions, indices });
      await mesh.ready;
      expect(mesh.triangleCount).toBe(count);
      await checkTree(mesh, positions, indices);
      mesh.destroy();
    });
  }

  it('builds in flight together share the build scratch, which grows: the trees of builds alone (seeds 9–11)', async () => {
    const soups = [soup(300, 9), soup(30_000, 10), soup(50, 11)];
    const raw = async (mesh: ColliderMesh) => {
      await mesh.ready;
      const t = mesh.triangleCount;
      return Promise.all([
        readBuffer(gpu.device, mesh.tree.children, 0, BvhChildBoxes.size * (t - 1)),
        readBuffer(gpu.device, mesh.tree.sorted, 0, 48 * t),
        readBuffer(gpu.device, mesh.tree.ids, 0, 4 * t),
      ]).then((buffers) => buffers.map((b) => [...new Uint32Array(b)]));
    };
    // A fresh Collider, so that the second build grows its scratch while the first is queued.
    const collider = await createCollider({ device: gpu.device });
    try {
      const together = soups.map((m) => collider.createMesh(m));
      // The second build grew the scratch (the first's was destroyed, its build still queued).
      const builder = (together[0] as unknown as { builder: MeshBuilder }).builder;
      expect(builder.scratch(0).keys.size).toBeGreaterThanOrEqual(8 * 30_000);
      const alone: number[][][] = [];
      for (const m of soups) {
        const mesh = gpu.collider.createMesh(m);
        await checkTree(mesh, m.positions, m.indices);
        alone.push(await raw(mesh));
        mesh.destroy();
      }
      for (const [k, mesh] of together.entries()) expect(await raw(mesh), `mesh ${k}`).toEqual(alone[k]);
    } finally {
      collider.destroy();
    }
  });

  it('builds all-coincident triangles into a tree of their indices (seed 7)', async () => {
    const one = soup(1, 7).positions;
    const positions = new Float32Array(9 * 500).map((_, i) => one[i % 9]);
    const indices = new Uint32Array(1500).map((_, i) => i);
    const mesh = gpu.collider.createMesh({ positions, indices });
    await checkTree(mesh, positions, indices);
    mesh.destroy();
  });

  it('refit keeps the shape and bounds the moved vertices, by refit and by encodeRefit (seed 8)', async () => {
    const { positions, indices } = soup(5000, 8);
    const rand = mulberry32(80);
    const moved = positions.map((x) => x + (rand() - 0.5) * 10);
    // Refitted before its build was read back: the buckets dispatched indirectly, as the build's.
    const early = gpu.collider.createMesh({ positions, indices });
    const earlyRefit = early.refit(moved);
    const mesh = gpu.collider.createMesh({ positions, indices });
    const shape = await checkTree(mesh, positions, indices);
    await earlyRefit;
    // The keys checkTree reads are the last build's, `mesh`'s: built from the same soup, `early`'s.
    expect(await checkTree(early, moved, indices)).toEqual(shape);
    early.destroy();
    // Read back: its refits dispatch the non-empty buckets directly.
    await mesh.ready;
    expect((mesh as unknown as { bucketDispatch: unknown }).bucketDispatch).not.toBeNull();
    await mesh.refit(moved);
    expect(await checkTree(mesh, moved, indices)).toEqual(shape);
    // From a GPU buffer at an offset (copied) and at 0 (bound in place).
    const again = moved.map((x) => x * 0.5 - 7);
    for (const offset of [0, 64]) {
      const buffer = gpu.device.createBuffer({
        size: offset + again.byteLength,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
      });
      gpu.device.queue.writeBuffer(buffer, offset, again);
      const encoder = gpu.device.createCommandEncoder();
      mesh.encodeRefit(encoder, { buffer, offset });
      gpu.device.queue.submit([encoder.finish()]);
      expect(await checkTree(mesh, again, indices)).toEqual(shape);
      buffer.destroy();
      again.set(again.map((x) => x + 1));
    }
    mesh.destroy();
  });

  it('more triangles than a binding holds a node for (64 bytes each) is a CapacityError with the count', async () => {
    const small = await createCollider({ device: gpu.device, maxBindingBytes: 64 * 100 });
    const fits = soup(100, 9);
    const mesh = small.createMesh(fits);
    await checkTree(mesh, fits.positions, fits.indices);
    mesh.destroy();
    const error = (() => {
      try {
        small.createMesh(soup(101, 9));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CapacityError);
    expect(error).toMatchObject({ what: 'indices', count: 101, capacity: 100 });
    small.destroy();
  });
});
