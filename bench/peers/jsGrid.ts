/**
 * A single-threaded JS uniform grid, written the straightforward way a user would write it:
 * cell size = the largest diameter, a dense array of cells over the bounds, counting sort, then
 * each sphere tests the 27 cells around its own and keeps j > i. The peer to beat on a CPU.
 * (It is quadratic when radii vary widely or the bounds are sparse; that is its nature.)
 */
export function jsGridSpherePairs(spheres: Float32Array): Uint32Array {
  const n = spheres.length / 4;
  if (n < 2) return new Uint32Array(0);
  let rMax = 0;
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i], y = spheres[4 * i + 1], z = spheres[4 * i + 2];
    rMax = Math.max(rMax, spheres[4 * i + 3]);
    minX = Math.min(minX, x); minY = Math.min(minY, y); minZ = Math.min(minZ, z);
    maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); maxZ = Math.max(maxZ, z);
  }
  // Cells no smaller than the largest diameter, and no more than ~8 per sphere.
  const extent = Math.max(maxX - minX, maxY - minY, maxZ - minZ);
  const size = Math.max(2 * rMax, extent / Math.cbrt(8 * n), 1e-30);
  const dx = Math.floor((maxX - minX) / size) + 1, dy = Math.floor((maxY - minY) / size) + 1, dz = Math.floor((maxZ - minZ) / size) + 1;
  const cells = dx * dy * dz;
  const start = new Uint32Array(cells + 1);
  const cellOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const c = Math.floor((spheres[4 * i] - minX) / size) + dx * (Math.floor((spheres[4 * i + 1] - minY) / size) + dy * Math.floor((spheres[4 * i + 2] - minZ) / size));
    cellOf[i] = c;
    start[c + 1]++;
  }
  for (let c = 0; c < cells; c++) start[c + 1] += start[c];
  const fill = start.slice(0, cells);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[cellOf[i]]++] = i;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i], y = spheres[4 * i + 1], z = spheres[4 * i + 2], r = spheres[4 * i + 3];
    const cx = Math.floor((x - minX) / size), cy = Math.floor((y - minY) / size), cz = Math.floor((z - minZ) / size);
    for (let zz = Math.max(cz - 1, 0); zz <= Math.min(cz + 1, dz - 1); zz++) {
      for (let yy = Math.max(cy - 1, 0); yy <= Math.min(cy + 1, dy - 1); yy++) {
        for (let xx = Math.max(cx - 1, 0); xx <= Math.min(cx + 1, dx - 1); xx++) {
          const c = xx + dx * (yy + dy * zz);
          for (let k = start[c]; k < start[c + 1]; k++) {
            const j = order[k];
            if (j <= i) continue;
            const ex = spheres[4 * j] - x, ey = spheres[4 * j + 1] - y, ez = spheres[4 * j + 2] - z, s = r + spheres[4 * j + 3];
            if (ex * ex + ey * ey + ez * ez <= s * s) out.push(i, j);
          }
        }
      }
    }
  }
  return Uint32Array.from(out);
}
