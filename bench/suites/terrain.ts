/**
 * The engines of the colliders suite's terrain scenes (bench/terrainScene.ts, issue 50), each
 * with its own measure of how deep the balls lie in what it collides with:
 *
 * - scene `terrain`, method 'gpu': our world with the heightfield as one static mesh
 *   (`collider.createMesh` on the world's device, then `world.setMeshes([{ mesh }])`), and beside
 *   it, interleaved in the same run, the control 'gpu-world-step flat box': the same world and
 *   balls over one flat slab at the terrain's mean height (`setColliders`);
 * - 'rapier': Rapier's world with the heightfield as one fixed `ColliderDesc.trimesh` collider
 *   (bench/peers/rapierWorld.ts), and its control 'rapier-world-step flat box' (the slab as a
 *   fixed cuboid);
 * - 'gpu-no-boxes': our world with neither (the balls fall to the world's floor);
 * - scene `terrain-flat`: the control alone ('gpu' and 'rapier' over the slab).
 *
 * The mesh rows are measured against the mesh, the flat ones against the slab's top, both by
 * `heightfieldPenetration` (the penetration columns of the colliders' quality table).
 */
import type { ParticleWorld } from '../../src/index.js';
import { createRapierPile } from '../peers/rapierWorld.js';
import type { BoxPenetration } from '../colliderScene.js';
import { heightfieldPenetration, type Heightfield, type TerrainScene } from '../terrainScene.js';
import { gpuEngine, rapierEngine, type Engine, type Physics } from './pile.js';
import type { Context } from '../harness.js';

/** An engine with the measure of its particles' penetration (null: it has nothing to collide with). */
export interface MeasuredEngine {
  /** The method as --collider-methods names it, with ' flat' for a control row. */
  method: string;
  engine: Engine;
  /** `boxes`: where the boxes are now (moving boxes); the terrain's measures ignore it. */
  measure: ((spheres: Float32Array, boxes?: Float32Array) => BoxPenetration) | null;
}

/** The terrain's physics: the pour's (issue 47's pegs). */
export const TERRAIN_PHYSICS: Physics = { gravity: [0, -9.8, 0], restitution: 0.2, friction: 0.3 };
export const FLAT_SUFFIX = ' flat box';
const DT = 1 / 60;

const measureOf =
  (hf: Heightfield) =>
  (spheres: Float32Array): BoxPenetration =>
    heightfieldPenetration(spheres, hf);

/** Our world with the terrain as a static mesh (made by the bench's Collider, on the world's device). */
async function gpuMeshEngine(ctx: Context, scene: TerrainScene, physics: Physics): Promise<Engine> {
  let mesh: ReturnType<Context['collider']['createMesh']> | undefined;
  const engine = await gpuEngine(ctx, scene, physics, (world: ParticleWorld) => {
    mesh = ctx.collider.createMesh({ positions: scene.terrain.positions, indices: scene.terrain.indices });
    try {
      world.setMeshes([{ mesh }]);
    } catch (error) {
      mesh.destroy();
      throw error;
    }
  });
  try {
    await mesh!.ready;
  } catch (error) {
    engine.free();
    mesh!.destroy();
    throw error;
  }
  return {
    ...engine,
    settings: `${engine.settings}; the terrain one static mesh (setMeshes)`,
    free: () => {
      engine.free();
      mesh?.destroy();
    },
  };
}

/** Rapier's world with the terrain as one fixed trimesh collider. */
function rapierMeshEngine(scene: TerrainScene, physics: Physics): Engine {
  const pile = createRapierPile(scene, {
    ...physics,
    dt: DT,
    trimesh: { vertices: scene.terrain.positions, indices: scene.terrain.indices },
  });
  return {
    method: 'rapier-world-step',
    setupMs: pile.setupMs,
    settings: `Rapier defaults otherwise (${pile.settings.numSolverIterations} solver iterations, sleeping on, no CCD; the terrain one fixed trimesh collider, FIX_INTERNAL_EDGES)`,
    step: async () => pile.step(),
    read: async () => pile.read(),
    free: () => pile.free(),
  };
}

/** The flat control of `method` ('gpu' or 'rapier'): the same balls over the slab. */
async function flatEngine(ctx: Context, method: string, scene: TerrainScene, physics: Physics): Promise<Engine> {
  if (method === 'rapier') return rapierEngine(scene, physics, scene.slab);
  return gpuEngine(ctx, scene, physics, (world) => world.setColliders({ boxes: scene.slab }));
}

/**
 * The engines one --collider-methods entry gives on a terrain scene (see the file's comment):
 * on `terrain`, 'gpu' and 'rapier' each give the mesh and the flat control; on `terrain-flat`,
 * the control alone.
 */
export async function terrainEngines(
  ctx: Context,
  method: string,
  scene: TerrainScene,
  physics: Physics,
  flatOnly: boolean,
): Promise<MeasuredEngine[]> {
  if (method === 'gpu-no-boxes')
    return [
      {
        method,
        engine: { ...(await gpuEngine(ctx, scene, physics)), method: 'gpu-world-step no boxes' },
        measure: null,
      },
    ];
  const flat = await flatEngine(ctx, method, scene, physics);
  const out: MeasuredEngine[] = [];
  try {
    if (!flatOnly)
      out.push({
        method,
        engine: method === 'rapier' ? rapierMeshEngine(scene, physics) : await gpuMeshEngine(ctx, scene, physics),
        measure: measureOf(scene.terrain),
      });
  } catch (error) {
    flat.free();
    throw error;
  }
  out.push({
    method: flatOnly ? method : `${method} flat`,
    engine: flatOnly ? flat : { ...flat, method: `${flat.method}${FLAT_SUFFIX}` },
    measure: measureOf(scene.flat),
  });
  return out;
}
