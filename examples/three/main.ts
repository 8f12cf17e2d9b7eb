/**
 * webgpu-collide + three.js: a ParticleWorld steps 100k spheres on the GPU and three's
 * WebGPURenderer draws them, on one shared GPUDevice, with no readback: the instanced mesh reads
 * each sphere's centre and radius straight out of the world's storage buffer (TSL `storage`).
 * The particles pour onto a ramp of box colliders (`world.setColliders`) that tips them into a
 * bin of four more; each box is a three.js BoxGeometry mesh placed from the same pose (centre,
 * half extents, quaternion). Above the bin a torus knot (three's TorusKnotGeometry) turns slowly:
 * its triangles go to the GPU once (`collider.createMesh`, the BVH built there); it is a kinematic
 * mesh collider of the world (`world.setMeshes` with its pose and its spin), and an eighth of the
 * particles start above it and fall on it. Each query passes the knot's pose of the moment
 * (`raycastMesh(rays, mesh, { pose })`), so the turning knot needs no refit. Click a particle or
 * the knot: one GPU ray goes against both, the nearer hit wins
 * and is drawn red (the particle, or the knot's triangle with a ring at the hit point, facing
 * along the triangle's normal).
 *
 * Its size comes from the adapter: on a GPU 100,000 particles of 320 triangles at the screen's
 * resolution, 1/60 s simulated a frame. On a software adapter (SwiftShader, llvmpipe: the shaders
 * run on the CPU) that draws a frame or two a second, so there it starts with 1,000 particles of
 * 80 triangles at half resolution and 1/30 s a frame: they fall and pile up within about 20 s at
 * around 10 frames a second (SwiftShader, 2 cores), without multisampling, which halves the
 * frame rate there (5 fps against 9). `?n=N` asks for N particles on either.
 *
 *   npx vite examples/three          (?n=20000 for another count)
 */
import * as THREE from 'three/webgpu';
import { storage, instanceIndex, positionLocal, uniform, hash, mix, color } from 'three/tsl';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { createCollider, createParticleWorld, describeDevice, requestBrowserDevice } from '../../src/index.js';

const status = document.querySelector('#status')!;

// One device for both: the library's, handed to three.
const device = await requestBrowserDevice().catch((error: Error) => {
  status.textContent = error.message; // no WebGPU: say what to use instead
  throw error;
});

// The size from the adapter (see the top of this file); ?n= overrides the count.
const software = Boolean(describeDevice(device)?.software);
const size = software
  ? { n: 1_000, antialias: false, pixelRatio: 0.5, dt: 1 / 30, detail: 1 }
  : { n: 100_000, antialias: true, pixelRatio: window.devicePixelRatio, dt: 1 / 60, detail: 2 };
const n = Math.max(1, Math.min(1_000_000, Math.floor(Number(new URLSearchParams(location.search).get('n'))) || size.n));
const sizeText = software
  ? `software adapter: ${size.n.toLocaleString('en')} particles by default (100,000 on a GPU), half resolution, 1/30 s a frame · ?n=N for more`
  : '?n=N sets the count';

const renderer = new THREE.WebGPURenderer({ device, antialias: size.antialias });
await renderer.init();
renderer.setPixelRatio(size.pixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.appendChild(renderer.domElement);

// The scene, in a box [-half, half] in x and z: a ramp tilted 35° down towards +x (steeper than
// friction 0.5 holds: tan 35° = 0.7), and past its low end a bin on the floor (four walls). The
// particles start as a loose column above the ramp; they fall on it, slide down, and pile up in
// the bin (and, past its rim, on the floor around it).
const spacing = 1.3;
const side = Math.ceil(Math.cbrt(n / 2)); // column footprint: side × side particles
const layers = Math.ceil(n / (side * side));
const half = Math.max(10, side * spacing * 1.5);
const footprint = (side * spacing) / 2 + 2; // half-width of the ramp and the bin along z
const slab = 0.3; // half the thickness of the ramp and the bin's walls
const binHeight = Math.max(2, 0.15 * side * spacing);
const tilt = (35 * Math.PI) / 180;
// The ramp's top face runs from (rampLow, rampY) up to (rampHigh, ...) along x.
const [rampHigh, rampLow] = [-0.6 * half, 0.1 * half];
const rampY = binHeight + 1;
const rampTop = rampY + (rampLow - rampHigh) * Math.tan(tilt);
const columnX = (rampHigh + rampLow) / 2;
const columnY = rampTop + 1.5;
const height = columnY + layers * spacing + 2;
const [binNear, binFar] = [rampLow + 1, 0.9 * half];

/** A box collider record (10 floats): centre, half extents, a turn about z by `angle`. */
const boxRecord = (cx: number, cy: number, cz: number, hx: number, hy: number, hz: number, angle = 0): number[] => [
  cx,
  cy,
  cz,
  hx,
  hy,
  hz,
  0,
  0,
  Math.sin(angle / 2),
  Math.cos(angle / 2),
];
const rampLength = (rampLow - rampHigh) / Math.cos(tilt);
const boxes = new Float32Array([
  // The ramp: its centre half its thickness below the middle of its top face, turned by −35° about z.
  ...boxRecord(
    (rampHigh + rampLow) / 2 - slab * Math.sin(tilt),
    (rampTop + rampY) / 2 - slab * Math.cos(tilt),
    0,
    rampLength / 2,
    slab,
    footprint,
    -tilt,
  ),
  // The bin: walls at x = binNear and binFar, and at z = ±footprint, standing on the floor.
  ...boxRecord(binNear, binHeight / 2, 0, slab, binHeight / 2, footprint + slab),
  ...boxRecord(binFar, binHeight / 2, 0, slab, binHeight / 2, footprint + slab),
  ...boxRecord((binNear + binFar) / 2, binHeight / 2, footprint, (binFar - binNear) / 2, binHeight / 2, slab),
  ...boxRecord((binNear + binFar) / 2, binHeight / 2, -footprint, (binFar - binNear) / 2, binHeight / 2, slab),
]);

// The torus knot's place (it is made below): above the bin, clear of the column.
const knotCentre = [0.55 * half, 0.45 * height, 0];
const knotReach = 0.21 * half; // its tube's outer radius: 0.16 + 0.05 of half
// An eighth of the particles rain on the knot: a column over it, as wide as the knot, up to the
// top of the box (fewer where the box is too low for all of them).
const rainSide = Math.max(1, Math.floor((1.2 * knotReach) / spacing));
const rainBottom = knotCentre[1] + knotReach + 1;
const rainLayers = Math.max(0, Math.floor((height - 1 - rainBottom) / spacing));
const rainCount = Math.min(Math.floor(n / 8), rainSide * rainSide * rainLayers);

const spheres = new Float32Array(4 * n);
const velocities = new Float32Array(3 * n);
for (let i = 0, rain = 0; i < n; i++) {
  const jitter = () => (Math.random() - 0.5) * 0.1;
  const radius = 0.4 + 0.2 * ((i * 0.618034) % 1);
  velocities.set([Math.random() - 0.5, 0, Math.random() - 0.5], 3 * i);
  if (i % 8 === 7 && rain < rainCount) {
    const [x, z, y] = [
      rain % rainSide,
      Math.floor(rain / rainSide) % rainSide,
      Math.floor(rain / (rainSide * rainSide)),
    ];
    spheres.set(
      [
        knotCentre[0] + (x - (rainSide - 1) / 2) * spacing + jitter(),
        rainBottom + y * spacing,
        knotCentre[2] + (z - (rainSide - 1) / 2) * spacing + jitter(),
        radius,
      ],
      4 * i,
    );
    rain++;
    continue;
  }
  const x = i % side,
    z = Math.floor(i / side) % side,
    y = Math.floor(i / (side * side));
  spheres.set(
    [
      columnX + (x - (side - 1) / 2) * spacing + jitter(),
      columnY + y * spacing,
      (z - (side - 1) / 2) * spacing + jitter(),
      radius,
    ],
    4 * i,
  );
}
// The library's 6 substeps a step on a GPU; 4 on a software adapter, where every pass runs on the CPU.
const world = await createParticleWorld({
  device,
  capacity: n,
  bounds: [-half, 0, -half, half, height, half],
  gravity: [0, -15, 0],
  restitution: 0.1,
  friction: 0.5,
  substeps: software ? 4 : 6,
});
world.setParticles({ spheres, velocities });
world.setColliders({ boxes });
// A Collider on the same device, for the knot's triangle mesh and its raycasts.
const collider = await createCollider({ device });

// three reads the world's GPUBuffer in place. three has no public call to wrap a foreign
// GPUBuffer, but it only creates an attribute's buffer when its backend has none yet: give it the
// world's before the first render (vec4<f32> x, y, z, radius; STORAGE | VERTEX usage, as three's).
const sphereAttribute = new THREE.StorageInstancedBufferAttribute(n, 4);
(renderer.backend as unknown as { get(object: object): { buffer?: GPUBuffer } }).get(sphereAttribute).buffer =
  world.buffers.spheres;
const spheresNode = storage(sphereAttribute, 'vec4', n).toReadOnly();
const sphere = spheresNode.element(instanceIndex);

// One unit sphere (80 triangles on a software adapter, 320 on a GPU), instanced n times: scaled by the radius, moved to the centre.
const geometry = new THREE.IcosahedronGeometry(1, size.detail);
const material = new THREE.MeshStandardNodeMaterial({ roughness: 0.5 });
material.positionNode = positionLocal.mul(sphere.w).add(sphere.xyz);
material.colorNode = mix(color(0x2b6cd9), color(0x7fd1ff), hash(instanceIndex));
const particles = new THREE.Mesh(geometry, material);
particles.count = n; // instances
particles.frustumCulled = false; // the geometry's bounds are the unit sphere's, not the pile's

// The picked particle: drawn once more, red, half as big again, unlit and over everything (no
// depth test, drawn last), so that it stays in sight when the pile buries it. It reads its centre
// from the same GPU buffer, at the index in a uniform.
const picked = uniform(-1, 'int');
const pickedSphere = spheresNode.element(picked);
const highlightMaterial = new THREE.MeshBasicNodeMaterial({ color: 0xff3355, depthTest: false, depthWrite: false });
highlightMaterial.positionNode = positionLocal.mul(pickedSphere.w.mul(1.5)).add(pickedSphere.xyz);
const highlight = new THREE.Mesh(geometry, highlightMaterial);
highlight.frustumCulled = false;
highlight.renderOrder = 1;
highlight.visible = false;

const scene = new THREE.Scene();
scene.background = new THREE.Color(0x0f1117);
scene.add(particles);
scene.add(highlight);
scene.add(new THREE.HemisphereLight(0xdde6ff, 0x202030, 1.5));
const sun = new THREE.DirectionalLight(0xffffff, 2);
sun.position.set(1, 3, 2);
scene.add(sun);
const box = new THREE.Box3(new THREE.Vector3(-half, 0, -half), new THREE.Vector3(half, height, half));
scene.add(new THREE.Box3Helper(box, 0x556080));
const floor = new THREE.Mesh(
  new THREE.PlaneGeometry(2 * half, 2 * half),
  new THREE.MeshStandardNodeMaterial({ color: 0x1c2030 }),
);
floor.rotation.x = -Math.PI / 2;
scene.add(floor);

// The box colliders: a unit BoxGeometry (1 × 1 × 1) per box, scaled to its full extents and placed
// from its pose. These are static; for kinematic boxes (setColliders with velocities) copy the
// poses each frame from your own record of them, or read world.colliderBuffers.poses (3 vec4f a
// box: centre, half extents, quaternion) in a TSL storage node as the particles are read.
// Translucent, like glass, so that no particle in the bin hides behind a wall, and writing no
// depth, so the particles behind still draw.
const boxMaterial = new THREE.MeshStandardNodeMaterial({
  color: 0xa0825a,
  roughness: 0.8,
  transparent: true,
  opacity: 0.45,
  depthWrite: false,
});
const unitBox = new THREE.BoxGeometry(1, 1, 1);
for (let k = 0; k < boxes.length / 10; k++) {
  const [cx, cy, cz, hx, hy, hz, qx, qy, qz, qw] = boxes.subarray(10 * k, 10 * k + 10);
  const mesh = new THREE.Mesh(unitBox, boxMaterial);
  mesh.position.set(cx, cy, cz);
  mesh.scale.set(2 * hx, 2 * hy, 2 * hz);
  mesh.quaternion.set(qx, qy, qz, qw);
  scene.add(mesh);
}

// The torus knot, above the bin (clear of the column and the pile), sized from the box, turning
// slowly about a tilted axis: a kinematic mesh collider of the world, which the rain falls on.
// Its triangles go to the GPU once, as three holds them (positions and index, in the knot's own
// frame); the world and every query take its pose (world = centre + q·local), read from the
// Object3D. It is a child of the scene itself, so its position and quaternion are its world pose
// (no scale: a pose has none).
const knotGeometry = new THREE.TorusKnotGeometry(0.16 * half, 0.05 * half, 96, 12);
const knot = new THREE.Mesh(knotGeometry, new THREE.MeshStandardNodeMaterial({ color: 0xe0c040, roughness: 0.4 }));
knot.position.set(knotCentre[0], knotCentre[1], knotCentre[2]);
const knotAxis = new THREE.Vector3(0.3, 1, 0.2).normalize();
const knotSpin = 0.35; // rad/s
const turnKnot = (time: number): void => void knot.quaternion.setFromAxisAngle(knotAxis, knotSpin * time);
turnKnot(0);
scene.add(knot);
const knotPositions = new Float32Array(knotGeometry.attributes.position.array);
const knotIndices = new Uint32Array(knotGeometry.index!.array);
const knotMesh = collider.createMesh({ positions: knotPositions, indices: knotIndices });
const knotPose = (): number[] => [...knot.position.toArray(), ...knot.quaternion.toArray()];
// The world turns it through each step at its spin (and each frame sets the pose it is drawn at,
// which is where the step left it, so the warm start of its contacts carries on).
const setKnot = (): void =>
  world.setMeshes([
    { mesh: knotMesh, pose: knotPose(), velocity: [0, 0, 0, ...knotAxis.clone().multiplyScalar(knotSpin).toArray()] },
  ]);
setKnot();

// The picked triangle: the hit triangle in red, and a red ring around the hit point in the plane
// of the triangle (its normal the ring's axis); children of the knot, in its frame, so they turn
// with it; unlit and over everything, as the picked particle.
const knotHighlightMaterial = new THREE.MeshBasicNodeMaterial({
  color: 0xff3355,
  depthTest: false,
  depthWrite: false,
  side: THREE.DoubleSide,
});
const hitTriangle = new THREE.Mesh(
  new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(9), 3)),
  knotHighlightMaterial,
);
const hitRing = new THREE.Mesh(new THREE.RingGeometry(0.025 * half, 0.04 * half, 24), knotHighlightMaterial);
for (const part of [hitTriangle, hitRing]) {
  part.frustumCulled = false;
  part.renderOrder = 1;
  part.visible = false;
  knot.add(part);
}
/** Shows the hit on triangle `t`: the world point and normal the query gave, under the pose it was asked with. */
function showKnotHit(t: number, pose: number[], point: THREE.Vector3, normal: THREE.Vector3): void {
  const toLocal = new THREE.Quaternion(pose[3], pose[4], pose[5], pose[6]).invert();
  const vertices = hitTriangle.geometry.attributes.position as THREE.BufferAttribute;
  for (let k = 0; k < 3; k++) {
    const v = knotIndices[3 * t + k];
    vertices.setXYZ(k, knotPositions[3 * v], knotPositions[3 * v + 1], knotPositions[3 * v + 2]);
  }
  vertices.needsUpdate = true;
  hitRing.position.copy(point.sub(new THREE.Vector3(pose[0], pose[1], pose[2])).applyQuaternion(toLocal));
  hitRing.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), normal.applyQuaternion(toLocal));
  hitTriangle.visible = hitRing.visible = true;
}

const camera = new THREE.PerspectiveCamera(50, window.innerWidth / window.innerHeight, 0.1, 20 * height);
camera.position.set(0, height * 0.55, half * 1.3 + height * 0.75);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, height * 0.3, 0);
controls.update();
window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});

// Picking: a click (not a drag) casts the camera ray through the pointer on the GPU, against the
// particles (the world's raycast) and the knot (raycastMesh, at the knot's pose of the click) at
// once; the nearer hit wins. Only the latest click's answer is shown.
const raycaster = new THREE.Raycaster();
let pickText = 'click a particle or the knot to pick it';
let clicks = 0;
async function pickAt(clientX: number, clientY: number): Promise<{ particle: number; triangle: number }> {
  const click = ++clicks;
  const ndc = new THREE.Vector2((clientX / window.innerWidth) * 2 - 1, -(clientY / window.innerHeight) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const { origin, direction } = raycaster.ray;
  const end = origin.clone().addScaledVector(direction, camera.far);
  const rays = new Float32Array([...origin.toArray(), ...end.toArray()]);
  const pose = knotPose();
  const [onParticles, onKnot] = await Promise.all([
    world.raycast(rays),
    collider.raycastMesh(rays, knotMesh, { pose }),
  ]);
  const particleDistance = onParticles.index[0] >= 0 ? onParticles.distance[0] : Infinity;
  const knotDistance = onKnot.triangle[0] >= 0 ? onKnot.distance[0] : Infinity;
  const knotWins = knotDistance < particleDistance;
  const particle = !knotWins && particleDistance < Infinity ? onParticles.index[0] : -1;
  const triangle = knotWins ? onKnot.triangle[0] : -1;
  if (click !== clicks) return { particle, triangle }; // a later click is on its way
  picked.value = particle;
  highlight.visible = particle >= 0;
  if (triangle >= 0) {
    // The normal by the triangle's winding: turned to face the ray, for the ring's side.
    const normal = new THREE.Vector3().fromArray(onKnot.normal, 0);
    if (normal.dot(direction) > 0) normal.negate();
    showKnotHit(triangle, pose, new THREE.Vector3().fromArray(onKnot.point, 0), normal);
  } else hitTriangle.visible = hitRing.visible = false;
  if (particle >= 0) pickText = `picked particle #${particle} at distance ${particleDistance.toFixed(2)}`;
  else if (triangle >= 0) pickText = `picked knot triangle #${triangle} at distance ${knotDistance.toFixed(2)}`;
  else pickText = 'missed: no particle or knot there';
  hooks.picked = particle;
  hooks.knotTriangle = triangle;
  hooks.picks++;
  return { particle, triangle };
}
let down = { x: 0, y: 0 };
renderer.domElement.addEventListener('pointerdown', (e) => (down = { x: e.clientX, y: e.clientY }));
renderer.domElement.addEventListener('pointerup', (e) => {
  if (Math.hypot(e.clientX - down.x, e.clientY - down.y) < 4) void pickAt(e.clientX, e.clientY);
});

// State for tests and the curious: `window.__three`.
const hooks = {
  count: n,
  software,
  boxes: boxes.length / 10,
  frames: 0,
  time: 0,
  /** The last pick's particle (−1 when it picked none), null before the first. */
  picked: null as number | null,
  /** The last pick's knot triangle (−1 when it picked none), null before the first. */
  knotTriangle: null as number | null,
  /** Picks answered so far. */
  picks: 0,
  knotTriangles: knotMesh.triangleCount,
  pickAt,
  /**
   * Where the knot is on screen now: the client coordinates of its vertex nearest the camera
   * (in front of the rest of the knot: a ray through it hits the knot) and that vertex's
   * distance from the camera.
   */
  knotScreen(): { x: number; y: number; distance: number } {
    knot.updateMatrixWorld();
    const vertex = new THREE.Vector3();
    const nearest = new THREE.Vector3();
    let best = Infinity;
    for (let v = 0; v < knotPositions.length / 3; v++) {
      knot.localToWorld(vertex.fromArray(knotPositions, 3 * v));
      const d = vertex.distanceTo(camera.position);
      if (d < best) [best, nearest.x, nearest.y, nearest.z] = [d, vertex.x, vertex.y, vertex.z];
    }
    const ndc = nearest.project(camera);
    return { x: ((ndc.x + 1) / 2) * window.innerWidth, y: ((1 - ndc.y) / 2) * window.innerHeight, distance: best };
  },
};
(window as unknown as { __three: typeof hooks }).__three = hooks;

// Each frame: record a world step, submit it, then render; the queue keeps them in that order.
let checking = false;
let fps = 0,
  fpsFrames = 0,
  fpsStart = performance.now(),
  statusAt = 0;
renderer.setAnimationLoop(() => {
  turnKnot(hooks.time);
  setKnot();
  const encoder = device.createCommandEncoder();
  world.encode(encoder, size.dt);
  device.queue.submit([encoder.finish()]);
  turnKnot(hooks.time + size.dt); // drawn where the step leaves it, with the particles
  renderer.render(scene, camera);
  hooks.frames++;
  hooks.time += size.dt;
  // Recorded steps cannot grow the contact lists themselves, and contacts past them go unsolved
  // (a forming pile needs more entries than the first lists hold): the world checks after every
  // frame, one check at a time (8 bytes read back), so the lists grow within a frame or two.
  if (!checking) {
    checking = true;
    void world.checkContactCapacity().finally(() => (checking = false));
  }

  fpsFrames++;
  const now = performance.now();
  if (now - fpsStart > 500) {
    fps = (1000 * fpsFrames) / (now - fpsStart);
    fpsFrames = 0;
    fpsStart = now;
  }
  // The text four times a second: where the page is drawn in software, laying it out every frame costs frames.
  if (now - statusAt < 250 && hooks.frames > 1) return;
  statusAt = now;
  status.textContent = `${n.toLocaleString('en')} particles · ${fps.toFixed(0)} fps · t ${hooks.time.toFixed(1)} s\n${sizeText}\n${pickText}\n${hooks.boxes} box colliders: a ramp and a bin · a torus knot of ${knotMesh.triangleCount.toLocaleString('en')} triangles, a mesh collider`;
});
