/**
 * The grid's cast kernels: each cast walks the spheres of a built grid in slabs along the ray.
 * The frame, the hit test and the modes are shaders/casts.wgsl.ts's.
 *
 * The grid walk, per level: cells are cubes of side s and hold spheres of radius ≤ maxRadius;
 * with h = maxRadius + cast radius (+ slack for rounding), a sphere centred in cell c can only
 * touch the ray where the ray is within h of c. Along the ray's dominant axis the grid is a
 * stack of slabs (one cell thick, SLAB_X along x); a slab is visited over the stretch of the ray
 * whose dominant coordinate lies in [slab start − h, slab end + h], and of that slab only the
 * cells within h of that stretch. Every cell belongs to one slab, so no sphere is tested twice. Slabs come in ray
 * order, and a hit from slab k lies at t ≥ the stretch's entry, so the walk stops at the first
 * slab that starts beyond the best hit so far (nearest mode) or beyond B.
 */
import { castKernel, onCandidate, castStop, CAST_INPUT, CAST_OUTPUT, type CastWalk } from '../../../shaders/casts.wgsl.js';
import { gridHelpers, compiledFor, gridLayoutName, GRID_PARAMS, GRID_READ, type GridLayout } from '../../../shaders/grid.wgsl.js';
import { walkRows, visitLevel, inRowFunction } from '../../../shaders/gridWalk.wgsl.js';
import { levelLoop } from '../../../shaders/common.wgsl.js';
import { bindings, type BindingNames } from '../../gpu/kernel.js';
import type { CastMode } from '../../queryKinds.js';
import type { CastKernel } from '../../passes/casts.js';

/** The grid's uniform first, then its buckets. */
export const castGridBindings = bindings({ ...GRID_PARAMS, ...CAST_INPUT, ...GRID_READ, ...CAST_OUTPUT });

export const castGridWalk = (mode: CastMode, { dense }: GridLayout): CastWalk => {
  const tStop = castStop(mode);
  return {
    bindings: castGridBindings,
    helpers: gridHelpers(dense),
    lateHelpers: dense ? undefined : inRowFunction,
    walk: `  if (moving) {
    // Walk along the dominant axis of the ray.
    let an = abs(n);
    let axis = select(select(2u, 1u, an.y >= an.z), 0u, an.x >= an.y && an.x >= an.z);
    let na = n[axis];
    let dir = select(-1, 1, na > 0.0);
    ${levelLoop('level', 'grid.firstLevel', `
      let cellSize = grid.levels[level].cellSize;
      let lastSlab = i32(grid.levels[level].dims[axis]) - 1;
      let h = (grid.levels[level].maxRadius + r1) * EXT_SCALE + params.slack;
      let tEnd = ${tStop};
      let rayEnd = a + n * tEnd;
      if (!levelTouches(level, min(a, rayEnd) - vec3f(h), max(a, rayEnd) + vec3f(h))) {
        continue;
      }
      // From the slab whose reach covers A to the one whose reach covers the end. Along x, a
      // slab is SLAB_X cells thick: the buckets of a row are consecutive in x, so a thick slab
      // costs the rows of a thin one (along y or z every row already spans the walk's x range).
      let thickness = select(1, SLAB_X, axis == 0u);
      let slabFirst = i32(cellOf(a - vec3f(f32(dir) * h), level)[axis]);
      let slabLast = i32(cellOf(a + n * tEnd + vec3f(f32(dir) * h), level)[axis]);
      // A ray much longer than the level's cells (more slabs than spheres in the level): test
      // the level's spheres directly instead of walking slabs that are almost all empty.
      if (f32(abs(slabLast - slabFirst) / thickness + 1) > f32(grid.levels[level].count)) {
        ${visitLevel({ dense, level: 'level', box: false, visit: onCandidate(mode, 'sortedId[u]') })}
        continue;
      }
      var slab = slabFirst;
      loop {
        // Cells [slabLo, slabHi] along the axis, and the stretch of the ray their spheres can touch.
        let slabLo = select(max(slab - thickness + 1, 0), slab, dir > 0);
        let slabHi = select(slab, min(slab + thickness - 1, lastSlab), dir > 0);
        let x0 = select(grid.levels[level].origin[axis] + f32(slabLo) * cellSize - h, -FAR, slabLo == 0);
        let x1 = select(grid.levels[level].origin[axis] + f32(slabHi + 1) * cellSize + h, FAR, slabHi == lastSlab);
        var tIn = (select(x1, x0, dir > 0) - a[axis]) / na;
        var tOut = (select(x0, x1, dir > 0) - a[axis]) / na;
        let tStop = ${tStop};
        tIn = max(tIn, 0.0);
        if (tIn > tStop) {
          break; // this slab, and every later one, starts beyond what can still count
        }
        tOut = min(tOut, tStop);
        if (tIn <= tOut) {
          let p0 = a + n * tIn;
          let p1 = a + n * tOut;
          var lo = cellOf(min(p0, p1) - vec3f(h), level);
          var hi = cellOf(max(p0, p1) + vec3f(h), level);
          lo[axis] = u32(slabLo);
          hi[axis] = u32(slabHi);
          ${walkRows({ dense, level: 'level', lo: 'lo', hi: 'hi', levelScan: true, flat: true, visit: onCandidate(mode, 'sortedId[u]') })}
        }
        if (slabLast >= slabLo && slabLast <= slabHi) {
          break;
        }
        slab += dir * thickness;
      }`)}
  }`,
  };
};

export const castGridShader = ({ mode, ...layout }: { mode: CastMode } & GridLayout): string => compiledFor(castKernel(mode, castGridWalk(mode, layout)), layout);

/** The kernel for CastPass, for one grid layout: stage `cast grid <mode>`. */
export const castGridKernel = (layout: GridLayout): CastKernel<BindingNames<typeof castGridBindings>> => ({
  name: 'grid',
  variant: gridLayoutName(layout),
  bindings: castGridBindings,
  shader: (mode) => castGridShader({ mode, ...layout }),
});
