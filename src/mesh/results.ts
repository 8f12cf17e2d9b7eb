/**
 * What the mesh queries give back: the one-shot results (typed arrays a query, or a hit) and
 * the encoded results (`EncodedMeshHits`, `EncodedMeshContacts`), whose buffers stay on the GPU
 * until `read()` brings back what was found.
 */
import { MeshHitRecord, MeshContactRecord } from '../../shaders/mesh/layout.js';
import { PairCounter } from '../layout.js';
import { CapacityError } from '../errors.js';
import { readRanges } from '../gpu/buffers.js';

/**
 * The nearest triangle hit by each ray (`raycastMesh`): one entry a ray, or with `allHits` one
 * a hit and `offsets` (rays + 1). A miss has triangle −1 and NaN elsewhere.
 *
 * @category Meshes
 */
export interface MeshRaycastResult {
  /** The triangle's index in the mesh's input, −1 for a miss. */
  triangle: Int32Array;
  /** t = |AD|. */
  distance: Float32Array;
  /** D = A + n·t, xyz. */
  point: Float32Array;
  /** Barycentrics of D: D = P0 + u·e1 + v·e2. */
  u: Float32Array;
  /** See `u`. */
  v: Float32Array;
  /** The triangle's unit face normal by its winding, xyz (world space). */
  normal: Float32Array;
  /** With `allHits`: the hits of ray k are entries offsets[k] .. offsets[k + 1] − 1. */
  offsets?: Uint32Array;
}

/**
 * The first triangle each sphere cast touches (`sphereCastMesh`), as {@link MeshRaycastResult}
 * with the centre at contact C and the touched point E (u, v are E's barycentrics).
 *
 * @category Meshes
 */
export interface MeshSphereCastResult {
  /** The triangle's index in the mesh's input, −1 for a miss. */
  triangle: Int32Array;
  /** t = |AC|. */
  distance: Float32Array;
  /** C = A + n·t, xyz. */
  center: Float32Array;
  /** E, the triangle's point the sphere touches, xyz. */
  contact: Float32Array;
  /** Barycentrics of E: E = P0 + u·e1 + v·e2. */
  u: Float32Array;
  /** See `u`. */
  v: Float32Array;
  /** The triangle's unit face normal by its winding, xyz (world space). */
  normal: Float32Array;
  /** With `allHits`: the hits of cast k are entries offsets[k] .. offsets[k + 1] − 1. */
  offsets?: Uint32Array;
}

/**
 * Every sphere–triangle contact (`sphereTriangleContacts`), in no particular order.
 *
 * @category Meshes
 */
export interface MeshContactsResult {
  /** [sphere, triangle, ...]. */
  pairs: Uint32Array;
  /** E, the triangle's point closest to the centre, xyz. */
  point: Float32Array;
  /** The unit direction from E to the centre (the face normal when the centre lies on the triangle), xyz. */
  normal: Float32Array;
  /** r − |S − E| (≥ 0). */
  depth: Float32Array;
}

const HIT_WORDS = MeshHitRecord.size / 4;
const CONTACT_WORDS = MeshContactRecord.size / 4;

/** Hit records (and the offsets of all hits) as a result's arrays. */
export function decodeMeshHits(
  kind: 'ray' | 'cast',
  bytes: ArrayBuffer,
  count: number,
  offsets?: Uint32Array,
): MeshRaycastResult | MeshSphereCastResult {
  const f = new Float32Array(bytes, 0, count * HIT_WORDS);
  const i = new Int32Array(bytes, 0, count * HIT_WORDS);
  // The fields' word offsets, read once (a property read in the loop cost a third of a 1M-hit decode).
  const o = MeshHitRecord.offsets;
  const [oTriangle, oDistance, oU, oV, oPoint, oContact, oNormal] = [
    o.triangle,
    o.distance,
    o.u,
    o.v,
    o.point,
    o.contact,
    o.normal,
  ].map((bytes) => bytes / 4);
  const cast = kind === 'cast';
  const triangle = new Int32Array(count);
  const distance = new Float32Array(count).fill(NaN);
  const first = new Float32Array(3 * count).fill(NaN);
  const second = new Float32Array(cast ? 3 * count : 0).fill(NaN);
  const u = new Float32Array(count).fill(NaN);
  const v = new Float32Array(count).fill(NaN);
  const normal = new Float32Array(3 * count).fill(NaN);
  for (let k = 0; k < count; k++) {
    const w = k * HIT_WORDS;
    const tri = i[w + oTriangle];
    triangle[k] = tri;
    if (tri < 0) continue; // a miss: NaN in every field but the triangle
    distance[k] = f[w + oDistance];
    u[k] = f[w + oU];
    v[k] = f[w + oV];
    for (let a = 0; a < 3; a++) {
      first[3 * k + a] = f[w + oPoint + a];
      normal[3 * k + a] = f[w + oNormal + a];
    }
    if (cast) for (let a = 0; a < 3; a++) second[3 * k + a] = f[w + oContact + a];
  }
  const extra = offsets ? { offsets } : {};
  return !cast
    ? { triangle, distance, point: first, u, v, normal, ...extra }
    : { triangle, distance, center: first, contact: second, u, v, normal, ...extra };
}

/** Contact records as a result's arrays. */
export function decodeMeshContacts(bytes: ArrayBuffer, count: number): MeshContactsResult {
  const f = new Float32Array(bytes, 0, count * CONTACT_WORDS);
  const w32 = new Uint32Array(bytes, 0, count * CONTACT_WORDS);
  // The fields' word offsets, read once (as decodeMeshHits does).
  const o = MeshContactRecord.offsets;
  const [oSphere, oTriangle, oDepth, oPoint, oNormal] = [o.sphere, o.triangle, o.depth, o.point, o.normal].map(
    (bytes) => bytes / 4,
  );
  const pairs = new Uint32Array(2 * count);
  const point = new Float32Array(3 * count);
  const normal = new Float32Array(3 * count);
  const depth = new Float32Array(count);
  for (let k = 0; k < count; k++) {
    const w = k * CONTACT_WORDS;
    pairs[2 * k] = w32[w + oSphere];
    pairs[2 * k + 1] = w32[w + oTriangle];
    depth[k] = f[w + oDepth];
    for (let a = 0; a < 3; a++) {
      point[3 * k + a] = f[w + oPoint + a];
      normal[3 * k + a] = f[w + oNormal + a];
    }
  }
  return { pairs, point, normal, depth };
}

/**
 * Reads a counter (PairCounter: count, countHi) and, when the count fits `capacity`, the
 * records in the same round trip when they number no more than `expected` (else a second read).
 * The true count comes back either way.
 */
export async function readCounted(
  device: GPUDevice,
  counter: GPUBuffer,
  counterOffset: number,
  records: GPUBuffer,
  recordBytes: number,
  capacity: number,
  expected: number,
): Promise<{ count: number; bytes?: ArrayBuffer }> {
  const ahead = Math.min(expected, capacity);
  let recordsBytes: ArrayBuffer | undefined;
  const count = await readRanges(
    device,
    [
      { source: counter, offset: counterOffset, size: 8 },
      ...(ahead > 0 ? [{ source: records, offset: 0, size: ahead * recordBytes }] : []),
    ],
    (bytes) => {
      const words = new Uint32Array(bytes[0]);
      const n = words[1] * 2 ** 32 + words[0];
      if (n <= ahead) recordsBytes = bytes[1]?.slice(0, n * recordBytes) ?? new ArrayBuffer(0);
      return n;
    },
  );
  if (count > capacity) return { count };
  if (recordsBytes) return { count, bytes: recordsBytes };
  const bytes = await readRanges(device, [{ source: records, offset: 0, size: count * recordBytes }], (b) =>
    b[0].slice(0),
  );
  return { count, bytes };
}

/** The size of a PairCounter: the mesh results' totals are PairCounter-shaped. */
export const COUNTER_BYTES = PairCounter.size;

/** Throws the CapacityError of a total past the caller's cap or the device's. */
export function checkTotal(what: 'hits' | 'pairs', count: number, cap: number, deviceCap: number): void {
  if (count > cap)
    throw new CapacityError(what, count, cap, `raise options.${what === 'hits' ? 'maxHits' : 'maxPairs'}`);
  if (count > deviceCap)
    throw new CapacityError(what, count, deviceCap, 'the device cannot hold that many in one buffer');
}
