/**
 * Walking the built grid (src/spatial/plan.ts, shaders/spatial/grid.wgsl.ts) to visit the spheres of a
 * range of cells. These generate WGSL statements, inlined into each kernel with its own visit
 * body: the walks are the hot loops, and on SwiftShader a function call per row or per
 * candidate costs more than the work inside it.
 *
 * Each walk binds, for its visit body:
 *   q: vec4f   the candidate sphere (x, y, z, r), in bucket order
 *   u: u32     its position in bucket order (sortedId[u] is its index in the input)
 * and expects `cellStart`, `sorted` (and whatever the body reads) to be bound, and the grid
 * functions of shaders/spatial/grid.wgsl.ts to be in scope.
 */
import { forLoop } from '../common.wgsl.js';

/**
 * Is candidate q in cell row (y, z) of a level, with x in [x0, x1]? (Hashed grids only.) The
 * level's values come in a LevelFilter read once per walk: read per candidate, with the level a
 * lane's own value, they would be a gather from the uniform each time on a CPU driver such as
 * SwiftShader, and `sphereLevel`'s division with them (measured: docs/PERFORMANCE.md).
 */
export const inRowFunction = /* wgsl */ `
struct LevelFilter {
  origin: vec3f,
  invCellSize: f32,
  lastCell: vec3f,
  log2Range: vec2i,
}

fn levelFilter(level: u32) -> LevelFilter {
  let l = grid.levels[level];
  return LevelFilter(l.origin, l.invCellSize, vec3f(l.dims - 1u), l.log2Range);
}

// inLevel and cellOf (shaders/spatial/grid.wgsl.ts), from the filter's values; the cell range [lo, hi]
// in floats (exact: cells per axis are at most 2^24), saving a conversion per candidate.
fn inRow(q: vec4f, f: LevelFilter, lo: vec3f, hi: vec3f) -> bool {
  let c = ceilLog2(q.w);
  let cell = clamp(floor((q.xyz - f.origin) * f.invCellSize), vec3f(0.0), f.lastCell);
  return (c >= f.log2Range.x) & (c <= f.log2Range.y) & all(cell >= lo) & all(cell <= hi);
}
`;

export interface RowWalk {
  /** The grid's layout: dense (one bucket per cell) or hashed (needs inRowFunction). */
  dense: boolean;
  /** WGSL expressions: the level (u32) and the cell range [lo, hi] (vec3u, inclusive). */
  level: string;
  lo: string;
  hi: string;
  /**
   * Dense grids only: a cell (vec3u) in the range whose rows before it are skipped (rows are in
   * bucket order, z then y). Default: lo (no skip).
   */
  head?: string;
  /** Skip spheres before this position in bucket order (u32 expression). Default: none. */
  first?: string;
  /** The statements run for each candidate. */
  visit: string;
  /**
   * When the range's rows outnumber the level's spheres (a box or ray much larger than the
   * cells: a huge box over a fine level), visit the level's spheres directly, filtered by cell,
   * instead of walking rows that are almost all empty. Queries whose range can be large (boxes,
   * casts) set this; sphere–sphere ranges are at most 3 cells wide.
   */
  levelScan?: boolean;
  /**
   * Dense grids only: walk the rows and their candidates in one loop (each pass of it either
   * visits a candidate or moves to the next row) instead of a loop over rows around a loop over
   * candidates. On SwiftShader's 4-lane groups a nested loop waits at every row for the lane
   * with the most candidates in it; one loop waits only for the lane with the most rows plus
   * candidates. The pair walk is faster so; the casts' walk and the particle search narrow their
   * rows (rowClip) and so stay nested (the search was flat and eager, a sixth slower than
   * nested and narrowed on issue 47's pour); box pairs gain nothing clear (measured on
   * SwiftShader: docs/PERFORMANCE.md).
   */
  flat?: boolean;
  /**
   * With `flat`: a pass that visits a row's last candidate also moves to the next row, so a row
   * with k candidates takes k passes, not k + 1 (an empty row still takes one). SwiftShader runs
   * both arms of every `if` under a lane mask, so such a pass costs no more than another, and
   * the passes saved are a large part of a short walk (the pair walk on the uniform scene: 5
   * rows and 2.5 candidates a sphere, 2 of the rows with candidates; the particle search's
   * count and fill). Box pairs gain nothing from flat and eager walks and keep their nested loop.
   */
  eagerRowMove?: boolean;
  /**
   * Statements run as each row starts, given `rowY` and `rowZ` (u32), that declare
   * `let rowX: vec2u`: the row's cells along x that can hold a candidate, inclusive, within
   * [lo.x, hi.x] after clamping (none when rowX.x > rowX.y). A cast's walk narrows each row to
   * the cells its tube reaches from that row, up to its best hit so far: the range's box is the
   * whole slab's, and most of its rows' cells lie beyond what the cast can still reach; the
   * particle search's, to the cells of the ball its partners lie in (a range's corners). Nested
   * walks only (not `flat`, `first` or `head`): in the flat loop every pass that visits a
   * candidate also runs, under SwiftShader's lane mask, the next row's set-up, and the clip makes
   * that set-up cost more than the candidates it saves.
   */
  rowClip?: string;
}

/** The names a walk binds for its visit body (this module's header); what else it declares is its own. */
const VISIT_NAMES = new Set(['q', 'u']);
const VISIT_PLACEHOLDER = '/*visit*/';

/**
 * `generate` run with the visit body, once the body is checked to name nothing the walk declares
 * but q and u: WGSL lets the walk's declarations shadow the kernel's, so a kernel's `end` read in
 * the body would silently be the walk's row end (the box kernel's end of the pair list once
 * appended to ends[cellStart[…]]). Throws, with the name, when it does.
 */
function checkedWalk<W extends { visit: string }>(generate: (walk: W) => string, walk: W): string {
  const code = generate({ ...walk, visit: VISIT_PLACEHOLDER });
  // A name, not a member (a vector's .y).
  for (const [, name] of code.matchAll(/\b(?:let|var)\s+(\w+)/g)) {
    if (!VISIT_NAMES.has(name) && new RegExp(`(?<![.\\w])${name}\\b`).test(walk.visit)) {
      throw new Error(
        `walk: the visit body names \`${name}\`, which the walk declares and would shadow there; give the kernel's value another name`,
      );
    }
  }
  return code.replaceAll(VISIT_PLACEHOLDER, () => walk.visit);
}

/** Visits the spheres of `level` (all of them, or those whose cell is in [lo, hi] with `box`). */
export function visitLevel(scan: {
  dense: boolean;
  level: string;
  lo?: string;
  hi?: string;
  visit: string;
  box?: boolean;
}): string {
  return checkedWalk(levelVisit, scan);
}

function levelVisit({
  dense,
  level,
  lo,
  hi,
  visit,
  box = true,
}: {
  dense: boolean;
  level: string;
  lo?: string;
  hi?: string;
  visit: string;
  box?: boolean;
}): string {
  const inBox = box
    ? `let cellAt = cellOf(q.xyz, scanLevel);
          if (all(cellAt >= ${lo}) && all(cellAt <= ${hi})) {
            ${visit}
          }`
    : visit;
  if (dense) {
    return /* wgsl */ `{
    let scanLevel = ${level};
    let scanDims = grid.levels[scanLevel].dims;
    let scanFirst = grid.levels[scanLevel].keyBase;
    let scanEnd = cellStart[scanFirst + scanDims.x * scanDims.y * scanDims.z];
    ${forLoop(
      'var u = cellStart[scanFirst]',
      'u < scanEnd',
      'u++',
      `let q = sorted[u];
      ${inBox}`,
    )}
  }`;
  }
  return /* wgsl */ `{
    let scanLevel = ${level};
    ${forLoop(
      'var u = 0u',
      'u < grid.sphereCount',
      'u++',
      `let q = sorted[u];
      if (inLevel(q.w, scanLevel)) {
        ${inBox}
      }`,
    )}
  }`;
}

/**
 * Visits every sphere of `level` whose cell is in [lo, hi], a row (fixed y, z) at a time: a row's
 * cells are consecutive buckets, so a row is one range of the sorted spheres. Dense: exactly the
 * row's spheres, and the next row's bucket is this one's plus dims.x (plus dims.x·dims.y for the
 * next z). Hashed: the row's range may wrap past the last bucket (two ranges) and may hold
 * spheres of other rows or levels, which `inRow` filters out; a row as wide as the bucket array
 * covers every bucket once.
 */
export function walkRows(walk: RowWalk): string {
  return checkedWalk(rowsOrScan, walk);
}

function rowsOrScan(walk: RowWalk): string {
  if (!walk.levelScan) return rowWalk(walk);
  return /* wgsl */ `{
    let rangeLevel = ${walk.level};
    let rangeLo = ${walk.lo};
    let rangeHi = ${walk.hi};
    if (f32(rangeHi.y - rangeLo.y + 1u) * f32(rangeHi.z - rangeLo.z + 1u) > f32(grid.levels[rangeLevel].count)) {
      ${levelVisit({ dense: walk.dense, level: 'rangeLevel', lo: 'rangeLo', hi: 'rangeHi', visit: walk.visit })}
    } else {
      ${rowWalk({ ...walk, level: 'rangeLevel', lo: 'rangeLo', hi: 'rangeHi' })}
    }
  }`;
}

/** The dense row walks' common start: the level, the range, the first row's cell, the level's dims, the row width. */
function denseWalkStart(level: string, lo: string, hi: string, from: string): string {
  return /* wgsl */ `let walkLevel = ${level};
    let walkLo = ${lo};
    let walkHi = ${hi};
    let walkFrom = ${from};
    let walkDims = grid.levels[walkLevel].dims;
    let walkWidth = walkHi.x - walkLo.x + 1u;`;
}

/** A row's narrowed cells along x (RowWalk.rowClip), clamped to the walk's: rowLoX, rowHiX (empty when rowLoX > rowHiX). */
const clippedRow = (rowClip: string, y: string, z: string): string => `let rowY = ${y};
        let rowZ = ${z};
        ${rowClip}
        let rowLoX = max(rowX.x, walkLo.x);
        let rowHiX = min(rowX.y, walkHi.x);`;

function rowWalk({ dense, level, lo, hi, head, first, visit, flat, eagerRowMove, rowClip }: RowWalk): string {
  if (rowClip && (first || head || flat))
    throw new Error("walkRows: rowClip narrows the nested walk's whole rows (no first, head or flat)");
  const skip = first ? `max(cellStart[k0], ${first})` : 'cellStart[k0]';
  if (dense && flat) {
    const from = head ?? lo;
    const skipAt = first ? `max(cellStart[walkKey], ${first})` : 'cellStart[walkKey]';
    return /* wgsl */ `{
    ${denseWalkStart(level, lo, hi, from)}
    var walkPlane = rowKey(walkLevel, walkLo.y, walkFrom.z) + walkLo.x;
    var walkY = walkFrom.y;
    var walkZ = walkFrom.z;
    var walkKey = walkPlane + (walkY - walkLo.y) * walkDims.x;
    var walkAt = ${skipAt};
    var walkEnd = cellStart[walkKey + walkWidth];
    loop {
      if (walkAt < walkEnd) {
        let u = walkAt;
        walkAt += 1u;
        let q = sorted[u];
        ${visit}
      }${
        eagerRowMove
          ? `
      if (walkAt >= walkEnd) {`
          : ` else {`
      }
        walkY += 1u;
        walkKey += walkDims.x;
        if (walkY > walkHi.y) {
          walkY = walkLo.y;
          walkZ += 1u;
          if (walkZ > walkHi.z) {
            break;
          }
          walkPlane += walkDims.x * walkDims.y;
          walkKey = walkPlane;
        }
        walkAt = ${skipAt};
        walkEnd = cellStart[walkKey + walkWidth];
      }
    }
  }`;
  }
  if (dense) {
    const from = head ?? lo;
    return /* wgsl */ `{
    ${denseWalkStart(level, lo, hi, from)}
    var plane = rowKey(walkLevel, walkLo.y, walkFrom.z) + walkLo.x;
    ${forLoop(
      'var z = walkFrom.z',
      'z <= walkHi.z',
      'z++',
      `let y0 = select(walkLo.y, walkFrom.y, z == walkFrom.z);
      var k0 = plane + (y0 - walkLo.y) * walkDims.x;
      ${forLoop(
        'var y = y0',
        'y <= walkHi.y',
        'y++',
        `${
          rowClip
            ? `${clippedRow(rowClip, 'y', 'z')}
        let begin = cellStart[k0 + rowLoX - walkLo.x];
        let end = cellStart[k0 + max(rowHiX + 1u, rowLoX) - walkLo.x];`
            : `let begin = ${skip};
        let end = cellStart[k0 + walkWidth];`
        }
        ${forLoop(
          'var u = begin',
          'u < end',
          'u++',
          `let q = sorted[u];
          ${visit}`,
        )}
        k0 += walkDims.x;`,
      )}
      plane += walkDims.x * walkDims.y;`,
    )}
  }`;
  }
  return /* wgsl */ `{
    let walkLevel = ${level};
    let walkLo = ${lo};
    let walkHi = ${hi};
    let walkWidth = walkHi.x - walkLo.x + 1u;
    let bucketCount = grid.bucketMask + 1u;
    let walkFilter = levelFilter(walkLevel);
    ${forLoop(
      'var z = walkLo.z',
      'z <= walkHi.z',
      'z++',
      forLoop(
        'var y = walkLo.y',
        'y <= walkHi.y',
        'y++',
        `
        ${
          rowClip
            ? `${clippedRow(rowClip, 'y', 'z')}
        if (rowLoX > rowHiX) {
          continue;
        }
        let rowWidth = rowHiX - rowLoX + 1u;`
            : `let rowLoX = walkLo.x;
        let rowHiX = walkHi.x;
        let rowWidth = walkWidth;`
        }
        // The row's buckets: [k0, k1), and [0, wrapEnd) when it wraps past the last bucket.
        let rowLo = vec3f(f32(rowLoX), f32(y), f32(z));
        let rowHi = vec3f(f32(rowHiX), f32(y), f32(z));
        var k0 = 0u;
        var k1 = bucketCount;
        var wrapEnd = 0u;
        if (rowWidth < bucketCount) {
          k0 = (rowKey(walkLevel, y, z) + rowLoX) & grid.bucketMask;
          k1 = k0 + rowWidth;
          if (k1 > bucketCount) {
            wrapEnd = k1 - bucketCount;
            k1 = bucketCount;
          }
        }
        loop {
          let end = cellStart[k1];
          ${forLoop(
            `var u = ${skip}`,
            'u < end',
            'u++',
            `let q = sorted[u];
            if (inRow(q, walkFilter, rowLo, rowHi)) {
              ${visit}
            }`,
          )}
          if (wrapEnd == 0u) {
            break;
          }
          k0 = 0u;
          k1 = wrapEnd;
          wrapEnd = 0u;
        }`,
      ),
    )}
  }`;
}
