/**
 * The grid's cast kernels: each cast walks the spheres of a built grid in slabs along the ray.
 * The frame, the hit test and the modes are shaders/passes/casts.wgsl.ts's.
 *
 * The grid walk, per level: cells are cubes of side s and hold spheres of radius ≤ maxRadius;
 * with h = maxRadius + cast radius (+ slack for rounding), a sphere centred in cell c can only
 * touch the ray where the ray is within h of c. Along the ray's dominant axis the grid is a
 * stack of slabs (one cell thick, SLAB_X along x); a slab is visited over the stretch of the ray
 * whose dominant coordinate lies in [slab start − h, slab end + h], and of that slab only the
 * cells within h of that stretch; each of the slab's rows narrowed to the cells within h of the
 * stretch where the cast is within h of that row, up to the best hit so far (rowClip). Every
 * cell belongs to one slab, so no sphere is tested twice. Slabs come in ray order, and a hit from
 * slab k lies at t ≥ the stretch's entry, so the walk stops at the first slab that starts beyond
 * the best hit so far (nearest mode) or beyond B. Levels are walked coarsest first, so that a
 * large sphere's hit bounds the walk through the fine levels' many cells.
 *
 * Each level is walked in its own frame (A less the level's origin), with a slack of 2^-20 of
 * that offset, the cast's length and the reaches (gridWalkSlack, src/spatial/reach.ts), computed per cast
 * and level: far from the world's origin the walk's roundings are ulps of the level's extent, not
 * of |A|. And only over the stretch of the cast within twice the reach of the level's bounds: a
 * cast that runs beside the spheres' bounds (a plane, a line) before it meets them walks none of
 * the slabs it passes outside them. The CPU twin is gridCasts (src/reference/gridQueries.ts).
 */
import {
  castKernel,
  onCandidate,
  castStop,
  CAST_INPUT,
  CAST_OUTPUT,
  type CastWalk,
  type CastKernel,
} from '../../passes/casts.wgsl.js';
import {
  gridHelpers,
  compiledFor,
  gridLayoutName,
  GRID_PARAMS,
  GRID_READ,
  type GridLayout,
} from '../../spatial/grid.wgsl.js';
import { walkRows, visitLevel, inRowFunction } from '../../spatial/walk.wgsl.js';
import { bindings, type BindingNames } from '../../../src/gpu/kernel.js';
import type { CastMode } from '../../../src/queryKinds.js';
import { GRID_WALK_SLACK } from '../../../src/spatial/reach.js';

/** The grid's uniform first, then its buckets. */
export const castGridBindings = bindings({ ...GRID_PARAMS, ...CAST_INPUT, ...GRID_READ, ...CAST_OUTPUT });

/**
 * A slab's row (rowY, rowZ) narrowed to the cells along x that its spheres can touch the cast
 * from (walkRows' rowClip): the stretch of the slab's [tIn, tOut], up to the best hit so far,
 * where the cast is within h of the row's cells in y and in z (the row's two constraints of the
 * tube; an axis the cast barely moves along constrains nothing, as in the clip to the level's
 * bounds), then the cells within h of where the cast is along x over that stretch. The slab's
 * box holds every row's cells from the slab's whole stretch: of a sphere cast's 9×9 rows across
 * a touching lattice, the rows at its edges reach a cell or two, and none reach past the best
 * hit, so the clip skips some of the rows and about half their candidates. The first and last
 * rows are open on their outer side, as the slab's edge cells are (cellOfOffset clamps every sphere
 * beyond the level's cells into them). A bound's t, y·step + base from the cast's 1/n, rounds
 * by ulps of the offsets from the level's origin, which the slack covers
 * (test/broadphase/grid/gridCastSlack.test.ts emulates it in f32).
 */
const rowClip = (tStop: string): string => `let rowYZ = vec2u(rowY, rowZ);
        let rowTa = select(vec2f(rowYZ) * rowStep + rowBaseA, rowLowEdge, rowYZ == vec2u(0u));
        let rowTb = select(vec2f(rowYZ) * rowStep + rowBaseB, rowHighEdge, rowYZ == rowLast);
        let rowT0 = max(tIn, max(min(rowTa.x, rowTb.x), min(rowTa.y, rowTb.y)));
        let rowT1 = min(min(tOut, ${tStop}), min(max(rowTa.x, rowTb.x), max(rowTa.y, rowTb.y)));
        let rowXs = vec2f(al.x) + vec2f(n.x) * vec2f(rowT0, rowT1);
        let rowCells = floor((vec2f(min(rowXs.x, rowXs.y), max(rowXs.x, rowXs.y)) + vec2f(-h, h)) * grid.levels[level].invCellSize);
        let rowX = select(vec2u(clamp(rowCells, vec2f(0.0), vec2f(f32(grid.levels[level].dims.x - 1u)))), vec2u(1u, 0u), rowT0 > rowT1);`;

/**
 * rowClip's per level and cast: a row's y and z bounds grown by h, as distances along the cast
 * (t = (bound − al) / n, as y·step + base); the first and last rows reach to ±FAR on their open
 * side, and an axis the cast barely moves along bounds nothing.
 */
const rowClipSetUp = `let rowAlong = abs(n.yz) >= vec2f(CLIP_MIN_DIRECTION);
      let rowInv = select(vec2f(0.0), vec2f(1.0) / select(vec2f(1.0), n.yz, rowAlong), rowAlong);
      let rowStep = vec2f(cellSize) * rowInv;
      let rowBaseA = select(vec2f(-FAR), (vec2f(-h) - al.yz) * rowInv, rowAlong);
      let rowBaseB = select(vec2f(FAR), (vec2f(cellSize + h) - al.yz) * rowInv, rowAlong);
      let rowForward = (n.yz > vec2f(0.0)) | !rowAlong;
      let rowLowEdge = select(vec2f(FAR), vec2f(-FAR), rowForward);
      let rowHighEdge = select(vec2f(-FAR), vec2f(FAR), rowForward);
      let rowLast = grid.levels[level].dims.yz - vec2u(1u);`;

export const castGridWalk = (mode: CastMode, { dense }: GridLayout): CastWalk => {
  const tStop = castStop(mode);
  return {
    bindings: castGridBindings,
    helpers: `${gridHelpers(dense)}
const WALK_SLACK: f32 = ${GRID_WALK_SLACK};
const CLIP_FAR: f32 = 1e30;
const CLIP_MIN_DIRECTION: f32 = ${2 ** -20};`,
    lateHelpers: dense ? undefined : inRowFunction,
    walk: `  if (moving) {
    // Walk along the dominant axis of the ray.
    let an = abs(n);
    let axis = select(select(2u, 1u, an.y >= an.z), 0u, an.x >= an.y && an.x >= an.z);
    let na = n[axis];
    let dir = select(-1, 1, na > 0.0);
    // Coarsest level first: its walk crosses few cells, and its best hit then bounds the finer
    // levels' walks (a cast past a dense blob of tiny spheres that hits a large one before it
    // does not walk the blob's cells).
    for (var levelAbove = grid.levelCount; levelAbove > 0u; levelAbove--) {
      let level = levelAbove - 1u;
      if (grid.levels[level].count == 0u) {
        continue;
      }
      // The walk in the level's frame: A's offset from the level's origin (al), so that every
      // position along the cast rounds by ulps of its offset from the origin, not of |A|; the
      // slack covers those roundings (src/spatial/reach.ts, gridWalkSlack): 2^-20 of the offset,
      // the cast's length and the reaches. At 1e6 the absolute positions' ulps (1/16) would be
      // wider than a touching lattice of radius 1/16, and every cast would walk a tube 16 cells
      // across.
      let origin = grid.levels[level].origin;
      let al = a - origin;
      let cellSize = grid.levels[level].cellSize;
      let lastSlab = i32(grid.levels[level].dims[axis]) - 1;
      let levelRadius = grid.levels[level].maxRadius;
      let farthest = max(max(abs(al.x), abs(al.y)), abs(al.z));
      let h = (levelRadius + r1) * EXT_SCALE + (farthest + len + r1 + levelRadius + cellSize) * WALK_SLACK;
      // The stretch [tLo, tHi] of the cast within reach of the level's bounds (the box of its
      // centres, in its frame), grown by twice the reach and ulps of the bounds and of A's
      // offset, so that its own rounding (t's ulps, of the bounds' distance from A over n's
      // component) never clips a sphere the walk must reach. Slabs are walked over that stretch
      // only: a cast that runs beside the level before it reaches it (into a plane of spheres
      // at a shallow angle) does not walk the rows under its whole length. An axis the cast
      // barely moves along (|n| < 2^-20) clips nothing: the bounds' check covers it.
      let lowB = grid.levels[level].lower - origin;
      let highB = grid.levels[level].upper - origin;
      let grow = vec3f(2.0 * h) + (max(abs(lowB), abs(highB)) + vec3f(farthest)) * WALK_SLACK;
      let clipLow = max(lowB - grow, vec3f(-CLIP_FAR));
      let clipHigh = min(highB + grow, vec3f(CLIP_FAR));
      let along = abs(n) >= vec3f(CLIP_MIN_DIRECTION);
      let nSafe = select(vec3f(1.0), n, along);
      let ta = (clipLow - al) / nSafe;
      let tb = (clipHigh - al) / nSafe;
      let enter = select(vec3f(-FAR), min(ta, tb), along);
      let exit = select(vec3f(FAR), max(ta, tb), along);
      let tLo = max(max(max(enter.x, enter.y), enter.z), 0.0);
      let tHi = min(min(min(exit.x, exit.y), exit.z), ${tStop});
      let startL = al + n * tLo;
      let endL = al + n * tHi;
      if (tLo > tHi || any(max(startL, endL) + vec3f(h) < lowB) || any(min(startL, endL) - vec3f(h) > highB)) {
        continue;
      }
      // From the slab whose reach covers the stretch's start to the one whose reach covers its
      // end. Along x, a slab is SLAB_X cells thick: the buckets of a row are consecutive in x, so
      // a thick slab costs the rows of a thin one (along y or z every row already spans the
      // walk's x range).
      let thickness = select(1, SLAB_X, axis == 0u);
      let slabFirst = i32(cellOfOffset(startL - vec3f(f32(dir) * h), level)[axis]);
      let slabLast = i32(cellOfOffset(endL + vec3f(f32(dir) * h), level)[axis]);
      // A ray much longer than the level's cells (more slabs than spheres in the level): test
      // the level's spheres directly instead of walking slabs that are almost all empty.
      if (f32(abs(slabLast - slabFirst) / thickness + 1) > f32(grid.levels[level].count)) {
        ${visitLevel({ dense, level: 'level', box: false, visit: onCandidate(mode, 'sortedId[u]') })}
        continue;
      }
      ${rowClipSetUp}
      var slab = slabFirst;
      loop {
        // Cells [slabLo, slabHi] along the axis, and the stretch of the ray their spheres can touch.
        let slabLo = select(max(slab - thickness + 1, 0), slab, dir > 0);
        let slabHi = select(slab, min(slab + thickness - 1, lastSlab), dir > 0);
        let x0 = select(f32(slabLo) * cellSize - h, -FAR, slabLo == 0);
        let x1 = select(f32(slabHi + 1) * cellSize + h, FAR, slabHi == lastSlab);
        var tIn = (select(x1, x0, dir > 0) - al[axis]) / na;
        var tOut = (select(x0, x1, dir > 0) - al[axis]) / na;
        let tStop = min(${tStop}, tHi);
        tIn = max(tIn, tLo);
        if (tIn > tStop) {
          break; // this slab, and every later one, starts beyond what can still count
        }
        tOut = min(tOut, tStop);
        if (tIn <= tOut) {
          let p0 = al + n * tIn;
          let p1 = al + n * tOut;
          var lo = cellOfOffset(min(p0, p1) - vec3f(h), level);
          var hi = cellOfOffset(max(p0, p1) + vec3f(h), level);
          lo[axis] = u32(slabLo);
          hi[axis] = u32(slabHi);
          ${walkRows({ dense, level: 'level', lo: 'lo', hi: 'hi', levelScan: true, rowClip: rowClip(tStop), visit: onCandidate(mode, 'sortedId[u]') })}
        }
        if (slabLast >= slabLo && slabLast <= slabHi) {
          break;
        }
        slab += dir * thickness;
      }
    }
  }`,
  };
};

export const castGridShader = ({ mode, ...layout }: { mode: CastMode } & GridLayout): string =>
  compiledFor(castKernel(mode, castGridWalk(mode, layout)), layout);

/** The kernel for CastPass, for one grid layout: stage `cast grid <mode>`. */
export const castGridKernel = (layout: GridLayout): CastKernel<BindingNames<typeof castGridBindings>> => ({
  name: 'grid',
  variant: gridLayoutName(layout),
  bindings: castGridBindings,
  shader: (mode) => castGridShader({ mode, ...layout }),
});
