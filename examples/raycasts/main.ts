/**
 * Raycast batches: a field of spheres, and every frame a batch of rays fanned out from a scanner
 * that circles it (100,000 rays over 20,000 spheres on a GPU; 2,000 over 1,000 on a software
 * adapter). `collider.encodeRaycast` records the nearest hit of each ray into a GPU buffer, and
 * three.js draws a bright dot at each hit point straight from that buffer: nothing is read back.
 * The status line shows the rays cast per second (whole frames: the rays' upload, the casts and
 * the drawing).
 *
 *   npx vite examples/raycasts          (?n=N spheres; 5 rays a sphere, 2 on a software adapter)
 */
import * as THREE from 'three/webgpu';
import { instanceIndex, positionLocal, select, vec3 } from 'three/tsl';
import { createCollider } from '../../src/index.js';
import { createStage, fpsMeter, gpuVec4s, sphereField, sphereMesh, storageBuffer } from '../common/stage.js';

const stage = await createStage({ counts: { gpu: 20_000, software: 1_000 }, what: 'spheres' });
const { device, n, renderer, scene, camera, controls } = stage;
const rayCount = (stage.software ? 2 : 5) * n; // rays a frame

// The field: n spheres of radius 0.3–0.7 in a cube, about 1 in 12 of its volume taken.
const side = 2.6 * Math.cbrt(n);
const { buffer: sphereBuffer, scene: field3 } = sphereField(device, n, side, [0.3, 0.7]);

// The rays: (A, 0), (B, 0), 8 floats each, written every frame.
const rays = new Float32Array(8 * rayCount);
const rayBuffer = storageBuffer(device, 'rays', rays);
const reach = 3 * side; // every ray ends beyond the field

/** A fan of rays from a scanner on a circle around the field at time t, aimed at random points of the field. */
function fanRays(t: number): void {
  const a = [1.2 * side * Math.cos(0.3 * t), 0.4 * side * Math.sin(0.2 * t), 1.2 * side * Math.sin(0.3 * t)];
  for (let k = 0; k < rayCount; k++) {
    const target = [(Math.random() - 0.5) * side, (Math.random() - 0.5) * side, (Math.random() - 0.5) * side];
    const d = [target[0] - a[0], target[1] - a[1], target[2] - a[2]];
    const s = reach / Math.hypot(d[0], d[1], d[2]);
    rays.set([a[0], a[1], a[2], 0, a[0] + d[0] * s, a[1] + d[1] * s, a[2] + d[2] * s, 0], 8 * k);
  }
  device.queue.writeBuffer(rayBuffer, 0, rays);
}

const collider = await createCollider({ device });
const cast = (into?: ReturnType<typeof collider.encodeRaycast>) => {
  const encoder = device.createCommandEncoder();
  const result = collider.encodeRaycast(
    encoder,
    { buffer: rayBuffer, count: rayCount },
    { buffer: sphereBuffer, count: n },
    { scene: field3, maxLength: reach, into },
  );
  device.queue.submit([encoder.finish()]);
  return result;
};
fanRays(0);
const hits = cast(); // the hit records' buffer exists from the first cast on, and keeps its size

// The spheres, dim; a dot at each hit point: CastHitRecord is (point, distance), (contact, index),
// two vec4 a ray; a miss has distance NaN, and every comparison with NaN is false.
const field = sphereMesh(stage, gpuVec4s(stage, sphereBuffer, n), n);
(field.material as THREE.MeshStandardNodeMaterial).opacity = 0.35;
(field.material as THREE.MeshStandardNodeMaterial).transparent = true;
scene.add(field);
const records = gpuVec4s(stage, hits.hits, 2 * rayCount);
const hit = records.element(instanceIndex.mul(2));
const dotMaterial = new THREE.MeshBasicNodeMaterial({ color: 0xffd166 });
const dotSize = 0.12;
dotMaterial.positionNode = positionLocal.mul(select(hit.w.lessThan(1e30), dotSize, 0)).add(vec3(hit.x, hit.y, hit.z));
const dots = new THREE.Mesh(new THREE.IcosahedronGeometry(1, 0), dotMaterial);
dots.count = rayCount;
dots.frustumCulled = false;
scene.add(dots);

camera.position.set(0, 0.5 * side, 1.8 * side);
camera.far = 20 * side;
camera.updateProjectionMatrix();
controls.target.set(0, 0, 0);
controls.update();

const hooks = { frames: 0, rays: rayCount, spheres: n, software: stage.software };
(window as unknown as { __raycasts: typeof hooks }).__raycasts = hooks;
const fps = fpsMeter();
const start = performance.now();
renderer.setAnimationLoop(() => {
  fanRays((performance.now() - start) / 1000);
  cast(hits);
  renderer.render(scene, camera);
  hooks.frames++;
  const f = fps();
  stage.status(
    `${rayCount.toLocaleString('en')} rays a frame against ${n.toLocaleString('en')} spheres · ${f.toFixed(0)} fps · ${((f * rayCount) / 1e6).toFixed(2)} M rays/s (whole frames)\n${stage.sizeText}\nthe hits are drawn from the GPU buffer encodeRaycast writes: nothing is read back`,
  );
});
