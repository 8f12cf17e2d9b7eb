/**
 * The mesh queries on every engine (Dawn in dawn.node and Chromium, wgpu in Firefox and Deno):
 * a compact run of test/mesh/meshQueries.test.ts (whose three-mesh-bvh oracle needs Node's module
 * resolution), each engine's compiled build and query kernels against the double-precision
 * reference within the contract's band, on two seeded meshes (the seed in the test name).
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
