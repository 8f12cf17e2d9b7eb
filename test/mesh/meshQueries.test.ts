/**
 * The GPU's mesh queries (raycastMesh, sphereCastMesh, sphereTriangleContacts and their encoded
 * forms) against the double-precision reference (src/reference/mesh.ts) within the contract's
 * band, and against three-mesh-bvh (test/support/meshOracle.ts), on every seeded mesh of
 * test/support/meshes.ts (the seed in each test's name); then poses, refits, the encoded forms'
 * overflow, and every input rule.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import {
  bruteForceRaycastMesh,
  bruteForceSphereCastMesh,
  bruteForceSphereTriangleContacts,
  meshTriangleCount,
  poseTransform,
} from '../../src/reference/mesh.js';
import {
  blob,
  coherentRays,
  edgeCaseCasts,
  edgeCaseRays,
  incoherentRays,
  meshSphereCasts,
  meshSpheres,
  nonIndexed,
  seededMeshes,
  terrain,
  uvSphere,
  type TestMesh,
} from '../support/meshes.js';
import { MeshOracle, compareMeshContacts, compareMeshHits } from '../support/meshOracle.js';
import { createCollider } from '../../src/collider.js';
import { CapacityError, InvalidInputError } from '../../src/errors.js';
import { RULES } from '../../src/checks.js';
import { BufferUsage } from '../../src/gpu/flags.js';
import { mulberry32 } from '../support/random.js';

const gpu = useGpu();

/** What a promise rejected with (undefined when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

const SEED = { incoherent: 1, coherent: 7, casts: 2, spheres: 3, edges: 5, all: 8 };

/** Rays (6 floats) or casts (7) as the GPU layout: (A, radius), (B, 0). */
function packed(queries: Float32Array, stride: 6 | 7): Float32Array {
  const n = queries.length / stride;
  const out = new Float32Array(8 * n);
  for (let k = 0; k < n; k++) {
    out.set(queries.subarray(stride * k, stride * k + 3), 8 * k);
    out[8 * k + 3] = stride === 7 ? queries[stride * k + 6] : 0;
    out.set(queries.subarray(stride * k + 3, stride * k + 6), 8 * k + 4);
  }
  return out;
}

function storage(data: Float32Array): GPUBuffer {
  const buffer = gpu.device.createBuffer({
    size: Math.max(data.byteLength, 16),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
  });
  gpu.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

describe('mesh queries on the GPU against the reference and three-mesh-bvh', () => {
  for (const mesh of seededMeshes()) {
    describe(`${mesh.name}, ${meshTriangleCount(mesh)} triangles`, () => {
      let oracle: MeshOracle | undefined;
      const bvh = () => (oracle ??= new MeshOracle(mesh));
      const agree = async (kind: 'ray' | 'cast', queries: Float32Array, allHits = false) => {
        const made = gpu.collider.createMesh(mesh);
        const actual =
          kind === 'ray'
            ? await gpu.collider.raycastMesh(queries, made, { allHits })
            : await gpu.collider.sphereCastMesh(queries, made, { allHits });
        made.destroy();
        const expected =
          kind === 'ray'
            ? bruteForceRaycastMesh(queries, mesh, { allHits })
            : bruteForceSphereCastMesh(queries, mesh, { allHits });
        expect(compareMeshHits(kind, actual, expected, queries, mesh, { allHits })).toEqual([]);
        // The outside oracle, as the reference: the same band.
        const three = kind === 'ray' ? bvh().raycast(queries, { allHits }) : bvh().sphereCast(queries, { allHits });
        expect(compareMeshHits(kind, actual, three, queries, mesh, { allHits })).toEqual([]);
        return actual;
      };

      it(`10,000 incoherent rays (seed ${SEED.incoherent})`, async () => {
        const hits = await agree('ray', incoherentRays(mesh, 10_000, SEED.incoherent));
        expect(hits.triangle.filter((t) => t >= 0).length).toBeGreaterThan(500);
      });
      it(`10,000 coherent rays (seed ${SEED.coherent})`, async () => {
        await agree('ray', coherentRays(mesh, 10_000, SEED.coherent));
      });
      it(`10,000 sphere casts (seed ${SEED.casts})`, async () => {
        const hits = await agree('cast', meshSphereCasts(mesh, 10_000, SEED.casts));
        expect(hits.triangle.filter((t) => t >= 0).length).toBeGreaterThan(500);
      });
      it(`1,000 edge-case rays and casts: on vertices, edges, in planes, zero length (seed ${SEED.edges})`, async () => {
        await agree('ray', edgeCaseRays(mesh, 1000, SEED.edges));
        await agree('cast', edgeCaseCasts(mesh, 1000, SEED.edges));
      });
      it(`every hit of 1,000 rays and 1,000 casts (seed ${SEED.all})`, async () => {
        await agree('ray', incoherentRays(mesh, 1000, SEED.all), true);
        await agree('cast', meshSphereCasts(mesh, 1000, SEED.all), true);
      });
      it(`contacts of 2,000 spheres (seed ${SEED.spheres})`, async () => {
        const spheres = meshSpheres(mesh, 2000, SEED.spheres);
        const made = gpu.collider.createMesh(mesh);
        const actual = await gpu.collider.sphereTriangleContacts(spheres, made);
        made.destroy();
        const expected = bruteForceSphereTriangleContacts(spheres, mesh);
        expect(expected.pairs.length).toBeGreaterThan(0);
        expect(compareMeshContacts(actual, expected, spheres, mesh)).toEqual([]);
        expect(compareMeshContacts(actual, bvh().contacts(spheres), spheres, mesh)).toEqual([]);
      });
    });
  }
});

describe('mesh queries: poses, refits, encoded forms', () => {
  it('with a pose (seed 71): rays, casts and contacts in world space, one at 1e6', async () => {
    for (const [mesh, pose] of [
      [terrain(71), [3, -2, 5, 0.2, 0.3, -0.1, 0.9]],
      [blob(72, 2), [1e6, 1e6, -1e6, 0, 0.6, 0, 0.8]],
    ] as [TestMesh, number[]][]) {
      const frame = poseTransform(pose);
      const placed = { ...mesh, positions: new Float32Array(mesh.positions.length) };
      for (let i = 0; i < mesh.positions.length; i += 3)
        placed.positions.set(frame.toWorld(mesh.positions.subarray(i, i + 3)), i);
      const q = incoherentRays(placed, 3000, 71);
      const c = meshSphereCasts(placed, 3000, 72);
      const s = meshSpheres(placed, 1000, 73);
      const made = gpu.collider.createMesh(mesh);
      const ray = await gpu.collider.raycastMesh(q, made, { pose });
      expect(ray.triangle.filter((t) => t >= 0).length).toBeGreaterThan(200);
      expect(compareMeshHits('ray', ray, bruteForceRaycastMesh(q, mesh, { pose }), q, mesh, { pose })).toEqual([]);
      const cast = await gpu.collider.sphereCastMesh(c, made, { pose: new Float32Array(pose) });
      expect(compareMeshHits('cast', cast, bruteForceSphereCastMesh(c, mesh, { pose }), c, mesh, { pose })).toEqual([]);
      const contacts = await gpu.collider.sphereTriangleContacts(s, made, { pose });
      expect(contacts.pairs.length).toBeGreaterThan(200);
      expect(
        compareMeshContacts(contacts, bruteForceSphereTriangleContacts(s, mesh, { pose }), s, mesh, { pose }),
      ).toEqual([]);
      made.destroy();
    }
  });

  it('after refit (and encodeRefit) answers as a mesh built at the new positions (seed 74)', async () => {
    const mesh = uvSphere(16, 32);
    const rand = mulberry32(74);
    const moved = mesh.positions.map((x) => x * 1.5 + (rand() - 0.5) * 0.2);
    const made = gpu.collider.createMesh(mesh);
    const q = incoherentRays({ ...mesh, positions: moved }, 3000, 74);
    const c = meshSphereCasts({ ...mesh, positions: moved }, 2000, 75);
    const after = { ...mesh, positions: moved };
    await made.refit(moved);
    expect(
      compareMeshHits('ray', await gpu.collider.raycastMesh(q, made), bruteForceRaycastMesh(q, after), q, after),
    ).toEqual([]);
    expect(
      compareMeshHits('cast', await gpu.collider.sphereCastMesh(c, made), bruteForceSphereCastMesh(c, after), c, after),
    ).toEqual([]);
    // Back to the original positions from a GPU buffer, recorded with a query in one submission.
    const positions = storage(mesh.positions);
    const rays = storage(packed(q, 6));
    const encoder = gpu.device.createCommandEncoder();
    made.encodeRefit(encoder, { buffer: positions });
    const encoded = gpu.collider.encodeRaycastMesh(encoder, { buffer: rays, count: q.length / 6 }, made);
    gpu.device.queue.submit([encoder.finish()]);
    expect(compareMeshHits('ray', await encoded.read(), bruteForceRaycastMesh(q, mesh), q, mesh)).toEqual([]);
    for (const b of [positions, rays]) b.destroy();
    encoded.destroy();
    made.destroy();
  });

  it('encoded forms give the one-shot answers; all hits and contacts past their room throw the true count, then grow (seed 76)', async () => {
    const mesh = terrain(76);
    const made = gpu.collider.createMesh(mesh);
    const q = incoherentRays(mesh, 2000, 76);
    const c = meshSphereCasts(mesh, 2000, 77);
    const s = meshSpheres(mesh, 1000, 78);
    const rays = storage(packed(q, 6));
    // The rays' w are not read (CONTRACT: (A, 0), (B, 0)): with a radius there, the same hits.
    const raysWithW = storage(packed(q, 6).map((v, i) => (i % 4 === 3 ? 0.25 : v)));
    const casts = storage(packed(c, 7));
    // At an offset: copied first.
    const sphereBuffer = storage(new Float32Array([0, 0, 0, 0, ...s]));
    const encoder = gpu.device.createCommandEncoder();
    const nearest = gpu.collider.encodeRaycastMesh(encoder, { buffer: rays, count: 2000 }, made);
    const nearestW = gpu.collider.encodeRaycastMesh(encoder, { buffer: raysWithW, count: 2000 }, made);
    const all = gpu.collider.encodeSphereCastMesh(encoder, { buffer: casts, count: 2000 }, made, {
      allHits: true,
      capacity: 1,
    });
    const contacts = gpu.collider.encodeSphereTriangleContacts(
      encoder,
      { buffer: sphereBuffer, count: 1000, offset: 16 },
      made,
      {
        capacity: 1,
      },
    );
    gpu.device.queue.submit([encoder.finish()]);
    const oneShot = Array.from((await gpu.collider.raycastMesh(q, made)).triangle);
    expect(Array.from((await nearest.read()).triangle)).toEqual(oneShot);
    expect(Array.from((await nearestW.read()).triangle)).toEqual(oneShot);
    const oneShotAll = await gpu.collider.sphereCastMesh(c, made, { allHits: true });
    const oneShotContacts = await gpu.collider.sphereTriangleContacts(s, made);
    const allError = await rejection(all.read());
    expect(allError).toBeInstanceOf(CapacityError);
    expect((allError as CapacityError).count).toBe(oneShotAll.offsets![2000]);
    const contactError = await rejection(contacts.read());
    expect(contactError).toBeInstanceOf(CapacityError);
    expect((contactError as CapacityError).count).toBe(oneShotContacts.pairs.length / 2);
    // Again into the same results, with room: the same answers.
    const again = gpu.device.createCommandEncoder();
    gpu.collider.encodeSphereCastMesh(again, { buffer: casts, count: 2000 }, made, {
      allHits: true,
      into: all,
      capacity: (allError as CapacityError).count,
    });
    gpu.collider.encodeSphereTriangleContacts(again, { buffer: sphereBuffer, count: 1000, offset: 16 }, made, {
      into: contacts,
    });
    gpu.device.queue.submit([again.finish()]);
    const allHits = await all.read();
    expect(Array.from(allHits.offsets!)).toEqual(Array.from(oneShotAll.offsets!));
    expect(Array.from(allHits.triangle)).toEqual(Array.from(oneShotAll.triangle));
    expect(compareMeshContacts(await contacts.read(), bruteForceSphereTriangleContacts(s, mesh), s, mesh)).toEqual([]);
    // Caps: maxHits and maxPairs throw the true count.
    const capped = await rejection(gpu.collider.sphereCastMesh(c, made, { allHits: true, maxHits: 3 }));
    expect(capped).toBeInstanceOf(CapacityError);
    expect((capped as CapacityError).count).toBe(oneShotAll.offsets![2000]);
    const cappedPairs = await rejection(gpu.collider.sphereTriangleContacts(s, made, { maxPairs: 3 }));
    expect((cappedPairs as CapacityError).count).toBe(oneShotContacts.pairs.length / 2);
    for (const r of [nearest, nearestW, all, contacts]) r.destroy();
    for (const b of [rays, raysWithW, casts, sphereBuffer]) b.destroy();
    made.destroy();
  });

  it('meshes of 2 to 9 triangles: every hit and contact as the reference (seed 77)', async () => {
    const sphere = nonIndexed(uvSphere(4, 8)).positions;
    for (const count of [2, 3, 5, 9]) {
      const mesh = { name: `${count} triangles`, positions: sphere.slice(0, 9 * count) };
      const made = gpu.collider.createMesh(mesh);
      const rays = incoherentRays(mesh, 300, 77);
      const casts = meshSphereCasts(mesh, 300, 77);
      const spheres = meshSpheres(mesh, 300, 77);
      for (const allHits of [false, true]) {
        const hits = await gpu.collider.raycastMesh(rays, made, { allHits });
        const expected = bruteForceRaycastMesh(rays, mesh, { allHits });
        expect(compareMeshHits('ray', hits, expected, rays, mesh, { allHits })).toEqual([]);
        if (!allHits) expect(hits.triangle.filter((t) => t >= 0).length, mesh.name).toBeGreaterThan(10);
        const cast = await gpu.collider.sphereCastMesh(casts, made, { allHits });
        const expectedCast = bruteForceSphereCastMesh(casts, mesh, { allHits });
        expect(compareMeshHits('cast', cast, expectedCast, casts, mesh, { allHits })).toEqual([]);
      }
      const contacts = await gpu.collider.sphereTriangleContacts(spheres, made);
      const expected = bruteForceSphereTriangleContacts(spheres, mesh);
      expect(expected.pairs.length, mesh.name).toBeGreaterThan(0);
      expect(compareMeshContacts(contacts, expected, spheres, mesh)).toEqual([]);
      made.destroy();
    }
  });

  it('empty inputs: no rays, no spheres, an empty mesh, one triangle', async () => {
    const made = gpu.collider.createMesh(uvSphere(4, 8));
    expect((await gpu.collider.raycastMesh(new Float32Array(0), made)).triangle.length).toBe(0);
    expect((await gpu.collider.raycastMesh(new Float32Array(0), made, { allHits: true })).offsets).toEqual(
      new Uint32Array([0]),
    );
    expect((await gpu.collider.sphereTriangleContacts(new Float32Array(0), made)).pairs.length).toBe(0);
    made.destroy();
    const empty = gpu.collider.createMesh({ positions: new Float32Array(0) });
    const miss = await gpu.collider.raycastMesh(new Float32Array([0, 0, 1, 0, 0, -1]), empty);
    expect(miss.triangle[0]).toBe(-1);
    expect(Number.isNaN(miss.distance[0])).toBe(true);
    empty.destroy();
    const one = gpu.collider.createMesh({ positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]) });
    const hit = await gpu.collider.raycastMesh(new Float32Array([0.25, 0.25, 1, 0.25, 0.25, -1]), one);
    expect([hit.triangle[0], hit.distance[0], hit.u[0], hit.v[0]]).toEqual([0, 1, 0.25, 0.25]);
    expect(Array.from(hit.normal)).toEqual([0, 0, 1]);
    one.destroy();
  });
});

describe('mesh input rules', () => {
  const tri = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const rule = (f: () => unknown, argument: string, r: string, index = -1) => {
    let error: unknown;
    try {
      f();
    } catch (e) {
      error = e;
    }
    expect(error, `${argument}: ${r}`).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).argument).toBe(argument);
    expect((error as InvalidInputError).rule).toBe(r);
    expect((error as InvalidInputError).index).toBe(index);
  };

  it('createMesh and refit name the argument, the record and the rule', () => {
    const c = gpu.collider;
    rule(() => c.createMesh({ positions: [0, 0, 0] as unknown as Float32Array }), 'positions', RULES.type);
    rule(() => c.createMesh({ positions: new Float32Array(4) }), 'positions', RULES.stride);
    rule(() => c.createMesh({ positions: new Float32Array(6) }), 'positions', RULES.stride); // non-indexed: 2 vertices
    rule(
      () => c.createMesh({ positions: new Float32Array([0, 0, 0, 1, NaN, 0, 0, 1, 0]) }),
      'positions',
      RULES.finite,
      1,
    );
    rule(
      () => c.createMesh({ positions: new Float32Array([0, 0, 0, 1, 2 ** 61, 0, 0, 1, 0]) }),
      'positions',
      RULES.magnitude,
      1,
    );
    rule(
      () => c.createMesh({ positions: tri, indices: new Float32Array([0, 1, 2]) as unknown as Uint32Array }),
      'indices',
      RULES.indexType,
    );
    rule(() => c.createMesh({ positions: tri, indices: new Uint32Array([0, 1]) }), 'indices', RULES.stride);
    rule(
      () => c.createMesh({ positions: tri, indices: new Uint32Array([0, 1, 2, 2, 1, 3]) }),
      'indices',
      RULES.indexRange,
      1,
    );
    const made = c.createMesh({ positions: tri });
    rule(() => made.refit(new Float32Array(6)), 'positions', RULES.count);
    rule(() => made.refit(new Float32Array([0, 0, Infinity, 1, 0, 0, 0, 1, 0])), 'positions', RULES.finite, 0);
    made.destroy();
    rule(() => made.refit(tri), 'mesh', RULES.mesh);
  });

  it('the queries check their mesh, their pose and their options', async () => {
    const c = gpu.collider;
    const made = c.createMesh({ positions: tri });
    const ray = new Float32Array([0, 0, 1, 0, 0, -1]);
    const other = await createCollider({ device: gpu.device });
    const foreign = other.createMesh({ positions: tri });
    const rejects = async (p: Promise<unknown>, argument: string, r: string) => {
      const error = await rejection(p);
      expect(error, `${argument}: ${r}`).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).argument).toBe(argument);
      expect((error as InvalidInputError).rule).toBe(r);
    };
    await rejects(c.raycastMesh(ray, foreign), 'mesh', RULES.mesh);
    await rejects(c.raycastMesh(ray, {} as never), 'mesh', RULES.mesh);
    await rejects(c.raycastMesh(ray, made, { pose: [0, 0, 0, 0, 0, 0, 0] }), 'options.pose', RULES.pose);
    await rejects(c.raycastMesh(ray, made, { pose: [0, 0, 0, 1] }), 'options.pose', RULES.pose);
    await rejects(c.sphereCastMesh(ray, made), 'casts', RULES.stride);
    await rejects(c.sphereCastMesh(new Float32Array([0, 0, 0, 1, 0, 0, -1]), made), 'casts', RULES.radius);
    await rejects(c.raycastMesh(ray, made, { allHits: 1 as never }), 'options.allHits', RULES.option);
    await rejects(c.sphereTriangleContacts(new Float32Array([0, 0, 0, -1]), made), 'spheres', RULES.radius);
    const encoder = gpu.device.createCommandEncoder();
    rule(() => c.encodeRaycastMesh(encoder, { buffer: {} as GPUBuffer, count: 1 }, made), 'rays', RULES.gpuRecords);
    encoder.finish();
    foreign.destroy();
    other.destroy();
    made.destroy();
    await rejects(c.raycastMesh(ray, made), 'mesh', RULES.mesh);
  });
});
