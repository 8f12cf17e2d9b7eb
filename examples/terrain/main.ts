/**
 * Particles on triangle meshes: balls poured onto a generated terrain (a heightfield of hills, one
 * static mesh made by `collider.createMesh`), and a mesh paddle (two crossed blades) turning about
 * the vertical at 1 rad/s through them, a kinematic mesh: both colliders of the world
 * (`world.setMeshes`), solved with the balls' own contacts. three.js draws the balls straight from
 * the world's GPU buffer, and the meshes from the same positions and poses; the status line says
 * how many balls touch the meshes (`world.meshContacts`, read once a second). 100,000 balls on a
 * 32,768-triangle terrain on a GPU, 1,000 on 2,048 triangles on a software adapter.
 *
 *   npx vite examples/terrain          (?n=N balls)
 */
import * as THREE from 'three/webgpu';
import { createCollider, createParticleWorld } from '../../src/index.js';
import { createStage, fpsMeter, gpuVec4s, sphereMesh } from '../common/stage.js';

const stage = await createStage({ counts: { gpu: 100_000, software: 1_000 }, what: 'balls' });
const { device, n, renderer, scene, camera, controls } = stage;

// The terrain: a square of side 2·half, as wide as the balls need to lie about two deep, with
// hills up to about 2.5 high; G × G quads of two triangles each.
const half = Math.max(6, Math.sqrt(n / 20) / 2 + 2);
const G = stage.software ? 32 : 128;
const heightAt = (x: number, z: number): number =>
  0.8 * Math.sin(x / 1.4) * Math.cos(z / 1.9) + 1.2 * Math.exp(-((x - 2) ** 2 + (z + 1) ** 2) / 5) + 0.8;
const positions = new Float32Array(3 * (G + 1) ** 2);
for (let i = 0; i <= G; i++)
  for (let j = 0; j <= G; j++) {
    const [x, z] = [-half + (2 * half * i) / G, -half + (2 * half * j) / G];
    positions.set([x, heightAt(x, z), z], 3 * (i * (G + 1) + j));
  }
const indices = new Uint32Array(6 * G * G);
for (let i = 0; i < G; i++)
  for (let j = 0; j < G; j++) {
    const a = i * (G + 1) + j;
    indices.set([a, a + 1, a + G + 1, a + 1, a + G + 2, a + G + 1], 6 * (i * G + j));
  }

// The paddle: two crossed vertical blades, 0.6 × half long and 1.2 high, as four triangles a blade
// (both sides are solid: a particle touches a triangle from either side).
const blade = 0.6 * half;
const paddlePositions = new Float32Array([
  ...[-blade, 0, 0, blade, 0, 0, -blade, 1.2, 0, blade, 1.2, 0],
  ...[0, 0, -blade, 0, 0, blade, 0, 1.2, -blade, 0, 1.2, blade],
]);
const paddleIndices = new Uint32Array([0, 1, 2, 1, 3, 2, 4, 5, 6, 5, 7, 6]);
const spin = 1; // rad/s about y
const paddleY = heightAt(0, 0) - 0.3;

// The meshes' BVHs are built on the GPU by a Collider on the world's device.
const collider = await createCollider({ device });
const terrain = collider.createMesh({ positions, indices });
const paddle = collider.createMesh({ positions: paddlePositions, indices: paddleIndices });

// The balls: radius 0.1–0.2, on a loose lattice above the terrain.
const spheres = new Float32Array(4 * n);
const side = Math.ceil(Math.sqrt(n / 10));
const spacing = Math.min(0.45, (2 * half - 1) / side);
for (let k = 0; k < n; k++) {
  const [a, b, c] = [k % side, Math.floor(k / side) % side, Math.floor(k / (side * side))];
  // A little jitter: an exact lattice would land as columns standing on one another.
  const jitter = () => 0.1 * (((k * 0.7548776 + c * 0.5698403) % 1) - 0.5);
  spheres.set(
    [
      -half + 0.5 + a * spacing + jitter(),
      3.5 + c * 0.45,
      -half + 0.5 + b * spacing + jitter(),
      0.1 + 0.1 * ((k * 0.618034) % 1),
    ],
    4 * k,
  );
}
const top = 3.5 + Math.ceil(n / (side * side)) * 0.45 + 1;
const world = await createParticleWorld({
  device,
  capacity: n,
  bounds: [-half, -1, -half, half, top, half],
  gravity: [0, -9.8, 0],
  restitution: 0.2,
  friction: 0.4,
});
world.setParticles({ spheres, velocities: new Float32Array(3 * n) });
/** The paddle's pose at angle theta about y (centre x, y, z; quaternion x, y, z, w). */
const paddlePose = (theta: number): number[] => [0, paddleY, 0, 0, Math.sin(theta / 2), 0, Math.cos(theta / 2)];
const setMeshes = (theta: number): void =>
  world.setMeshes([{ mesh: terrain }, { mesh: paddle, pose: paddlePose(theta), velocity: [0, 0, 0, 0, spin, 0] }]);
setMeshes(0);

// Drawing: the balls from the world's buffer, the meshes from the same triangles.
scene.add(sphereMesh(stage, gpuVec4s(stage, world.buffers.spheres, n), n));
const geometryOf = (p: Float32Array, i: Uint32Array): THREE.BufferGeometry => {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(p, 3));
  geometry.setIndex(new THREE.BufferAttribute(i, 1));
  geometry.computeVertexNormals();
  return geometry;
};
const ground = new THREE.Mesh(
  geometryOf(positions, indices),
  new THREE.MeshStandardNodeMaterial({ color: 0x6f8f5a, roughness: 0.9, side: THREE.DoubleSide, flatShading: true }),
);
scene.add(ground);
const blades = new THREE.Mesh(
  geometryOf(paddlePositions, paddleIndices),
  new THREE.MeshStandardNodeMaterial({ color: 0xc06040, roughness: 0.6, side: THREE.DoubleSide }),
);
scene.add(blades);
const placePaddle = (theta: number): void => {
  const [x, y, z, qx, qy, qz, qw] = paddlePose(theta);
  blades.position.set(x, y, z);
  blades.quaternion.set(qx, qy, qz, qw);
};

camera.position.set(1.1 * half, 0.8 * half, 1.5 * half);
camera.far = 40 * half;
camera.updateProjectionMatrix();
controls.target.set(0, 0.5, 0);
controls.update();

const hooks = { frames: 0, balls: n, software: stage.software, triangles: terrain.triangleCount, touching: -1 };
(window as unknown as { __terrain: typeof hooks }).__terrain = hooks;
const fps = fpsMeter();
const dt = 1 / 60;
let theta = 0;
let reading = false;
// Each frame: pose the paddle where it is (the world turns it through the step at its spin), step
// (world.step grows the lists and runs a step again when the balls crowd into more contacts than
// they hold), then draw it where the step left it.
async function frame(): Promise<void> {
  setMeshes(theta);
  await world.step(dt);
  theta += spin * dt;
  placePaddle(theta);
  renderer.render(scene, camera);
  hooks.frames++;
  if (hooks.frames % 30 === 0 && !reading) {
    reading = true;
    void world.meshContacts().then((contacts) => {
      hooks.touching = new Set(contacts.particles).size;
      reading = false;
    });
  }
  stage.status(
    `${n.toLocaleString('en')} balls on a terrain of ${terrain.triangleCount.toLocaleString('en')} triangles and a paddle turning at ${spin} rad/s · ${fps().toFixed(0)} fps\n${stage.sizeText}\n${hooks.touching < 0 ? 'reading the contacts…' : `${hooks.touching.toLocaleString('en')} balls touching the meshes`} (meshContacts, read once a second)`,
  );
  requestAnimationFrame(() => void frame());
}
requestAnimationFrame(() => void frame());
