/**
 * The LBVH's build on the GPU, node by node: the tree (children) and every node's box must be the
 * CPU twin's exactly (src/reference/bvh.ts: the same Morton codes, Karras's search and f32 leaf
 * boxes; a box is a union of leaf boxes, min and max exact, so any grouping gives the same bits).
 * The queries' tests only see boxes that are too small (a lost pair); this sees boxes too large
 * as well, and the pyramid's levels and the node pass (bvhPyramidShader, bvhNodesShader) at sizes
 * around powers of two: n below 2^9, at and past 2^9 and 2^10, not a power of two, 2^18 + 3.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { uniformScene, clusteredScene, mixedRadiiScene, outlierScene } from '../../support/scenes.js';
import { BvhBroadPhase } from '../../../src/broadphase/bvh/phase.js';
import { buildBvh } from '../../../src/reference/bvh.js';
import { validateSpheres } from '../../../src/validate.js';
import { BufferUsage, MapMode } from '../../../src/gpu/flags.js';

const gpu = useGpu();

interface GpuNodes {
  lo: Float32Array;
  hi: Float32Array;
  left: Uint32Array;
  right: Uint32Array;
}

/** Builds the tree on the GPU with a BvhBroadPhase of its own and reads its nodes back. */
async function gpuBuild(spheres: Float32Array): Promise<GpuNodes> {
  const device = gpu.device;
  const n = spheres.length / 4;
  const phase = new BvhBroadPhase({
    device,
    maxWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension,
  });
  const input = device.createBuffer({ size: spheres.byteLength, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
  const bytes = 32 * (n - 1);
  const read = device.createBuffer({ size: bytes, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  try {
    device.queue.writeBuffer(input, 0, spheres);
    phase.prepare(validateSpheres('spheres', spheres));
    const encoder = device.createCommandEncoder();
    phase.encodeBuild(encoder, input);
    // The nodes buffer is the phase's own (private: read here only).
    encoder.copyBufferToBuffer((phase as unknown as { nodes: { buffer: GPUBuffer } }).nodes.buffer, 0, read, 0, bytes);
    device.queue.submit([encoder.finish()]);
    await read.mapAsync(MapMode.READ);
    const words = new Uint32Array(read.getMappedRange().slice(0));
    const floats = new Float32Array(words.buffer);
    const nodes: GpuNodes = {
      lo: new Float32Array(3 * (n - 1)),
      hi: new Float32Array(3 * (n - 1)),
      left: new Uint32Array(n - 1),
      right: new Uint32Array(n - 1),
    };
    for (let i = 0; i < n - 1; i++) {
      nodes.lo.set(floats.subarray(8 * i, 8 * i + 3), 3 * i);
      nodes.left[i] = words[8 * i + 3];
      nodes.hi.set(floats.subarray(8 * i + 4, 8 * i + 7), 3 * i);
      nodes.right[i] = words[8 * i + 7];
    }
    return nodes;
  } finally {
    read.destroy();
    input.destroy();
    phase.destroy();
  }
}

const cases: [string, () => Float32Array][] = [
  ['uniform 300', () => uniformScene(300, { seed: 1601 })],
  ['uniform 512', () => uniformScene(512, { seed: 1602 })],
  ['clustered 513', () => clusteredScene(513, { seed: 1603 })],
  ['mixed radii 1024', () => mixedRadiiScene(1024, { seed: 1604 })],
  ['outliers 1025', () => outlierScene(1025, { seed: 1605 })],
  ['uniform 5000', () => uniformScene(5000, { seed: 1606 })],
  ['uniform 2^18 + 3', () => uniformScene(2 ** 18 + 3, { seed: 1607 })],
];

describe("broadphase: 'bvh': the GPU's tree and boxes are the twin's, bit for bit", () => {
  for (const [name, make] of cases) {
    it(name, async () => {
      const spheres = make();
      const twin = buildBvh(spheres);
      const nodes = await gpuBuild(spheres);
      const bad: string[] = [];
      twin.nodes.forEach((node, i) => {
        if (bad.length >= 5) return;
        if (nodes.left[i] !== node.left || nodes.right[i] !== node.right)
          bad.push(`node ${i}: children ${nodes.left[i]}, ${nodes.right[i]} (twin ${node.left}, ${node.right})`);
        for (let a = 0; a < 3; a++) {
          if (nodes.lo[3 * i + a] !== node.lo[a] || nodes.hi[3 * i + a] !== node.hi[a]) {
            bad.push(
              `node ${i} axis ${a}: [${nodes.lo[3 * i + a]}, ${nodes.hi[3 * i + a]}] (twin [${node.lo[a]}, ${node.hi[a]}])`,
            );
            break;
          }
        }
      });
      expect(bad).toEqual([]);
    }, 120_000);
  }
});
