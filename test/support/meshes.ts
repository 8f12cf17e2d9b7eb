/**
 * Seeded triangle meshes and mesh queries for the mesh tests: the same seed gives the same mesh
 * and the same queries on every machine (mulberry32). Sizes default to about 1,000–5,000
 * triangles; each generator takes its size as a parameter.
 */
import { mulberry32, gaussian } from './random.js';

/** A test mesh: `collider.createMesh`'s input with a name for the test titles. */
export interface TestMesh {
  name: string;
  positions: Float32Array;
  indices?: Uint32Array;
}

type V3 = [number, number, number];

const TAU = 2 * Math.PI;

function triangleCount(mesh: TestMesh): number {
  return (mesh.indices ? mesh.indices.length : mesh.positions.length / 3) / 3;
}

function vertexOf(mesh: TestMesh, k: number, j: number): V3 {
  const i = mesh.indices ? mesh.indices[3 * k + j] : 3 * k + j;
  return [mesh.positions[3 * i], mesh.positions[3 * i + 1], mesh.positions[3 * i + 2]];
}

/** A UV sphere: `rings` bands from pole to pole (fans at the poles), `segments` around. 2·segments·(rings − 1) triangles. */
export function uvSphere(rings = 24, segments = 48, radius = 1): TestMesh {
  const positions: number[] = [0, 0, radius];
  for (let i = 1; i < rings; i++) {
    const theta = (Math.PI * i) / rings;
    for (let j = 0; j < segments; j++) {
      const phi = (TAU * j) / segments;
      positions.push(
        radius * Math.sin(theta) * Math.cos(phi),
        radius * Math.sin(theta) * Math.sin(phi),
        radius * Math.cos(theta),
      );
    }
  }
  positions.push(0, 0, -radius);
  const south = positions.length / 3 - 1;
  const ring = (i: number, j: number) => 1 + (i - 1) * segments + (j % segments);
  const indices: number[] = [];
  for (let j = 0; j < segments; j++) {
    indices.push(0, ring(1, j), ring(1, j + 1));
    for (let i = 1; i < rings - 1; i++) {
      indices.push(ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j), ring(i + 1, j + 1), ring(i, j + 1));
    }
    indices.push(ring(rings - 1, j), south, ring(rings - 1, j + 1));
  }
  return {
    name: `uvSphere(${rings}x${segments})`,
    positions: Float32Array.from(positions),
    indices: Uint32Array.from(indices),
  };
}

/** A grid of (n + 1)² vertices over [0, size]² with noisy heights: 2n² triangles. */
export function terrain(seed = 1, n = 36, size = 10): TestMesh {
  const rand = mulberry32(seed);
  const waves = Array.from({ length: 4 }, () => [rand() * 2 + 0.5, rand() * 2 + 0.5, rand() * TAU, rand() * 0.6]);
  const positions: number[] = [];
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= n; j++) {
      const x = (size * i) / n,
        y = (size * j) / n;
      let h = 0.05 * size * gaussian(rand) * 0.1;
      for (const [fx, fy, ph, amp] of waves)
        h += amp * Math.sin((fx * x * TAU) / size + ph) * Math.cos((fy * y * TAU) / size);
      positions.push(x, y, h);
    }
  }
  const indices: number[] = [];
  const at = (i: number, j: number) => i * (n + 1) + j;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      // Alternate the diagonal so both kinds of shared edge appear.
      if ((i + j) % 2 === 0)
        indices.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1));
      else indices.push(at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
    }
  }
  return {
    name: `terrain(seed ${seed}, ${n}x${n})`,
    positions: Float32Array.from(positions),
    indices: Uint32Array.from(indices),
  };
}

/** A closed blob: an icosphere subdivided `levels` times (20·4^levels triangles), radii with noise. */
export function blob(seed = 2, levels = 3, radius = 2): TestMesh {
  const rand = mulberry32(seed);
  const t = (1 + Math.sqrt(5)) / 2;
  let vertices: V3[] = [
    [-1, t, 0],
    [1, t, 0],
    [-1, -t, 0],
    [1, -t, 0],
    [0, -1, t],
    [0, 1, t],
    [0, -1, -t],
    [0, 1, -t],
    [t, 0, -1],
    [t, 0, 1],
    [-t, 0, -1],
    [-t, 0, 1],
  ];
  let faces = [
    [0, 11, 5],
    [0, 5, 1],
    [0, 1, 7],
    [0, 7, 10],
    [0, 10, 11],
    [1, 5, 9],
    [5, 11, 4],
    [11, 10, 2],
    [10, 7, 6],
    [7, 1, 8],
    [3, 9, 4],
    [3, 4, 2],
    [3, 2, 6],
    [3, 6, 8],
    [3, 8, 9],
    [4, 9, 5],
    [2, 4, 11],
    [6, 2, 10],
    [8, 6, 7],
    [9, 8, 1],
  ];
  const unit = (v: V3): V3 => {
    const l = Math.hypot(...v);
    return [v[0] / l, v[1] / l, v[2] / l];
  };
  vertices = vertices.map(unit);
  for (let level = 0; level < levels; level++) {
    const mid = new Map<string, number>();
    const midpoint = (a: number, b: number) => {
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      let m = mid.get(key);
      if (m === undefined) {
        m = vertices.length;
        vertices.push(unit([0, 1, 2].map((k) => vertices[a][k] + vertices[b][k]) as V3));
        mid.set(key, m);
      }
      return m;
    };
    faces = faces.flatMap(([a, b, c]) => {
      const ab = midpoint(a, b),
        bc = midpoint(b, c),
        ca = midpoint(c, a);
      return [
        [a, ab, ca],
        [b, bc, ab],
        [c, ca, bc],
        [ab, bc, ca],
      ];
    });
  }
  const lobes = Array.from(
    { length: 5 },
    () => [unit([gaussian(rand), gaussian(rand), gaussian(rand)]), 0.15 + 0.25 * rand()] as const,
  );
  const positions = vertices.flatMap((v) => {
    let s = radius * (1 + 0.03 * gaussian(rand));
    for (const [d, amp] of lobes) s += radius * amp * Math.max(0, v[0] * d[0] + v[1] * d[1] + v[2] * d[2]) ** 3;
    return [v[0] * s, v[1] * s, v[2] * s];
  });
  return {
    name: `blob(seed ${seed}, ${faces.length})`,
    positions: Float32Array.from(positions),
    indices: Uint32Array.from(faces.flat()),
  };
}

/** Two parallel wavy sheets `gap` apart (the same grid, one shifted along z): 4n² triangles. */
export function thinShell(seed = 3, n = 24, gap = 1e-3, size = 4): TestMesh {
  const rand = mulberry32(seed);
  const ph = rand() * TAU;
  const positions: number[] = [];
  for (const dz of [0, gap]) {
    for (let i = 0; i <= n; i++) {
      for (let j = 0; j <= n; j++) {
        const x = (size * i) / n,
          y = (size * j) / n;
        positions.push(x, y, 0.1 * size * Math.sin((x * TAU) / size + ph) * Math.sin((y * TAU) / size) + dz);
      }
    }
  }
  const indices: number[] = [];
  const at = (s: number, i: number, j: number) => s * (n + 1) ** 2 + i * (n + 1) + j;
  for (let s = 0; s < 2; s++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        // The upper sheet winds the other way: the shell's two faces point outwards.
        if (s === 0)
          indices.push(
            at(s, i, j),
            at(s, i, j + 1),
            at(s, i + 1, j + 1),
            at(s, i, j),
            at(s, i + 1, j + 1),
            at(s, i + 1, j),
          );
        else
          indices.push(
            at(s, i, j),
            at(s, i + 1, j + 1),
            at(s, i, j + 1),
            at(s, i, j),
            at(s, i + 1, j),
            at(s, i + 1, j + 1),
          );
      }
    }
  }
  return {
    name: `thinShell(seed ${seed}, gap ${gap})`,
    positions: Float32Array.from(positions),
    indices: Uint32Array.from(indices),
  };
}

/**
 * Random triangles in a box with degenerate ones (a repeated vertex, three collinear vertices,
 * three equal vertices) and coincident ones (exact copies, copies with the vertices rotated or
 * the winding reversed) mixed in: `count` triangles, about a third of them special.
 */
export function degenerateMix(seed = 4, count = 1500, size = 4): TestMesh {
  const rand = mulberry32(seed);
  const tris: V3[][] = [];
  const point = (): V3 => [rand() * size, rand() * size, rand() * size];
  const near = (p: V3, s: number): V3 => [
    p[0] + (rand() - 0.5) * s,
    p[1] + (rand() - 0.5) * s,
    p[2] + (rand() - 0.5) * s,
  ];
  while (tris.length < count) {
    const p = point();
    const a = near(p, 0.6),
      b = near(p, 0.6);
    const kind = rand();
    if (kind < 0.66 || tris.length === 0) tris.push([p, a, b]);
    else if (kind < 0.72)
      tris.push([p, p, a]); // repeated vertex
    else if (kind < 0.78) {
      // collinear: on a grid of 1/64, so that q, q + d and q + 2d are exact in f32
      const grid = (x: number) => Math.round(x * 64) / 64;
      const q = p.map(grid) as V3;
      const d = [0, 1, 2].map(() => grid(rand() - 0.5));
      tris.push([q, q.map((x, a) => x + d[a]) as V3, q.map((x, a) => x + 2 * d[a]) as V3]);
    } else if (kind < 0.82)
      tris.push([p, p, p]); // a point
    else {
      const t = tris[Math.floor(rand() * tris.length)];
      const form = Math.floor(rand() * 3);
      tris.push(form === 0 ? [...t] : form === 1 ? [t[1], t[2], t[0]] : [t[0], t[2], t[1]]);
    }
  }
  return { name: `degenerateMix(seed ${seed}, ${count})`, positions: Float32Array.from(tris.flat(2)) };
}

/** `huge` triangles 100 across through a cloud of `tiny` triangles 1e-3 across, in a box of side 10. */
export function hugeAndTiny(seed = 5, tiny = 2000, huge = 6): TestMesh {
  const rand = mulberry32(seed);
  const tris: V3[][] = [];
  for (let h = 0; h < huge; h++) {
    const c: V3 = [rand() * 10, rand() * 10, rand() * 10];
    const corner = (): V3 => [c[0] + (rand() - 0.5) * 100, c[1] + (rand() - 0.5) * 100, c[2] + (rand() - 0.5) * 100];
    tris.push([corner(), corner(), corner()]);
  }
  for (let k = 0; k < tiny; k++) {
    const c: V3 = [rand() * 10, rand() * 10, rand() * 10];
    const corner = (): V3 => [c[0] + (rand() - 0.5) * 1e-3, c[1] + (rand() - 0.5) * 1e-3, c[2] + (rand() - 0.5) * 1e-3];
    tris.push([c, corner(), corner()]);
  }
  return { name: `hugeAndTiny(seed ${seed}, ${huge}+${tiny})`, positions: Float32Array.from(tris.flat(2)) };
}

/** The mesh scaled by `scale` then moved by `offset` (f32: at 1e6 coordinates step by 1/16). */
export function farFromOrigin(mesh: TestMesh, offset: number | V3 = 1e6, scale = 1): TestMesh {
  const o = typeof offset === 'number' ? [offset, offset, offset] : offset;
  const positions = mesh.positions.map((x, i) => x * scale + o[i % 3]);
  const at = typeof offset === 'number' ? offset.toExponential(0) : `[${o.join(', ')}]`;
  return { name: `${mesh.name}${scale === 1 ? '' : `×${scale}`}@${at}`, positions, indices: mesh.indices };
}

/** The same triangles without an index: three vertices a triangle, in order. */
export function nonIndexed(mesh: TestMesh): TestMesh {
  const n = triangleCount(mesh);
  const positions = new Float32Array(9 * n);
  for (let k = 0; k < n; k++) for (let j = 0; j < 3; j++) positions.set(vertexOf(mesh, k, j), 9 * k + 3 * j);
  return { name: `${mesh.name} non-indexed`, positions };
}

/**
 * A glTF-like mesh made in code: a torus (rings × sides quads) as an interleaved vertex buffer
 * (position + normal, 6 floats a vertex) with uint16 indices, then what a loader does: the
 * positions de-interleaved, the node's transform (translation, rotation, scale) applied in
 * double, the indices widened to Uint32Array. 2·rings·sides triangles.
 */
export function gltfLike(seed = 6, rings = 32, sides = 20): TestMesh {
  const rand = mulberry32(seed);
  const R = 1.5,
    r = 0.5;
  const interleaved = new Float32Array(rings * sides * 6);
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < sides; j++) {
      const u = (TAU * i) / rings,
        v = (TAU * j) / sides;
      const n: V3 = [Math.cos(u) * Math.cos(v), Math.sin(u) * Math.cos(v), Math.sin(v)];
      const p: V3 = [(R + r * Math.cos(v)) * Math.cos(u), (R + r * Math.cos(v)) * Math.sin(u), r * Math.sin(v)];
      interleaved.set([...p, ...n], 6 * (i * sides + j));
    }
  }
  const indices16 = new Uint16Array(rings * sides * 6);
  let w = 0;
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < sides; j++) {
      const a = i * sides + j,
        b = ((i + 1) % rings) * sides + j,
        c = ((i + 1) % rings) * sides + ((j + 1) % sides),
        d = i * sides + ((j + 1) % sides);
      indices16.set([a, b, c, a, c, d], w);
      w += 6;
    }
  }
  // The node: translation, a unit quaternion, a non-uniform scale (world = T·R·S·p).
  const translation: V3 = [rand() * 4 - 2, rand() * 4 - 2, rand() * 4 - 2];
  const axis = [gaussian(rand), gaussian(rand), gaussian(rand)];
  const al = Math.hypot(axis[0], axis[1], axis[2]);
  const angle = rand() * TAU;
  const [qx, qy, qz, qw] = [...axis.map((a) => (a / al) * Math.sin(angle / 2)), Math.cos(angle / 2)];
  const scale: V3 = [1.2, 0.8, 1.5];
  const count = interleaved.length / 6;
  const positions = new Float32Array(3 * count);
  for (let k = 0; k < count; k++) {
    const p = [0, 1, 2].map((a) => interleaved[6 * k + a] * scale[a]);
    const tx = 2 * (qy * p[2] - qz * p[1]),
      ty = 2 * (qz * p[0] - qx * p[2]),
      tz = 2 * (qx * p[1] - qy * p[0]);
    positions[3 * k] = p[0] + qw * tx + (qy * tz - qz * ty) + translation[0];
    positions[3 * k + 1] = p[1] + qw * ty + (qz * tx - qx * tz) + translation[1];
    positions[3 * k + 2] = p[2] + qw * tz + (qx * ty - qy * tx) + translation[2];
  }
  return { name: `gltfLike(seed ${seed}, torus ${rings}x${sides})`, positions, indices: Uint32Array.from(indices16) };
}

/** The mesh's box: min, max, size (the diagonal's length) and centre. */
export function meshBox(mesh: TestMesh): { min: V3; max: V3; size: number; centre: V3 } {
  const min: V3 = [Infinity, Infinity, Infinity],
    max: V3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < mesh.positions.length; i++) {
    min[i % 3] = Math.min(min[i % 3], mesh.positions[i]);
    max[i % 3] = Math.max(max[i % 3], mesh.positions[i]);
  }
  const centre = [0, 1, 2].map((a) => (min[a] + max[a]) / 2) as V3;
  return { min, max, size: Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]), centre };
}

function unitVector(rand: () => number): V3 {
  const v: V3 = [gaussian(rand), gaussian(rand), gaussian(rand)];
  const l = Math.hypot(...v) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}

/** Parallel rays from a grid on one side of the box (chosen by the seed), aimed across it, with a small common tilt. */
export function coherentRays(mesh: TestMesh, count: number, seed = 1): Float32Array {
  const rand = mulberry32(seed);
  const { min, max, size } = meshBox(mesh);
  const axis = Math.floor(rand() * 3);
  const sign = rand() < 0.5 ? 1 : -1;
  const [a1, a2] = [(axis + 1) % 3, (axis + 2) % 3];
  const side = Math.ceil(Math.sqrt(count));
  const tilt = [0, 0, 0];
  tilt[a1] = (rand() - 0.5) * 0.2;
  tilt[a2] = (rand() - 0.5) * 0.2;
  const margin = 0.05 * size;
  const out = new Float32Array(6 * count);
  for (let k = 0; k < count; k++) {
    const i = k % side,
      j = Math.floor(k / side);
    const A = [0, 0, 0];
    A[axis] = sign > 0 ? min[axis] - margin : max[axis] + margin;
    A[a1] = min[a1] - margin + ((i + 0.5) / side) * (max[a1] - min[a1] + 2 * margin);
    A[a2] = min[a2] - margin + ((j + 0.5) / side) * (max[a2] - min[a2] + 2 * margin);
    const length = max[axis] - min[axis] + 2 * margin;
    const d = [...tilt];
    d[axis] = sign;
    out.set([A[0], A[1], A[2], A[0] + d[0] * length, A[1] + d[1] * length, A[2] + d[2] * length], 6 * k);
  }
  return out;
}

/** Random rays: origins in the box grown by 20%, random directions, lengths up to 0.6 of its diagonal. */
export function incoherentRays(mesh: TestMesh, count: number, seed = 2): Float32Array {
  return randomSegments(mesh, count, seed, 6);
}

/** Random sphere casts as `incoherentRays`, radii from 0 to 5% of the box's diagonal (one in ten exactly 0). */
export function meshSphereCasts(mesh: TestMesh, count: number, seed = 3): Float32Array {
  return randomSegments(mesh, count, seed, 7);
}

function randomSegments(mesh: TestMesh, count: number, seed: number, stride: 6 | 7): Float32Array {
  const rand = mulberry32(seed);
  const { min, max, size } = meshBox(mesh);
  const out = new Float32Array(stride * count);
  for (let k = 0; k < count; k++) {
    const A = [0, 1, 2].map((a) => min[a] + (rand() * 1.4 - 0.2) * (max[a] - min[a]));
    const n = unitVector(rand);
    const length = rand() * 0.6 * size;
    out.set([A[0], A[1], A[2], A[0] + n[0] * length, A[1] + n[1] * length, A[2] + n[2] * length], stride * k);
    if (stride === 7) out[7 * k + 6] = rand() < 0.1 ? 0 : rand() * 0.05 * size;
  }
  return out;
}

/**
 * Spheres near the surface: a random point of a random triangle, moved along a random direction
 * by 0.2–1.4 radii (so many touch); one in twenty a point (r = 0).
 */
export function meshSpheres(mesh: TestMesh, count: number, seed = 4): Float32Array {
  const rand = mulberry32(seed);
  const { size } = meshBox(mesh);
  const n = triangleCount(mesh);
  const out = new Float32Array(4 * count);
  for (let k = 0; k < count; k++) {
    const t = Math.floor(rand() * n);
    const [p0, p1, p2] = [0, 1, 2].map((j) => vertexOf(mesh, t, j));
    let u = rand(),
      v = rand();
    if (u + v > 1) [u, v] = [1 - u, 1 - v];
    // Up to 5% of the box, or twice the triangle's longest edge when that is less than 1% of it
    // (tiny triangles get spheres their size, not thousands of neighbours).
    const edge = Math.max(
      ...[0, 1, 2].map((j) => Math.hypot(...[0, 1, 2].map((a) => [p0, p1, p2][j][a] - [p0, p1, p2][(j + 1) % 3][a]))),
    );
    const r = rand() < 0.05 ? 0 : rand() * (edge < 0.01 * size ? 2 * edge : 0.05 * size);
    const dir = unitVector(rand);
    const off = r * (0.2 + 1.2 * rand());
    for (let a = 0; a < 3; a++) out[4 * k + a] = p0[a] + u * (p1[a] - p0[a]) + v * (p2[a] - p0[a]) + dir[a] * off;
    out[4 * k + 3] = r;
  }
  return out;
}

/**
 * Edge-case rays on the mesh's own triangles: starting on a vertex, on an edge's midpoint and on
 * the centroid (aimed through the triangle or away), parallel to a face (in its plane and just
 * above it), through a vertex and through an edge's midpoint from across the plane, and zero-length
 * rays. Points are f32-rounded, so "on" an edge is on it within rounding (the band's business).
 */
export function edgeCaseRays(mesh: TestMesh, count: number, seed = 5): Float32Array {
  const rand = mulberry32(seed);
  const { size } = meshBox(mesh);
  const n = triangleCount(mesh);
  const out = new Float32Array(6 * count);
  for (let k = 0; k < count; k++) {
    const t = Math.floor(rand() * n);
    const [p0, p1, p2] = [0, 1, 2].map((j) => vertexOf(mesh, t, j));
    const e1 = p1.map((x, a) => x - p0[a]),
      e2 = p2.map((x, a) => x - p0[a]);
    const N = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const nl = Math.hypot(N[0], N[1], N[2]) || 1;
    const Nu = N.map((x) => x / nl);
    const len = (0.05 + 0.3 * rand()) * size;
    const kind = k % 8;
    const mid = p0.map((x, a) => (x + p1[a]) / 2);
    const centroid = p0.map((x, a) => (x + p1[a] + p2[a]) / 3);
    let A: number[], d: number[];
    if (kind === 0) [A, d] = [p0, unitVector(rand)];
    else if (kind === 1) [A, d] = [mid, unitVector(rand)];
    else if (kind === 2) [A, d] = [centroid, rand() < 0.5 ? Nu : Nu.map((x) => -x)];
    else if (kind === 3)
      [A, d] = [centroid.map((x, a) => x - e1[a] * 2), e1.map((x) => x / (Math.hypot(e1[0], e1[1], e1[2]) || 1))];
    else if (kind === 4)
      [A, d] = [
        centroid.map((x, a) => x - e1[a] * 2 + Nu[a] * 1e-4 * size),
        e1.map((x) => x / (Math.hypot(e1[0], e1[1], e1[2]) || 1)),
      ];
    else if (kind === 5) [A, d] = [p1.map((x, a) => x + Nu[a] * len * 0.5), Nu.map((x) => -x)];
    else if (kind === 6) [A, d] = [mid.map((x, a) => x + Nu[a] * len * 0.5), Nu.map((x) => -x)];
    else [A, d] = [centroid.map((x, a) => x + Nu[a] * 0.01 * size), [0, 0, 0]];
    out.set([A[0], A[1], A[2], A[0] + d[0] * len, A[1] + d[1] * len, A[2] + d[2] * len], 6 * k);
  }
  return out;
}

/** `edgeCaseRays` as sphere casts, radii from 0 to 2% of the box (one in four exactly 0). */
export function edgeCaseCasts(mesh: TestMesh, count: number, seed = 6): Float32Array {
  const rays = edgeCaseRays(mesh, count, seed);
  const rand = mulberry32(seed + 1);
  const { size } = meshBox(mesh);
  const out = new Float32Array(7 * count);
  for (let k = 0; k < count; k++) {
    out.set(rays.subarray(6 * k, 6 * k + 6), 7 * k);
    out[7 * k + 6] = rand() < 0.25 ? 0 : rand() * 0.02 * size;
  }
  return out;
}

/** The seeded meshes every mesh test runs on (each ≤ about 5,000 triangles). */
export function seededMeshes(): TestMesh[] {
  const sphere = uvSphere();
  return [
    sphere,
    terrain(11),
    blob(12),
    thinShell(13),
    degenerateMix(14),
    hugeAndTiny(15),
    farFromOrigin(terrain(16, 30, 10), 1e6, 100),
    gltfLike(17),
    nonIndexed(blob(18, 2)),
  ];
}
