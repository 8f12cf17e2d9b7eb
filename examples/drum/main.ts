/**
 * Particles among box colliders: a drum of 12 planks in a ring turning about a horizontal axis
 * at 1.5 rad/s, its planks posed every frame with `world.setColliders` (poses and the rigid
 * velocities), tumbling the balls inside (20,000 on a GPU, 1,000 on a software adapter). three.js
 * draws the balls straight from the world's GPU buffer and the planks from the same poses; the
 * status line shows how deep the deepest ball lies in a plank, read back once a second.
 *
 *   npx vite examples/drum          (?n=N balls)
 */
import * as THREE from 'three/webgpu';
import { createParticleWorld } from '../../src/index.js';
import { boxMeshes, createStage, fpsMeter, gpuVec4s, placeBox, sphereMesh } from '../common/stage.js';

const stage = await createStage({ counts: { gpu: 20_000, software: 1_000 }, what: 'balls' });
const { device, n, renderer, scene, camera, controls } = stage;

// The drum: 12 planks 0.4 thick around a ring of inner radius 5, as deep as the balls need to
// fill about 40% of it (6 at least); the world's walls at z = ±depth/2 close its ends.
const PLANKS = 12;
const inner = 5;
const thick = 0.4;
const spin = 1.5; // rad/s
const depth = Math.max(6, (n * 0.04) / (0.4 * Math.PI * inner * inner));
// Each plank as long as the ring's outer side: neighbours meet with no gap at their outer corners.
const plankHalf = [thick / 2, (inner + thick) * Math.tan(Math.PI / PLANKS), depth / 2];

/** The planks' records (10 floats a box) and velocities (6 a box) at angle theta. */
function drumAt(theta: number): { boxes: Float32Array; velocities: Float32Array } {
  const boxes = new Float32Array(10 * PLANKS);
  const velocities = new Float32Array(6 * PLANKS);
  const r = inner + thick / 2;
  for (let k = 0; k < PLANKS; k++) {
    const phi = theta + (2 * Math.PI * k) / PLANKS;
    const [cx, cy] = [r * Math.cos(phi), r * Math.sin(phi)];
    boxes.set([cx, cy, 0, ...plankHalf, 0, 0, Math.sin(phi / 2), Math.cos(phi / 2)], 10 * k);
    velocities.set([-spin * cy, spin * cx, 0, 0, 0, spin], 6 * k); // ω × c, and ω about z
  }
  return { boxes, velocities };
}

// The balls: radius 0.14–0.22, on a loose lattice in the lower part of the drum.
const spheres = new Float32Array(4 * n);
let placed = 0;
for (let y = -inner + 0.5; placed < n && y < inner; y += 0.46)
  for (let x = -inner + 0.5; placed < n && x < inner; x += 0.46)
    for (let z = -depth / 2 + 0.3; placed < n && z < depth / 2 - 0.2; z += 0.46)
      if (Math.hypot(x, y) < inner - 0.5) spheres.set([x, y, z, 0.14 + 0.08 * Math.random()], 4 * placed++);

const world = await createParticleWorld({
  device,
  capacity: n,
  bounds: [-inner - 2, -inner - 2, -depth / 2, inner + 2, inner + 2, depth / 2],
  gravity: [0, -9.8, 0],
  restitution: 0.1,
  friction: 0.5,
});
world.setParticles({ spheres: spheres.subarray(0, 4 * placed), velocities: new Float32Array(3 * placed) });
world.setColliders(drumAt(0));

scene.add(sphereMesh(stage, gpuVec4s(stage, world.buffers.spheres, placed), placed));
const plankMaterial = new THREE.MeshStandardNodeMaterial({
  color: 0xa0825a,
  roughness: 0.8,
  transparent: true,
  opacity: 0.5,
  depthWrite: false,
});
const planks = boxMeshes(drumAt(0).boxes, plankMaterial);
for (const plank of planks) scene.add(plank);

camera.position.set(0.6 * inner, 0.3 * inner, 1.2 * depth + 2.5 * inner);
camera.far = 50 * inner + 10 * depth;
camera.updateProjectionMatrix();
controls.target.set(0, 0, 0);
controls.update();

/** How deep sphere s lies in plank k (turned about z only), in its radii; negative when apart. */
function depthInPlank(s: Float32Array, boxes: Float32Array, k: number): number {
  const [cx, cy, cz, hx, hy, hz, , , qz, qw] = boxes.subarray(10 * k, 10 * k + 10);
  const phi = 2 * Math.atan2(qz, qw);
  const [dx, dy, dz] = [s[0] - cx, s[1] - cy, s[2] - cz];
  const local = [dx * Math.cos(phi) + dy * Math.sin(phi), -dx * Math.sin(phi) + dy * Math.cos(phi), dz];
  const half = [hx, hy, hz];
  const outside = local.map((l, a) => Math.max(Math.abs(l) - half[a], 0));
  const distance = Math.hypot(...outside) || -Math.min(...local.map((l, a) => half[a] - Math.abs(l)));
  return (s[3] - distance) / s[3];
}

const hooks = { frames: 0, balls: placed, software: stage.software, deepest: 0 };
(window as unknown as { __drum: typeof hooks }).__drum = hooks;
const fps = fpsMeter();
const dt = 1 / 60; // the drum's planks sweep 0.125 a step at the rim; tested at this step (test/particles/colliders.test.ts)
let theta = 0;
let reading = false;
// Each frame: pose the planks, step (world.step grows the contact lists and runs a step again when
// the balls crowd into more contacts than they hold; a recorded world.encode cannot), then draw.
async function frame(): Promise<void> {
  theta += spin * dt;
  const drum = drumAt(theta);
  world.setColliders(drum);
  await world.step(dt);
  // The step moved the planks on by spin·dt (kinematic boxes move with their velocities): draw
  // them, and measure against them, where the balls see them now.
  const now = drumAt(theta + spin * dt).boxes;
  for (let k = 0; k < PLANKS; k++) placeBox(planks[k], now, k);
  renderer.render(scene, camera);
  hooks.frames++;
  // Once a second: how deep the deepest ball lies in a plank (its radius less its distance to
  // the plank, in radii), from a read of the balls after the step and the planks' poses then.
  if (hooks.frames % 30 === 0 && !reading) {
    reading = true;
    void world.read().then(({ spheres: balls }) => {
      let deepest = 0;
      for (let i = 0; i < placed; i++)
        for (let k = 0; k < PLANKS; k++)
          deepest = Math.max(deepest, depthInPlank(balls.subarray(4 * i, 4 * i + 4), now, k));
      hooks.deepest = deepest;
      reading = false;
    });
  }
  stage.status(
    `${placed.toLocaleString('en')} balls in a drum of ${PLANKS} planks turning at ${spin} rad/s · ${fps().toFixed(0)} fps\n${stage.sizeText}\nthe deepest ball in a plank: ${(100 * hooks.deepest).toFixed(1)}% of its radius (0: touching; read once a second)`,
  );
  requestAnimationFrame(() => void frame());
}
requestAnimationFrame(() => void frame());
