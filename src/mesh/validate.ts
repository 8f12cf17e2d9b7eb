/**
 * The checks of a mesh's input and of a mesh query's own options, with the rules every call
 * shares (src/checks.ts): each throws an InvalidInputError naming the argument, the record and
 * the rule, first bad record first.
 */
import { InvalidInputError, CapacityError } from '../errors.js';
import { RULES, MAX_MAGNITUDE, checkFloat32Array, checkValue, isDetached, kindOf } from '../checks.js';

/** A mesh's validated input: its vertices' bounds and its triangles as indices. */
export interface MeshData {
  positions: Float32Array;
  /** Three a triangle (made 0, 1, 2, ... for a non-indexed mesh). */
  indices: Uint32Array;
  vertexCount: number;
  triangleCount: number;
  min: number[];
  max: number[];
}

/** `positions` (x, y, z per vertex): finite, within 2^60; returns the vertices' bounds. */
export function validatePositions(
  argument: string,
  value: unknown,
): { positions: Float32Array; min: number[]; max: number[] } {
  const positions = checkFloat32Array(argument, value, 3);
  // One pass for the bounds; x · 0 is NaN for NaN and ±Infinity, so \`poison\` tells whether any
  // value is not finite. Only a bad mesh walks again, to name its first bad value.
  let [minX, minY, minZ] = [Infinity, Infinity, Infinity];
  let [maxX, maxY, maxZ] = [-Infinity, -Infinity, -Infinity];
  let poison = 0;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i];
    const y = positions[i + 1];
    const z = positions[i + 2];
    poison += x * 0 + y * 0 + z * 0;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  const min = [minX, minY, minZ];
  const max = [maxX, maxY, maxZ];
  if (poison !== 0 || Math.min(...min) < -MAX_MAGNITUDE || Math.max(...max) > MAX_MAGNITUDE)
    for (let i = 0; i < positions.length; i++)
      if (!(Math.abs(positions[i]) <= MAX_MAGNITUDE))
        checkValue(argument, Math.floor(i / 3), positions[i], 'xyz'[i % 3]);
  return { positions, min, max };
}

/** `indices`: a Uint32Array of three a triangle, each below the vertex count. */
export function validateIndices(argument: string, value: unknown, vertexCount: number): Uint32Array {
  if (!(value instanceof Uint32Array))
    throw new InvalidInputError(argument, -1, RULES.indexType, `got ${kindOf(value)}`);
  if (value.buffer.byteLength === 0 && isDetached(value.buffer))
    throw new InvalidInputError(argument, -1, RULES.detached);
  if (value.length % 3 !== 0)
    throw new InvalidInputError(argument, -1, RULES.stride, `length ${value.length} is not a multiple of 3`);
  // The largest index first (one tight pass); only a bad mesh walks again for its first bad index.
  let largest = -1;
  for (let i = 0; i < value.length; i++) if (value[i] > largest) largest = value[i];
  if (largest < vertexCount) return value;
  for (let i = 0; i < value.length; i++) {
    if (value[i] >= vertexCount)
      throw new InvalidInputError(
        argument,
        Math.floor(i / 3),
        RULES.indexRange,
        `index ${value[i]} (corner ${i % 3}) with ${vertexCount} vertices`,
      );
  }
  return value;
}

/**
 * A mesh's input, `{ positions, indices? }`, validated and copied (the caller may reuse its
 * arrays at once). Without indices every three vertices are a triangle. More triangles or
 * vertices than one binding holds (`bytesPerTriangle`, `bytesPerVertex`) is a CapacityError.
 */
export function validateMesh(value: unknown, limits: { maxTriangles: number; maxVertices: number }): MeshData {
  if (typeof value !== 'object' || value === null)
    throw new InvalidInputError(
      'mesh',
      -1,
      RULES.option,
      `expected { positions, indices? }, got ${value === null ? 'null' : typeof value}`,
    );
  const input = value as { positions?: unknown; indices?: unknown };
  const { positions, min, max } = validatePositions('positions', input.positions);
  const vertexCount = positions.length / 3;
  if (vertexCount > limits.maxVertices)
    throw new CapacityError('positions', vertexCount, limits.maxVertices, RULES.capacity);
  let indices: Uint32Array;
  if (input.indices === undefined) {
    if (vertexCount % 3 !== 0)
      throw new InvalidInputError(
        'positions',
        -1,
        RULES.stride,
        `without indices, every three vertices are a triangle: ${vertexCount} vertices`,
      );
    indices = new Uint32Array(vertexCount);
    for (let i = 0; i < vertexCount; i++) indices[i] = i;
  } else {
    indices = validateIndices('indices', input.indices, vertexCount).slice();
  }
  const triangleCount = indices.length / 3;
  if (triangleCount > limits.maxTriangles)
    throw new CapacityError('indices', triangleCount, limits.maxTriangles, RULES.capacity);
  return { positions: positions.slice(), indices, vertexCount, triangleCount, min, max };
}

/**
 * `options.pose`: 7 finite numbers (centre, quaternion x, y, z, w), the quaternion not zero and
 * normalised here in double precision; undefined is no pose.
 */
export function validatePose(argument: string, value: unknown): { centre: number[]; rotation: number[] } | undefined {
  if (value === undefined) return undefined;
  const ok =
    (Array.isArray(value) || value instanceof Float32Array || value instanceof Float64Array) &&
    (value as ArrayLike<number>).length === 7;
  if (!ok) throw new InvalidInputError(argument, -1, RULES.pose, `got ${describe(value)}`);
  const p = Array.from(value as ArrayLike<unknown>);
  p.forEach((x, i) => {
    if (typeof x !== 'number' || !(Math.abs(x) <= 2 ** 60))
      throw new InvalidInputError(argument, -1, RULES.pose, `value ${i} is ${String(x)}`);
  });
  const q = (p as number[]).slice(3);
  const length = Math.hypot(...q);
  if (!(length > 0)) throw new InvalidInputError(argument, -1, RULES.pose, 'the quaternion is zero');
  return { centre: (p as number[]).slice(0, 3), rotation: q.map((x) => x / length) };
}

function describe(value: unknown): string {
  const length = (value as { length?: unknown } | null)?.length;
  return `${kindOf(value)}${typeof value === 'object' && typeof length === 'number' ? ` of ${length}` : ''}`;
}
