/**
 * The multi-level grid on the GPU (src/spatial/plan.ts plans it): how a sphere finds its level,
 * cell and bucket, for every kernel that bins or walks spheres (the build, shaders/passes/
 * gridBuild.wgsl.ts; the grid phase's queries; the particle world's search and colliders). The
 * CPU twins of these functions, with the same names, are in src/reference/grid.ts.
 */
import { GridLevel, GridParams } from './layout.js';
import { uniform, readOnly } from '../../src/gpu/kernel.js';

/** How a kernel that walks the grid is compiled for a plan (src/spatial/plan.ts). */
export interface GridLayout {
  /** One bucket per cell (dense) or rows of cells placed by a hash (hashed). */
  dense: boolean;
  /** The plan has one level: every `grid.levels[…]` is compiled with the literal index 0. */
  oneLevel?: boolean;
}

/** The layout a kernel walking `plan`'s grid is compiled for. */
export function gridLayoutOf(plan: { dense: boolean; levels: readonly unknown[] }): Required<GridLayout> {
  return { dense: plan.dense, oneLevel: plan.levels.length === 1 };
}

/** A name for the layout, for pipeline keys and labels. */
export const gridLayoutName = ({ dense, oneLevel = false }: GridLayout): string =>
  `${dense ? 'dense' : 'hashed'}${oneLevel ? ' one-level' : ''}`;

/**
 * A kernel's code for its layout: with `oneLevel`, every read of `grid.levels[i]` becomes
 * `grid.levels[0u]` (the only level of such a plan, so the same values). On SwiftShader a read
 * through an index held in a variable is a gather, lane by lane, of each value read, since it
 * cannot know that the lanes agree; through a literal it is one load (measured:
 * docs/PERFORMANCE.md, "What the design rests on"). On a GPU the reads are the same either way.
 */
export function compiledFor(code: string, { oneLevel = false }: GridLayout): string {
  if (!oneLevel) return code;
  const out = code.replace(/grid\.levels\[\s*\w+\s*\]/g, 'grid.levels[0u]');
  const left = /grid\.levels\[(?!0u\])/.exec(out);
  if (left)
    throw new Error(
      `compiledFor: an index into grid.levels that is not a name: ${out.slice(left.index, left.index + 40)}`,
    );
  return out;
}

/** The binding of the grid's uniform, for a kernel's declaration (src/gpu/kernel.ts). */
export const GRID_PARAMS = { grid: uniform('GridParams') } as const;

/** The bindings of a built grid that its readers walk, after the grid's uniform and their own parameters. */
export const GRID_READ = {
  cellStart: readOnly('array<u32>'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
} as const;

/**
 * The grid's structs and functions, for a kernel that declares GRID_PARAMS. A kernel compiled for
 * one layout passes `dense` (true or false), so that rowKey holds only that layout's arithmetic:
 * on SwiftShader a branch on the uniform's `dense` costs both of its arms.
 */
export const gridHelpers = (dense?: boolean): string => /* wgsl */ `
${GridLevel.wgsl}
${GridParams.wgsl}
${gridBody(dense)}`;

/**
 * Murmur3's finaliser over three u32s: where a row of cells (level, y, z) starts among the
 * buckets (gridHelpers), and a pair's hashed normal (shaders/particles/common.wgsl.ts,
 * coincidentNormal). Needs no binding.
 */
export const hashRowFunction = /* wgsl */ `
fn hashRow(level: u32, y: u32, z: u32) -> u32 {
  var h = (level * 0x9e3779b1u) ^ (y * 0x85ebca77u) ^ (z * 0xc2b2ae3du);
  h = h ^ (h >> 16u);
  h = h * 0x85ebca6bu;
  h = h ^ (h >> 13u);
  h = h * 0xc2b2ae35u;
  h = h ^ (h >> 16u);
  return h;
}`;

/** The grid's functions (after its structs and its binding). */
const gridBody = (dense?: boolean): string => /* wgsl */ `
// ceil(log2 r) from the float's bits; zero and subnormals give -127 (src/spatial/level.ts).
fn ceilLog2(r: f32) -> i32 {
  let bits = bitcast<u32>(r);
  let e = i32((bits >> 23u) & 0xffu);
  if (e == 0) {
    return -127;
  }
  return e - 127 + select(0, 1, (bits & 0x7fffffu) != 0u);
}

// The level whose cells a sphere's diameter fits (src/spatial/plan.ts, levelOfLog2).
fn sphereLevel(r: f32) -> u32 {
  let d = ceilLog2(r) - grid.levelBias;
  if (d <= 0) {
    return 0u;
  }
  let step = i32(grid.levelStep);
  return min(u32((d + step - 1) / step), grid.levelCount - 1u);
}

// Is a sphere of radius r in this level? (sphereLevel(r) == level, without its division.)
fn inLevel(r: f32, level: u32) -> bool {
  let c = ceilLog2(r);
  let range = grid.levels[level].log2Range;
  return c >= range.x && c <= range.y;
}

// The cell of a point at a level: monotonic in each coordinate, clamped into the grid.
fn cellOf(p: vec3f, level: u32) -> vec3u {
  let c = floor((p - grid.levels[level].origin) * grid.levels[level].invCellSize);
  return vec3u(clamp(c, vec3f(0.0), vec3f(grid.levels[level].dims - 1u)));
}

// cellOf with the offset from the level's origin given (d = p − origin, computed by the caller
// where that is more exact): monotonic in d, clamped into the grid.
fn cellOfOffset(d: vec3f, level: u32) -> vec3u {
  let c = floor(d * grid.levels[level].invCellSize);
  return vec3u(clamp(c, vec3f(0.0), vec3f(grid.levels[level].dims - 1u)));
}

// Can a query box [lo, hi] hold a centre of this level? (Its cells would clamp a box outside
// the level's bounds into edge cells that hold no partner of it.)
fn levelTouches(level: u32, lo: vec3f, hi: vec3f) -> bool {
  return all(hi >= grid.levels[level].lower) && all(lo <= grid.levels[level].upper);
}

${hashRowFunction}

// The bucket of cell (0, y, z) of a level; cell (x, y, z) is at (rowKey + x) & bucketMask.
fn rowKey(level: u32, y: u32, z: u32) -> u32 {
  ${
    dense === undefined
      ? `if (grid.dense != 0u) {
    return denseRowKey(level, y, z);
  }
  return hashRow(level, y, z);`
      : dense
        ? 'return denseRowKey(level, y, z);'
        : 'return hashRow(level, y, z);'
  }
}

fn denseRowKey(level: u32, y: u32, z: u32) -> u32 {
  let dims = grid.levels[level].dims;
  return grid.levels[level].keyBase + dims.x * (y + dims.y * z);
}

fn bucketOf(level: u32, cell: vec3u) -> u32 {
  return (rowKey(level, cell.y, cell.z) + cell.x) & grid.bucketMask;
}
`;
