/**
 * The mesh queries on every engine (Dawn in dawn.node and Chromium, wgpu in Firefox and Deno):
 * a compact run of test/mesh/meshQueries.test.ts (whose three-mesh-bvh oracle needs Node's module
 * resolution), each engine's compiled build and query kernels against the double-precision
 * reference within the contract's band, on two seeded meshes (the seed in the test name); and a
 * mesh as a collider of the particle world (world.setMeshes), whose kernels each engine compiles.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import {
  bruteForceRaycastMesh,
  bruteForceSphereCastMesh,
  bruteForceSphereTriangleContacts,
} from '../../src/reference/mesh.js';
import { blob, degenerateMix, edgeCaseRays, incoherentRays, meshSphereCasts, meshSpheres } from '../support/meshes.js';
import { compareMeshContacts, compareMeshHits } from '../support/meshCompare.js';
import { createParticleWorld } from '../../src/particles/index.js';

const gpu = useGpu();

describe('mesh queries on this engine', () => {
  for (const mesh of [blob(91, 2), degenerateMix(92, 600)]) {
    it(`${mesh.name}: rays, sphere casts, all hits and contacts against the reference (seed 93)`, async () => {
      const made = gpu.collider.createMesh(mesh);
      const rays = new Float32Array([...incoherentRays(mesh, 1500, 93), ...edgeCaseRays(mesh, 500, 93)]);
      const casts = meshSphereCasts(mesh, 1500, 94);
      const spheres = meshSpheres(mesh, 500, 95);
      const hits = await gpu.collider.raycastMesh(rays, made);
      expect(hits.triangle.filter((t) => t >= 0).length).toBeGreaterThan(100);
      expect(compareMeshHits('ray', hits, bruteForceRaycastMesh(rays, mesh), rays, mesh)).toEqual([]);
      const all = await gpu.collider.sphereCastMesh(casts, made, { allHits: true });
      expect(
        compareMeshHits('cast', all, bruteForceSphereCastMesh(casts, mesh, { allHits: true }), casts, mesh, {
          allHits: true,
        }),
      ).toEqual([]);
      const pose = [1, -2, 3, 0.1, 0.2, 0.3, 0.9];
      const posed = await gpu.collider.sphereCastMesh(casts, made, { pose });
      expect(
        compareMeshHits('cast', posed, bruteForceSphereCastMesh(casts, mesh, { pose }), casts, mesh, { pose }),
      ).toEqual([]);
      const contacts = await gpu.collider.sphereTriangleContacts(spheres, made);
      expect(compareMeshContacts(contacts, bruteForceSphereTriangleContacts(spheres, mesh), spheres, mesh)).toEqual([]);
      made.destroy();
    });
  }
});

describe('mesh colliders on this engine', () => {
  it('particles dropped on a tessellated floor mesh rest on it, each touching it', async () => {
    const G = 6;
    const positions: number[] = [];
    const indices: number[] = [];
    for (let i = 0; i <= G; i++) for (let j = 0; j <= G; j++) positions.push(-3 + i, 0, -3 + j);
    for (let i = 0; i < G; i++)
      for (let j = 0; j < G; j++) {
        const a = i * (G + 1) + j;
        indices.push(a, a + 1, a + G + 1, a + 1, a + G + 2, a + G + 1);
      }
    const floor = gpu.collider.createMesh({
      positions: new Float32Array(positions),
      indices: new Uint32Array(indices),
    });
    const world = await createParticleWorld({ device: gpu.device, capacity: 64, bounds: [-4, -2, -4, 4, 4, 4] });
    try {
      world.setParameters({ gravity: [0, -9.8, 0], restitution: 0, friction: 0.5 });
      world.setMeshes([{ mesh: floor }]);
      const spheres = new Float32Array(4 * 16);
      for (let i = 0; i < 16; i++) spheres.set([-1.8 + 1.2 * (i % 4), 0.6, -1.8 + 1.2 * Math.floor(i / 4), 0.2], 4 * i);
      world.setParticles({ spheres, velocities: new Float32Array(48) });
      await world.step(1 / 60, 60);
      const { spheres: s } = await world.read();
      for (let i = 0; i < 16; i++) expect(Math.abs(s[4 * i + 1] - 0.2)).toBeLessThan(0.01);
      const contacts = await world.meshContacts();
      expect(new Set(contacts.particles).size).toBe(16);
    } finally {
      world.destroy();
      floor.destroy();
    }
  });
});
