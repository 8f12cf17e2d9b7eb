/**
 * Rapier (the Rust physics engine's official JS/WASM build) as a peer, doing the same work the
 * way a Rapier user would:
 * - sphere pairs: every sphere a ball collider, a sensor on a kinematic body (Rapier computes no
 *   intersections between fixed colliders), one `world.step()` (broad phase + narrow phase),
 *   then the intersection pairs;
 * - raycasts: every sphere a fixed ball collider, then `world.castRay` per ray.
 * World construction is timed separately from the query.
 */
import RAPIER from '@dimforge/rapier3d-compat';

let ready: Promise<void> | null = null;
export function initRapier(): Promise<void> {
  ready ??= RAPIER.init();
  return ready;
}

export const rapierVersion = (): string => RAPIER.version();

export interface Timed<T> {
  result: T;
  setupMs: number;
  queryMs: number;
}

export function rapierSpherePairs(spheres: Float32Array): Timed<Uint32Array> {
  const n = spheres.length / 4;
  const t0 = performance.now();
  const world = new RAPIER.World({ x: 0, y: 0, z: 0 });
  const colliders: RAPIER.Collider[] = [];
  for (let i = 0; i < n; i++) {
    const body = world.createRigidBody(
      RAPIER.RigidBodyDesc.kinematicPositionBased().setTranslation(
        spheres[4 * i],
        spheres[4 * i + 1],
        spheres[4 * i + 2],
      ),
    );
    colliders.push(
      world.createCollider(
        RAPIER.ColliderDesc.ball(spheres[4 * i + 3])
          .setSensor(true)
          .setActiveCollisionTypes(RAPIER.ActiveCollisionTypes.ALL),
        body,
      ),
    );
  }
  const index = new Map<number, number>(colliders.map((c, i) => [c.handle, i]));
  const t1 = performance.now();
  world.step();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    world.intersectionPairsWith(colliders[i], (other) => {
      const j = index.get(other.handle)!;
      if (j > i) out.push(i, j);
    });
  }
  const t2 = performance.now();
  world.free();
  return { result: Uint32Array.from(out), setupMs: t1 - t0, queryMs: t2 - t1 };
}

export function rapierRaycast(
  rays: Float32Array,
  spheres: Float32Array,
): Timed<{ index: Int32Array; distance: Float32Array }> {
  const n = spheres.length / 4;
  const t0 = performance.now();
  const world = new RAPIER.World({ x: 0, y: 0, z: 0 });
  const handles = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const c = world.createCollider(
      RAPIER.ColliderDesc.ball(spheres[4 * i + 3]).setTranslation(
        spheres[4 * i],
        spheres[4 * i + 1],
        spheres[4 * i + 2],
      ),
    );
    handles.set(c.handle, i);
  }
  world.step(); // builds the broad phase that castRay walks (fixed colliders make no contacts)
  const t1 = performance.now();
  const count = rays.length / 6;
  const index = new Int32Array(count).fill(-1);
  const distance = new Float32Array(count).fill(NaN);
  const ray = new RAPIER.Ray({ x: 0, y: 0, z: 0 }, { x: 1, y: 0, z: 0 });
  for (let k = 0; k < count; k++) {
    const o = 6 * k;
    const d = [rays[o + 3] - rays[o], rays[o + 4] - rays[o + 1], rays[o + 5] - rays[o + 2]];
    const length = Math.hypot(d[0], d[1], d[2]);
    if (length === 0) continue;
    ray.origin = { x: rays[o], y: rays[o + 1], z: rays[o + 2] };
    ray.dir = { x: d[0] / length, y: d[1] / length, z: d[2] / length };
    const hit = world.castRay(ray, length, true);
    if (hit) {
      index[k] = handles.get(hit.collider.handle)!;
      distance[k] = hit.timeOfImpact;
    }
  }
  const t2 = performance.now();
  world.free();
  return { result: { index, distance }, setupMs: t1 - t0, queryMs: t2 - t1 };
}
