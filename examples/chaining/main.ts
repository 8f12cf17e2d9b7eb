/**
 * GPU-resident chaining: spheres that a kernel of yours moves (bouncing in a box), their
 * overlapping pairs found by `collider.encodeSpherePairs` into a GPU buffer, and a second kernel
 * of yours that reads those pairs through indirect dispatch (`result.dispatch`, sized on the GPU
 * from the count) and marks both spheres of each pair; three.js draws the marked ones orange,
 * all in one submission a frame and with nothing read back (100,000 spheres on a GPU, 2,000 on a
 * software adapter). Once a second the page reads the pair count (`readCounted`), which also
 * lets the pair list grow if it was too small: nothing is dropped.
 *
 *   npx vite examples/chaining          (?n=N spheres)
 */
import * as THREE from 'three/webgpu';
import { color, instanceIndex, mix, hash, select, uniform } from 'three/tsl';
import { createCollider, type EncodedPairs } from '../../src/index.js';
import { createStage, fpsMeter, gpuUints, gpuVec4s, sphereMesh, storageBuffer } from '../common/stage.js';

const stage = await createStage({ counts: { gpu: 100_000, software: 2_000 }, what: 'spheres' });
const { device, n, renderer, scene, camera, controls } = stage;

// n spheres of radius 0.3–0.5 at random in a box about 1 in 20 full, at up to 2 per second.
const half = 1.3 * Math.cbrt(n);
const spheres = new Float32Array(4 * n);
const velocities = new Float32Array(4 * n);
for (let i = 0; i < n; i++) {
  spheres.set(
    [
      (Math.random() - 0.5) * 2 * half,
      (Math.random() - 0.5) * 2 * half,
      (Math.random() - 0.5) * 2 * half,
      0.3 + 0.2 * Math.random(),
    ],
    4 * i,
  );
  velocities.set(
    [Math.random() - 0.5, Math.random() - 0.5, Math.random() - 0.5, 0].map((v) => 4 * v),
    4 * i,
  );
}
const sphereBuffer = storageBuffer(device, 'spheres', spheres);
const velocityBuffer = storageBuffer(device, 'velocities', velocities);
const markBuffer = storageBuffer(device, 'marks', new Uint32Array(n)); // the frame a sphere was last in a pair
const frameBuffer = device.createBuffer({
  label: 'frame',
  size: 16,
  usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
});

// Your kernels. The first moves the spheres and bounces them off the box's walls.
const moveModule = device.createShaderModule({
  label: 'move',
  code: /* wgsl */ `
struct Frame { index: u32, dt: f32, half: f32, count: u32 }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read_write> spheres: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> velocities: array<vec4f>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * 64u;
  if (i >= frame.count) { return; }
  var s = spheres[i];
  var v = velocities[i].xyz;
  s = vec4f(s.xyz + v * frame.dt, s.w);
  let wall = vec3f(frame.half - s.w);
  v = select(v, -abs(v), s.xyz > wall);
  v = select(v, abs(v), s.xyz < -wall);
  spheres[i] = s;
  velocities[i] = vec4f(v, 0.0);
}`,
});
// The second reads the pairs encodeSpherePairs wrote: one thread a pair, dispatched indirectly
// from result.dispatch (x, y, 1 workgroups of 64), guarded by the true count and the list's length.
const markModule = device.createShaderModule({
  label: 'mark',
  code: /* wgsl */ `
struct Frame { index: u32, dt: f32, half: f32, count: u32 }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> pairs: array<vec2u>;
@group(0) @binding(2) var<storage, read> counter: array<u32, 2>;
@group(0) @binding(3) var<storage, read_write> marks: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u, @builtin(local_invocation_index) lid: u32) {
  let k = (wid.x + wid.y * groups.x) * 64u + lid;
  if (k >= min(counter[0], arrayLength(&pairs))) { return; }
  let pair = pairs[k];
  atomicStore(&marks[pair.x], frame.index);
  atomicStore(&marks[pair.y], frame.index);
}`,
});
const movePipeline = device.createComputePipeline({ label: 'move', layout: 'auto', compute: { module: moveModule } });
const markPipeline = device.createComputePipeline({ label: 'mark', layout: 'auto', compute: { module: markModule } });
const moveGroup = device.createBindGroup({
  layout: movePipeline.getBindGroupLayout(0),
  entries: [frameBuffer, sphereBuffer, velocityBuffer].map((buffer, binding) => ({ binding, resource: { buffer } })),
});
let markGroup: GPUBindGroup | undefined;
let markPairs: GPUBuffer | undefined;

const collider = await createCollider({ device });
const bounds = { min: [-half, -half, -half], max: [half, half, half], maxRadius: 0.5 };
let pairs: EncodedPairs | undefined;
const dt = stage.software ? 1 / 30 : 1 / 60;
let frameIndex = 0;

/** One frame's GPU work, in one submission: move, find the pairs, mark them. */
function simulate(): void {
  frameIndex++;
  device.queue.writeBuffer(frameBuffer, 0, new Uint32Array([frameIndex, 0, 0, n]));
  device.queue.writeBuffer(frameBuffer, 4, new Float32Array([dt, half]));
  const encoder = device.createCommandEncoder();
  const move = encoder.beginComputePass({ label: 'move' });
  move.setPipeline(movePipeline);
  move.setBindGroup(0, moveGroup);
  move.dispatchWorkgroups(Math.min(Math.ceil(n / 64), 65535), Math.ceil(Math.ceil(n / 64) / 65535));
  move.end();
  pairs = collider.encodeSpherePairs(encoder, { buffer: sphereBuffer, count: n }, { scene: bounds, into: pairs });
  if (markPairs !== pairs.pairs) {
    // The pair list was made, or grew: bind the new one.
    markPairs = pairs.pairs;
    markGroup = device.createBindGroup({
      layout: markPipeline.getBindGroupLayout(0),
      entries: [frameBuffer, pairs.pairs, pairs.counter, markBuffer].map((buffer, binding) => ({
        binding,
        resource: { buffer },
      })),
    });
  }
  const mark = encoder.beginComputePass({ label: 'mark' });
  mark.setPipeline(markPipeline);
  mark.setBindGroup(0, markGroup!);
  mark.dispatchWorkgroupsIndirect(pairs.dispatch, 0);
  mark.end();
  device.queue.submit([encoder.finish()]);
}
simulate();

// Draw: a sphere marked this frame is orange, the others blue.
const marks = gpuUints(stage, markBuffer, n);
const now = uniform(0, 'uint');
const touching = marks.element(instanceIndex).equal(now);
const blue = mix(color(0x2b6cd9), color(0x7fd1ff), hash(instanceIndex));
scene.add(sphereMesh(stage, gpuVec4s(stage, sphereBuffer, n), n, select(touching, color(0xff8c42), blue).toColor()));
scene.add(
  new THREE.Box3Helper(
    new THREE.Box3(new THREE.Vector3(-half, -half, -half), new THREE.Vector3(half, half, half)),
    0x556080,
  ),
);

camera.position.set(1.2 * half, 1.0 * half, 3.6 * half);
camera.far = 40 * half;
camera.updateProjectionMatrix();
controls.target.set(0, 0, 0);
controls.update();

const hooks = { frames: 0, spheres: n, software: stage.software, pairs: -1 };
(window as unknown as { __chaining: typeof hooks }).__chaining = hooks;
const fps = fpsMeter();
let reading = false;
renderer.setAnimationLoop(() => {
  simulate();
  now.value = frameIndex;
  renderer.render(scene, camera);
  hooks.frames++;
  // Once a second, the count (a few bytes): it also grows the list for the next frames if the pairs overflowed it.
  if (hooks.frames % 30 === 0 && !reading && pairs) {
    reading = true;
    void pairs.readCounted().then(({ count }) => {
      hooks.pairs = count;
      reading = false;
    });
  }
  stage.status(
    `${n.toLocaleString('en')} spheres · ${fps().toFixed(0)} fps · ${hooks.pairs < 0 ? '…' : hooks.pairs.toLocaleString('en')} overlapping pairs (read once a second)\n${stage.sizeText}\nyour kernel moves them, encodeSpherePairs finds the pairs, your kernel marks them (indirect dispatch): one submission a frame, nothing read back`,
  );
});
