/**
 * The mesh queries' CPU reference (src/reference/mesh.ts): exact hand-made cases, the reference
 * against three-mesh-bvh (an outside oracle, test/support/meshOracle.ts) on every seeded mesh of
 * test/support/meshes.ts, and the comparators' self-tests (they must flag a wrong answer).
 * No GPU here: this file checks the yardstick the GPU's mesh tests use.
 */
import { describe, expect, it } from 'vitest';
import {
  bruteForceRaycastMesh,
  bruteForceSphereCastMesh,
  bruteForceSphereTriangleContacts,
  closestPointOnTriangle,
  isDegenerateTriangle,
  meshTriangleCount,
  poseTransform,
  rayTriangle,
  sphereCastTriangle,
  triangleVertices,
  type MeshGeometry,
} from '../../src/reference/mesh.js';
import {
  blob,
  coherentRays,
  edgeCaseCasts,
  edgeCaseRays,
  farFromOrigin,
  incoherentRays,
  meshBox,
  meshSphereCasts,
  meshSpheres,
  seededMeshes,
  terrain,
  uvSphere,
  type TestMesh,
} from '../support/meshes.js';
import { MeshOracle, compareMeshContacts, compareMeshHits, type MeshHitsLike } from '../support/meshOracle.js';
import { mulberry32 } from '../support/random.js';

/** A unit square in z = 0 as four triangles around its centre: 0 bottom, 1 right, 2 top, 3 left (all wound +z). */
const square: MeshGeometry = {
  positions: new Float32Array([0.5, 0.5, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]),
  indices: new Uint32Array([0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1]),
};
const unit = { p0: [0, 0, 0], p1: [1, 0, 0], p2: [0, 1, 0] };
const single: MeshGeometry = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]) };

const rays = (...r: number[][]) => new Float32Array(r.flat());

describe('mesh reference: exact cases', () => {
  it('a ray through a vertex hits it, with the vertex barycentrics; ties go to the lowest index', () => {
    const hit = rayTriangle([1, 0, 1], [0, 0, -1], 2, unit.p0, unit.p1, unit.p2);
    expect(hit).toEqual({ t: 1, u: 1, v: 0 });
    const nearest = bruteForceRaycastMesh(rays([1, 0, 1, 1, 0, -1]), square); // vertex (1, 0): triangles 0 and 1
    expect([nearest.triangle[0], nearest.distance[0], nearest.u[0], nearest.v[0]]).toEqual([0, 1, 0, 1]);
    const centre = bruteForceRaycastMesh(rays([0.5, 0.5, 1, 0.5, 0.5, -1]), square, { allHits: true });
    expect(Array.from(centre.triangle)).toEqual([0, 1, 2, 3]);
    expect(Array.from(centre.offsets!)).toEqual([0, 4]);
  });

  it('a ray through an edge shared by two triangles hits both at the same t; the nearest is the lower index', () => {
    const q = rays([0.75, 0.25, 1, 0.75, 0.25, -3]); // on the edge centre → (1, 0), between 0 and 1
    const all = bruteForceRaycastMesh(q, square, { allHits: true });
    expect(Array.from(all.triangle)).toEqual([0, 1]);
    expect(all.distance64[0]).toBe(all.distance64[1]);
    expect(bruteForceRaycastMesh(q, square).triangle[0]).toBe(0);
  });

  it('is watertight: every ray through the square hits it, on an edge or not', () => {
    const rand = mulberry32(21);
    const q = new Float32Array(6 * 4000);
    for (let k = 0; k < 4000; k++) {
      // Half the targets on the diagonals (the shared edges), the rest anywhere inside.
      const s = rand();
      const [x, y] = k % 2 ? [rand(), rand()] : k % 4 ? [s, s] : [s, 1 - s];
      const [ax, ay, az] = [x + rand() - 0.5, y + rand() - 0.5, 1 + rand()];
      q.set([ax, ay, az, ax + 2 * (x - ax), ay + 2 * (y - ay), -az], 6 * k);
    }
    const hits = bruteForceRaycastMesh(q, square);
    const inside = (k: number) => {
      const t = q[6 * k + 2] / (q[6 * k + 2] - q[6 * k + 5]);
      const [x, y] = [q[6 * k] + t * (q[6 * k + 3] - q[6 * k]), q[6 * k + 1] + t * (q[6 * k + 4] - q[6 * k + 1])];
      return x > 1e-6 && x < 1 - 1e-6 && y > 1e-6 && y < 1 - 1e-6;
    };
    for (let k = 0; k < 4000; k++) if (inside(k)) expect(hits.triangle[k], `ray ${k}`).toBeGreaterThanOrEqual(0);
  });

  it('a ray in the plane of a triangle, or parallel to it, misses it', () => {
    const q = rays([-1, 0.25, 0, 2, 0.25, 0], [-1, 0.25, 1e-3, 2, 0.25, 1e-3], [0.25, 0.25, 0, 0.75, 0.2, 0]);
    expect(Array.from(bruteForceRaycastMesh(q, square).triangle)).toEqual([-1, -1, -1]);
    expect(rayTriangle([-1, 0.25, 0], [1, 0, 0], 3, unit.p0, unit.p1, unit.p2)).toBeNull();
  });

  it('a ray starting on the face hits it at t = 0, one ending on it at t = |AB|, one ending short misses', () => {
    const q = rays(
      [0.25, 0.1, 0, 0.25, 0.1, -1],
      [0.25, 0.1, 0, 0.25, 0.1, 1],
      [0.25, 0.1, 1, 0.25, 0.1, 0],
      [0.25, 0.1, 1, 0.25, 0.1, 2 ** -20],
    );
    const hits = bruteForceRaycastMesh(q, square);
    expect(Array.from(hits.triangle)).toEqual([0, 0, 0, -1]);
    expect(Array.from(hits.distance.subarray(0, 3))).toEqual([0, 0, 1]);
    expect(Object.is(hits.distance[0], 0)).toBe(true); // not −0
  });

  it('degenerate triangles (a repeated vertex, collinear, a point) are never hit, cast against or touched', () => {
    const positions = new Float32Array([
      ...[0, 0, 0, 0, 0, 0, 1, 1, 0], // repeated vertex
      ...[0, 0, 0, 0.5, 0.5, 0, 1, 1, 0], // collinear
      ...[0.5, 0.5, 0, 0.5, 0.5, 0, 0.5, 0.5, 0], // a point
      ...[0, 0, -1, 1, 0, -1, 0, 1, -1], // a proper one below
    ]);
    const mesh = { positions };
    for (let k = 0; k < 3; k++) expect(isDegenerateTriangle(...triangleVertices(mesh, k))).toBe(true);
    expect(isDegenerateTriangle(...triangleVertices(mesh, 3))).toBe(false);
    const q = rays([0.5, 0.5, 1, 0.5, 0.5, -2], [0.25, 0.25, 1, 0.25, 0.25, -2]);
    expect(Array.from(bruteForceRaycastMesh(q, mesh, { allHits: true }).triangle)).toEqual([3, 3]);
    const casts = new Float32Array([0.5, 0.5, 1, 0.5, 0.5, -2, 0.1, 0.25, 0.25, 1, 0.25, 0.25, -2, 0]);
    expect(Array.from(bruteForceSphereCastMesh(casts, mesh, { allHits: true }).triangle)).toEqual([3, 3]);
    const contacts = bruteForceSphereTriangleContacts(new Float32Array([0.5, 0.5, 0, 2, 0.5, 0.5, 0, 0]), mesh);
    expect(Array.from(contacts.pairs)).toEqual([0, 3]);
    const oracle = new MeshOracle(mesh);
    expect(Array.from(oracle.raycast(q, { allHits: true }).triangle)).toEqual([3, 3]);
    expect(Array.from(oracle.contacts(new Float32Array([0.5, 0.5, 0, 2])).pairs)).toEqual([0, 3]);
  });

  it('a zero-length ray or cast hits nothing, even on the face', () => {
    expect(bruteForceRaycastMesh(rays([0.25, 0.25, 0, 0.25, 0.25, 0]), single).triangle[0]).toBe(-1);
    const cast = new Float32Array([0.25, 0.25, 0.5, 0.25, 0.25, 0.5, 0.5]);
    expect(bruteForceSphereCastMesh(cast, single).triangle[0]).toBe(-1);
  });

  it('a sphere cast touches a face, an edge and a vertex at the analytic t', () => {
    const { p0, p1, p2 } = unit;
    const face = sphereCastTriangle([0.25, 0.25, 1], [0, 0, -1], 2, 0.5, p0, p1, p2)!;
    expect(face.t).toBe(0.5);
    expect(face.contact).toEqual([0.25, 0.25, 0]);
    // Edge P0P1 (the x axis) from (0.5, −0.3): √(0.09 + z²) = 0.5 at z = 0.4, t = 0.6.
    const edge = sphereCastTriangle([0.5, -0.3, 1], [0, 0, -1], 2, 0.5, p0, p1, p2)!;
    expect(edge.t).toBeCloseTo(0.6, 14);
    expect([edge.u, edge.v]).toEqual([0.5, 0]);
    expect(edge.contact).toEqual([0.5, 0, 0]);
    // Vertex P0 from (−0.3, −0.3): 0.18 + z² = 0.25, t = 1 − √0.07.
    const vertex = sphereCastTriangle([-0.3, -0.3, 1], [0, 0, -1], 2, 0.5, p0, p1, p2)!;
    expect(vertex.t).toBeCloseTo(1 - Math.sqrt(0.07), 14);
    expect([vertex.u, vertex.v, ...vertex.contact]).toEqual([0, 0, 0, 0, 0]);
    // Vertex P2 approached along a diagonal: |(A + n t) − P2| = r.
    const n = [Math.SQRT1_2, -Math.SQRT1_2, 0];
    const diagonal = sphereCastTriangle([-1, 2, 0], n, 3, 0.25, p0, p1, p2)!;
    const C = diagonal.center;
    expect(Math.hypot(C[0], C[1] - 1, C[2])).toBeCloseTo(0.25, 14);
    expect(diagonal.contact).toEqual([0, 1, 0]);
    // The face from below (double-sided), and a cast passing beside the triangle.
    expect(sphereCastTriangle([0.2, 0.2, -2], [0, 0, 1], 4, 0.5, p0, p1, p2)!.t).toBe(1.5);
    expect(sphereCastTriangle([2, 2, 1], [0, 0, -1], 2, 0.5, p0, p1, p2)).toBeNull();
    // The brute force and the oracle agree with the closed forms.
    const casts = new Float32Array([0.5, -0.3, 1, 0.5, -0.3, -1, 0.5, -0.3, -0.3, 1, -0.3, -0.3, -1, 0.5]);
    const ref = bruteForceSphereCastMesh(casts, single);
    const oracle = new MeshOracle(single).sphereCast(casts);
    expect(ref.distance64[0]).toBeCloseTo(0.6, 7); // the f32 inputs: −0.3 is −0.30000001192…
    expect(oracle.distance[0]).toBeCloseTo(ref.distance64[0], 12);
    expect(oracle.distance[1]).toBeCloseTo(ref.distance64[1], 12);
  });

  it('a cast that starts overlapping a triangle ignores it; one that starts touching hits at t = 0', () => {
    const { p0, p1, p2 } = unit;
    expect(sphereCastTriangle([0.25, 0.25, 0.3], [0, 0, -1], 2, 0.5, p0, p1, p2)).toBeNull();
    expect(sphereCastTriangle([0.25, 0.25, 0.3], [0, 0, 1], 2, 0.5, p0, p1, p2)).toBeNull();
    const touching = sphereCastTriangle([0.25, 0.25, 0.5], [0, 0, 1], 2, 0.5, p0, p1, p2)!;
    expect([touching.t, ...touching.contact]).toEqual([0, 0.25, 0.25, 0]);
    // Two sheets: starting inside the upper one's reach, the cast goes on to the lower one.
    const sheets = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1, 1, 0, -1, 0, 1, -1]) };
    const hit = bruteForceSphereCastMesh(new Float32Array([0.25, 0.25, 0.25, 0.25, 0.25, -2, 0.5]), sheets);
    expect([hit.triangle[0], hit.distance[0]]).toEqual([1, 0.75]);
  });

  it('radius 0 gives the ray’s hits exactly', () => {
    const mesh = blob(31, 2);
    const q = incoherentRays(mesh, 2000, 31);
    const casts = new Float32Array(7 * 2000);
    for (let k = 0; k < 2000; k++) casts.set(q.subarray(6 * k, 6 * k + 6), 7 * k);
    for (const allHits of [false, true]) {
      const ray = bruteForceRaycastMesh(q, mesh, { allHits });
      const cast = bruteForceSphereCastMesh(casts, mesh, { allHits });
      expect(cast.triangle).toEqual(ray.triangle);
      expect(cast.distance64).toEqual(ray.distance64);
      expect(cast.u).toEqual(ray.u);
      expect(cast.center).toEqual(ray.point);
    }
  });

  it('the pose moves the point and rotates the normal (the quaternion normalised)', () => {
    const s = Math.SQRT1_2;
    // 90° about x: local (x, y, 0) → world (5 + x, 0, y); the normal +z → −y.
    for (const pose of [
      [5, 0, 0, s, 0, 0, s],
      [5, 0, 0, 3 * s, 0, 0, 3 * s],
    ]) {
      const hit = bruteForceRaycastMesh(rays([5.25, 1, 0.25, 5.25, -1, 0.25]), single, { pose });
      expect(hit.triangle[0]).toBe(0);
      expect(hit.distance[0]).toBeCloseTo(1, 6);
      expect(Array.from(hit.point)).toEqual([5.25, 0, 0.25].map((x) => expect.closeTo(x, 6)));
      expect(Array.from(hit.normal)).toEqual([0, -1, 0].map((x) => expect.closeTo(x, 6)));
      const contact = bruteForceSphereTriangleContacts(new Float32Array([5.25, 0.5, 0.25, 1]), single, { pose });
      expect(Array.from(contact.point)).toEqual([5.25, 0, 0.25].map((x) => expect.closeTo(x, 6)));
      expect(Array.from(contact.normal)).toEqual([0, 1, 0].map((x) => expect.closeTo(x, 6)));
      expect(contact.depth[0]).toBeCloseTo(0.5, 6);
    }
    const frame = poseTransform([1, 2, 3, 0.1, -0.7, 0.3, 0.6]);
    const p = [0.3, -4, 7];
    expect(frame.toWorld(frame.toLocal(p))).toEqual(p.map((x) => expect.closeTo(x, 12)));
  });

  it('contacts: face, edge and vertex, touching counts, a point sphere only on the face', () => {
    const spheres = new Float32Array([
      ...[0.25, 0.25, 0.3, 0.5], // face: depth 0.2, normal +z
      ...[0.5, -0.3, 0, 0.5], // edge: E (0.5, 0, 0), normal −y
      ...[-0.375, -0.5, 0, 0.625], // vertex, touching exactly (0.375² + 0.5² = 0.625²)
      ...[0.25, 0.25, 0, 0], // a point on the face: normal N
      ...[0.25, 0.25, 2 ** -30, 0], // a point just off it
      ...[2, 2, 2, 0.5], // far
    ]);
    const c = bruteForceSphereTriangleContacts(spheres, single);
    expect(Array.from(c.pairs)).toEqual([0, 0, 1, 0, 2, 0, 3, 0]);
    expect(Array.from(c.depth)).toEqual([expect.closeTo(0.2, 7), expect.closeTo(0.2, 7), 0, 0]);
    expect(Array.from(c.normal)).toEqual([0, 0, 1, 0, -1, 0, -0.6, -0.8, 0, 0, 0, 1].map((x) => expect.closeTo(x, 7)));
    expect(Array.from(c.point.subarray(3, 9))).toEqual([0.5, 0, 0, 0, 0, 0]);
    const oracle = new MeshOracle(single).contacts(spheres);
    expect(compareMeshContacts(oracle, c, spheres, single, { scale: 1e-6 })).toEqual([]);
  });

  it('closestPointOnTriangle: each Voronoi region', () => {
    const { p0, p1, p2 } = unit;
    expect(closestPointOnTriangle([-1, -1, 3], p0, p1, p2)).toEqual({ point: [0, 0, 0], u: 0, v: 0 });
    expect(closestPointOnTriangle([2, -1, 3], p0, p1, p2)).toEqual({ point: [1, 0, 0], u: 1, v: 0 });
    expect(closestPointOnTriangle([-1, 2, 3], p0, p1, p2)).toEqual({ point: [0, 1, 0], u: 0, v: 1 });
    expect(closestPointOnTriangle([0.5, -1, 3], p0, p1, p2)).toEqual({ point: [0.5, 0, 0], u: 0.5, v: 0 });
    expect(closestPointOnTriangle([-1, 0.5, 3], p0, p1, p2)).toEqual({ point: [0, 0.5, 0], u: 0, v: 0.5 });
    expect(closestPointOnTriangle([1, 1, 3], p0, p1, p2)).toEqual({ point: [0.5, 0.5, 0], u: 0.5, v: 0.5 });
    expect(closestPointOnTriangle([0.25, 0.5, -3], p0, p1, p2)).toEqual({ point: [0.25, 0.5, 0], u: 0.25, v: 0.5 });
  });

  it('a mesh at 1e6 is answered as at the origin (exact f32 shift: a grid of 1/16)', () => {
    const base = terrain(41, 16, 400);
    const grid = (x: number) => Math.round(x * 16) / 16;
    const mesh = { ...base, positions: base.positions.map(grid) };
    const far = farFromOrigin(mesh, 1e6);
    expect(far.positions.every((x, i) => x === mesh.positions[i] + 1e6)).toBe(true);
    const q = incoherentRays(mesh, 2000, 41).map(grid);
    const casts = meshSphereCasts(mesh, 2000, 42).map((x, i) => (i % 7 === 6 ? x : grid(x)));
    const shift = (a: Float32Array, stride: number, n: number) => a.map((x, i) => (i % stride < n ? x + 1e6 : x));
    const [near, away] = [bruteForceRaycastMesh(q, mesh), bruteForceRaycastMesh(shift(q, 6, 6), far)];
    const [nearC, awayC] = [bruteForceSphereCastMesh(casts, mesh), bruteForceSphereCastMesh(shift(casts, 7, 6), far)];
    expect(away.triangle).toEqual(near.triangle);
    expect(awayC.triangle).toEqual(nearC.triangle);
    const size = meshBox(mesh).size;
    for (let k = 0; k < 2000; k++) {
      if (near.triangle[k] >= 0) expect(Math.abs(away.distance64[k] - near.distance64[k])).toBeLessThan(1e-9 * size);
      if (nearC.triangle[k] >= 0) expect(Math.abs(awayC.distance64[k] - nearC.distance64[k])).toBeLessThan(1e-9 * size);
    }
    // And three-mesh-bvh at 1e6 within the band.
    const oracle = new MeshOracle(far);
    expect(compareMeshHits('ray', oracle.raycast(shift(q, 6, 6)), away, shift(q, 6, 6), far)).toEqual([]);
  });

  it('the nearest hit is the first of every hit; allHits are sorted by (distance, triangle)', () => {
    const mesh = uvSphere(12, 24);
    const q = incoherentRays(mesh, 1000, 51);
    const nearest = bruteForceRaycastMesh(q, mesh);
    const all = bruteForceRaycastMesh(q, mesh, { allHits: true });
    for (let k = 0; k < 1000; k++) {
      const [a, b] = [all.offsets![k], all.offsets![k + 1]];
      expect(nearest.triangle[k]).toBe(a < b ? all.triangle[a] : -1);
      for (let e = a + 1; e < b; e++) expect(all.distance64[e]).toBeGreaterThanOrEqual(all.distance64[e - 1]);
    }
  });
});

/** Seeds of the queries (in the test names). */
const SEED = { incoherent: 1, coherent: 7, casts: 2, spheres: 3, edges: 5, all: 8 };

describe('mesh reference against three-mesh-bvh', () => {
  for (const mesh of seededMeshes()) {
    describe(`${mesh.name}, ${meshTriangleCount(mesh)} triangles`, () => {
      let oracle: MeshOracle | undefined;
      const bvh = () => (oracle ??= new MeshOracle(mesh));
      const agree = (kind: 'ray' | 'cast', queries: Float32Array, allHits = false) => {
        const expected =
          kind === 'ray'
            ? bruteForceRaycastMesh(queries, mesh, { allHits })
            : bruteForceSphereCastMesh(queries, mesh, { allHits });
        const actual = kind === 'ray' ? bvh().raycast(queries, { allHits }) : bvh().sphereCast(queries, { allHits });
        expect(compareMeshHits(kind, actual, expected, queries, mesh, { allHits })).toEqual([]);
        return expected;
      };

      it(`10,000 incoherent rays (seed ${SEED.incoherent})`, () => {
        const hits = agree('ray', incoherentRays(mesh, 10_000, SEED.incoherent));
        expect(hits.triangle.filter((t) => t >= 0).length).toBeGreaterThan(500); // the rays do reach the mesh
      });

      it(`10,000 coherent rays (seed ${SEED.coherent})`, () => {
        agree('ray', coherentRays(mesh, 10_000, SEED.coherent));
      });

      it(`10,000 sphere casts (seed ${SEED.casts})`, () => {
        const hits = agree('cast', meshSphereCasts(mesh, 10_000, SEED.casts));
        expect(hits.triangle.filter((t) => t >= 0).length).toBeGreaterThan(500);
      });

      it(`edge-case rays and casts: on vertices, edges, faces, parallel, zero-length (seed ${SEED.edges})`, () => {
        agree('ray', edgeCaseRays(mesh, 1000, SEED.edges));
        agree('cast', edgeCaseCasts(mesh, 1000, SEED.edges));
      });

      it(`every hit of 1,000 rays and 1,000 casts (seed ${SEED.all})`, () => {
        agree('ray', incoherentRays(mesh, 1000, SEED.all), true);
        agree('cast', meshSphereCasts(mesh, 1000, SEED.all), true);
      });

      it(`contacts of 2,000 spheres near the surface (seed ${SEED.spheres})`, () => {
        const spheres = meshSpheres(mesh, 2000, SEED.spheres);
        const expected = bruteForceSphereTriangleContacts(spheres, mesh);
        expect(compareMeshContacts(bvh().contacts(spheres), expected, spheres, mesh)).toEqual([]);
        expect(expected.pairs.length / 2).toBeGreaterThan(500);
      });

      it('the reference’s own f32 results pass its comparator', () => {
        const q = incoherentRays(mesh, 1000, 61);
        const c = meshSphereCasts(mesh, 1000, 62);
        const s = meshSpheres(mesh, 500, 63);
        const [r, k, t] = [
          bruteForceRaycastMesh(q, mesh),
          bruteForceSphereCastMesh(c, mesh),
          bruteForceSphereTriangleContacts(s, mesh),
        ];
        expect(compareMeshHits('ray', r, r, q, mesh)).toEqual([]);
        expect(compareMeshHits('cast', k, k, c, mesh)).toEqual([]);
        expect(compareMeshContacts(t, t, s, mesh)).toEqual([]);
      });
    });
  }

  it('with a pose (seed 71): rays, casts and contacts in world space', () => {
    for (const [mesh, pose] of [
      [terrain(71, 20), [3, -2, 7, 0.3, -0.5, 0.2, 0.8]],
      [blob(72, 2), [1e6, 1e6, -1e6, 0, 0.6, 0, 0.8]],
    ] as [TestMesh, number[]][]) {
      // The queries are made around the posed mesh: generate them on the mesh moved into place.
      const frame = poseTransform(pose);
      const placed = { ...mesh, positions: new Float32Array(mesh.positions.length) };
      for (let i = 0; i < mesh.positions.length; i += 3)
        placed.positions.set(frame.toWorld(mesh.positions.subarray(i, i + 3)), i);
      const oracle = new MeshOracle(mesh);
      const q = incoherentRays(placed, 3000, 71);
      const c = meshSphereCasts(placed, 3000, 72);
      const s = meshSpheres(placed, 1000, 73);
      const ray = bruteForceRaycastMesh(q, mesh, { pose });
      expect(ray.triangle.filter((t) => t >= 0).length).toBeGreaterThan(200);
      expect(compareMeshHits('ray', oracle.raycast(q, { pose }), ray, q, mesh, { pose })).toEqual([]);
      const cast = bruteForceSphereCastMesh(c, mesh, { pose });
      expect(compareMeshHits('cast', oracle.sphereCast(c, { pose }), cast, c, mesh, { pose })).toEqual([]);
      const contacts = bruteForceSphereTriangleContacts(s, mesh, { pose });
      expect(contacts.pairs.length).toBeGreaterThan(200);
      expect(compareMeshContacts(oracle.contacts(s, { pose }), contacts, s, mesh, { pose })).toEqual([]);
    }
  });
});

describe('mesh comparators flag wrong answers', () => {
  const mesh = blob(81, 2);
  const size = meshBox(mesh).size;
  const q = incoherentRays(mesh, 1000, 81);
  const c = meshSphereCasts(mesh, 1000, 82);
  const s = meshSpheres(mesh, 500, 83);
  const ray = bruteForceRaycastMesh(q, mesh);
  const all = bruteForceRaycastMesh(q, mesh, { allHits: true });
  const cast = bruteForceSphereCastMesh(c, mesh);
  const contacts = bruteForceSphereTriangleContacts(s, mesh);
  const copy = <T extends object>(r: T): T => structuredClone(r);
  /** A query whose nearest hit is far from every band, and that has a second hit well behind it. */
  const robust = (() => {
    for (let k = 0; k < 1000; k++) {
      const [a, b] = [all.offsets![k], all.offsets![k + 1]];
      if (b - a >= 2 && all.distance64[a + 1] - all.distance64[a] > 0.05 * size && all.distance64[a] > 0.05 * size)
        return k;
    }
    throw new Error('no query with two hits');
  })();
  const missing = ray.triangle.indexOf(-1);
  const check = (r: MeshHitsLike) => compareMeshHits('ray', r, ray, q, mesh);

  it('accepts the reference and three-mesh-bvh as they are', () => {
    expect(check(ray)).toEqual([]);
    expect(check(new MeshOracle(mesh).raycast(q))).toEqual([]);
  });

  it('a wrong triangle, a farther one, a wrong distance, a missing hit, an extra hit', () => {
    const wrong = copy(ray);
    wrong.triangle[robust] = (ray.triangle[robust] + 100) % meshTriangleCount(mesh);
    expect(check(wrong).join()).toMatch(/which the reference misses/);
    const farther = copy(ray);
    const second = all.offsets![robust] + 1;
    farther.triangle[robust] = all.triangle[second];
    farther.distance[robust] = all.distance[second];
    farther.point.set(all.point.subarray(3 * second, 3 * second + 3), 3 * robust);
    farther.u[robust] = all.u[second];
    farther.v[robust] = all.v[second];
    farther.normal.set(all.normal.subarray(3 * second, 3 * second + 3), 3 * robust);
    expect(check(farther).join()).toMatch(/farther than the reference's nearest/);
    const distance = copy(ray);
    distance.distance[robust] += 1e-3 * size;
    expect(check(distance).join()).toMatch(/distance/);
    const miss = copy(ray);
    miss.triangle[robust] = -1;
    expect(check(miss).join()).toMatch(/missed/);
    const extra = copy(ray);
    extra.triangle[missing] = 0;
    extra.distance[missing] = 1;
    expect(check(extra)).not.toEqual([]);
  });

  it('a wrong point, normal or barycentrics', () => {
    const point = copy(ray);
    point.point[3 * robust] += 1e-3 * size;
    expect(check(point).join()).toMatch(/is not A \+ n·t/);
    const normal = copy(ray);
    for (let a = 0; a < 3; a++) normal.normal[3 * robust + a] *= -1;
    expect(check(normal).join()).toMatch(/normal/);
    const bary = copy(ray);
    [bary.u[robust], bary.v[robust]] = [bary.v[robust], bary.u[robust]];
    if (Math.abs(ray.u[robust] - ray.v[robust]) > 0.01) expect(check(bary).join()).toMatch(/barycentrics/);
  });

  it('every-hit lists: a dropped hit, an unsorted list, a duplicate', () => {
    const options = { allHits: true };
    expect(compareMeshHits('ray', all, all, q, mesh, options)).toEqual([]);
    const [a] = [all.offsets![robust]];
    const dropped = copy(all);
    dropped.triangle[a] = dropped.triangle[a + 1]; // a duplicate of the second, the first gone
    const messages = compareMeshHits('ray', dropped, all, q, mesh, options).join();
    expect(messages).toMatch(/reported twice/);
    expect(messages).toMatch(/missed triangle/);
    const swapped = copy(all);
    for (const key of ['triangle', 'distance', 'u', 'v'] as const)
      [swapped[key][a], swapped[key][a + 1]] = [all[key][a + 1], all[key][a]];
    for (const key of ['point', 'normal'] as const)
      for (let i = 0; i < 3; i++)
        [swapped[key][3 * a + i], swapped[key][3 * a + 3 + i]] = [all[key][3 * a + 3 + i], all[key][3 * a + i]];
    expect(compareMeshHits('ray', swapped, all, q, mesh, options).join()).toMatch(/not sorted/);
  });

  it('sphere casts: a wrong contact point, a wrong distance', () => {
    expect(compareMeshHits('cast', cast, cast, c, mesh)).toEqual([]);
    const k = Array.from(cast.triangle).findIndex((t, i) => t >= 0 && cast.distance64[i] > 0.05 * size);
    const contact = copy(cast);
    contact.contact[3 * k + 1] += 1e-3 * size;
    expect(compareMeshHits('cast', contact, cast, c, mesh).join()).toMatch(/contact/);
    const distance = copy(cast);
    distance.distance[k] *= 0.9;
    expect(compareMeshHits('cast', distance, cast, c, mesh).join()).toMatch(/distance/);
  });

  it('contacts: an extra pair, a missing pair, a wrong depth, a degenerate triangle', () => {
    const check = (r: typeof contacts, m: MeshGeometry = mesh, e = contacts) => compareMeshContacts(r, e, s, m);
    expect(check(contacts)).toEqual([]);
    // Extra: sphere 0 against a triangle it does not touch.
    const far = Array.from({ length: meshTriangleCount(mesh) }, (_, t) => t).find(
      (t) =>
        !Array.from({ length: contacts.pairs.length / 2 }, (_, p) => p).some(
          (p) => contacts.pairs[2 * p] === 0 && contacts.pairs[2 * p + 1] === t,
        ),
    )!;
    const extra = { ...contacts, pairs: Uint32Array.from([...contacts.pairs, 0, far]) };
    extra.point = Float32Array.from([...contacts.point, 0, 0, 0]);
    extra.normal = Float32Array.from([...contacts.normal, 0, 0, 1]);
    extra.depth = Float32Array.from([...contacts.depth, 0]);
    expect(check(extra).join()).toMatch(/not borderline/);
    // Missing: the deepest pair dropped.
    const deepest = contacts.depth.indexOf(Math.max(...contacts.depth));
    const keep = (p: number) => p !== deepest;
    const pick = (a: Float32Array | Uint32Array, w: number) => a.filter((_, i) => keep(Math.floor(i / w)));
    const dropped = {
      ...contacts,
      pairs: pick(contacts.pairs, 2) as Uint32Array,
      point: pick(contacts.point, 3) as Float32Array,
      normal: pick(contacts.normal, 3) as Float32Array,
      depth: pick(contacts.depth, 1) as Float32Array,
    };
    expect(check(dropped).join()).toMatch(/missing/);
    const depth = copy(contacts);
    depth.depth[deepest] *= 0.5;
    expect(check(depth).join()).toMatch(/depth/);
    // A degenerate triangle reported: a mesh with one appended.
    const withDegenerate = {
      positions: Float32Array.from([...triangleVertices(mesh, 0).flat(), 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    };
    const point = new Float32Array([0, 0, 0, 1]);
    const reported = {
      pairs: new Uint32Array([0, 1]),
      point: new Float32Array(3),
      normal: new Float32Array([0, 0, 1]),
      depth: new Float32Array([1]),
    };
    expect(
      compareMeshContacts(
        reported,
        bruteForceSphereTriangleContacts(point, withDegenerate),
        point,
        withDegenerate,
      ).join(),
    ).toMatch(/degenerate/);
  });
});
