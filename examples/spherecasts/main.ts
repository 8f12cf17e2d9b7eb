/**
 * Sphere casts: spheres of radius 0.6 swept along straight paths through a field of spheres;
 * `collider.encodeSphereCast` records each cast's first contact into a GPU buffer: C, where the
 * swept sphere's centre is at that moment (drawn as the swept sphere, orange), and E, the point
 * where it touches (a red dot). three.js draws both straight from that buffer; the paths are
 * lines (2,000 casts over 5,000 spheres on a GPU, 60 over 500 on a software adapter; they turn
 * slowly with time).
 *
 *   npx vite examples/spherecasts          (?n=N spheres)
 */
import * as THREE from 'three/webgpu';
import { instanceIndex, positionLocal, select, vec3 } from 'three/tsl';
import { createCollider } from '../../src/index.js';
import { createStage, fpsMeter, gpuVec4s, sphereField, sphereMesh, storageBuffer } from '../common/stage.js';

const stage = await createStage({ counts: { gpu: 5_000, software: 500 }, what: 'spheres' });
const { device, n, renderer, scene, camera, controls } = stage;
const castCount = stage.software ? 60 : 2_000;
const castRadius = 0.6;

// The field: n spheres of radius 0.3–0.6 in a cube.
const side = 3.2 * Math.cbrt(n);
const { buffer: sphereBuffer, scene: bounds } = sphereField(device, n, side, [0.3, 0.6]);

// The casts: (A, radius), (B, 0), 8 floats each: from a disc on one side of the field across it,
// the disc turning about the vertical axis with time.
const casts = new Float32Array(8 * castCount);
const castBuffer = storageBuffer(device, 'casts', casts);
const offsets = Array.from({ length: castCount }, () => [(Math.random() - 0.5) * side, (Math.random() - 0.5) * side]);
const length = 2 * side;
const paths = new Float32Array(6 * castCount);
function aimCasts(t: number): void {
  const [c, s] = [Math.cos(0.1 * t), Math.sin(0.1 * t)];
  for (let k = 0; k < castCount; k++) {
    const [u, v] = offsets[k];
    // A on the disc at distance `side` from the centre, B across the field.
    const a = [side * c - u * s, v, side * s + u * c];
    const b = [a[0] - length * c, a[1], a[2] - length * s];
    casts.set([...a, castRadius, ...b, 0], 8 * k);
    paths.set([...a, ...b], 6 * k);
  }
  device.queue.writeBuffer(castBuffer, 0, casts);
}

const collider = await createCollider({ device });
const cast = (into?: ReturnType<typeof collider.encodeSphereCast>) => {
  const encoder = device.createCommandEncoder();
  const result = collider.encodeSphereCast(
    encoder,
    { buffer: castBuffer, count: castCount },
    { buffer: sphereBuffer, count: n },
    {
      scene: bounds,
      maxLength: length,
      into,
    },
  );
  device.queue.submit([encoder.finish()]);
  return result;
};
aimCasts(0);
const hits = cast();

const field = sphereMesh(stage, gpuVec4s(stage, sphereBuffer, n), n);
scene.add(field);
// CastHitRecord, two vec4 a cast: (C, distance), (E, index); a miss has distance NaN, and every
// comparison with NaN is false, so a missed cast's spheres shrink to nothing.
const records = gpuVec4s(stage, hits.hits, 2 * castCount);
const first = records.element(instanceIndex.mul(2));
const second = records.element(instanceIndex.mul(2).add(1));
const hit = first.w.lessThan(1e30);
const swept = new THREE.MeshStandardNodeMaterial({ color: 0xff8c42, transparent: true, opacity: 0.6, roughness: 0.4 });
swept.positionNode = positionLocal.mul(select(hit, castRadius, 0)).add(vec3(first.x, first.y, first.z));
const contact = new THREE.MeshBasicNodeMaterial({ color: 0xff3355, depthTest: false });
contact.positionNode = positionLocal.mul(select(hit, 0.15, 0)).add(vec3(second.x, second.y, second.z));
for (const [material, detail, order] of [
  [swept, 2, 0],
  [contact, 1, 1],
] as const) {
  const mesh = new THREE.Mesh(new THREE.IcosahedronGeometry(1, detail), material);
  mesh.count = castCount;
  mesh.frustumCulled = false;
  mesh.renderOrder = order;
  scene.add(mesh);
}
const pathGeometry = new THREE.BufferGeometry();
pathGeometry.setAttribute('position', new THREE.BufferAttribute(paths, 3));
scene.add(
  new THREE.LineSegments(
    pathGeometry,
    new THREE.LineBasicMaterial({ color: 0x8a93b8, transparent: true, opacity: 0.35 }),
  ),
);

camera.position.set(0.4 * side, 1.1 * side, 1.9 * side);
camera.far = 30 * side;
camera.updateProjectionMatrix();
controls.target.set(0, 0, 0);
controls.update();

const hooks = { frames: 0, casts: castCount, spheres: n, software: stage.software };
(window as unknown as { __spherecasts: typeof hooks }).__spherecasts = hooks;
const fps = fpsMeter();
const start = performance.now();
renderer.setAnimationLoop(() => {
  aimCasts((performance.now() - start) / 1000);
  pathGeometry.attributes.position.needsUpdate = true;
  cast(hits);
  renderer.render(scene, camera);
  hooks.frames++;
  stage.status(
    `${castCount.toLocaleString('en')} sphere casts of radius ${castRadius} through ${n.toLocaleString('en')} spheres · ${fps().toFixed(0)} fps\n${stage.sizeText}\norange: the swept sphere at its first contact (C); red: the point of contact (E); drawn from the GPU buffer encodeSphereCast writes`,
  );
});
