/**
 * What the gallery's three.js pages share (examples/raycasts, spherecasts, drum, chaining): one
 * GPUDevice for the library and three's WebGPURenderer, sized by the adapter (a software one such
 * as SwiftShader, which runs the shaders on the CPU, gets a small scene at half resolution), a
 * camera with orbit controls, lights, a status line, and three nodes that read the library's
 * GPU buffers in place (no readback).
 */
import * as THREE from 'three/webgpu';
import { storage, instanceIndex, positionLocal, hash, mix, color } from 'three/tsl';
import type { StorageBufferNode } from 'three/webgpu';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { describeDevice, requestBrowserDevice } from '../../src/index.js';

/** A page's stage: the device, its size, three's renderer, scene and camera, and the status line. */
export interface Stage {
  device: GPUDevice;
  /** True on a software adapter. */
  software: boolean;
  /** The count the page runs: ?n=, else its default for this adapter. */
  n: number;
  /** What the page picked, for its status line. */
  sizeText: string;
  renderer: THREE.WebGPURenderer;
  scene: THREE.Scene;
  camera: THREE.PerspectiveCamera;
  controls: OrbitControls;
  /** Sets the status line (a few times a second at most: laying out text costs frames in software). */
  status(text: string): void;
}

/** Starts a page: the device (or a message saying what to use instead), the renderer and the scene. */
export async function createStage(options: {
  /** The default count on a GPU and on a software adapter. */
  counts: { gpu: number; software: number };
  /** What the count counts, for the status line ("spheres", "particles"). */
  what: string;
}): Promise<Stage> {
  const line = document.querySelector('#status')!;
  const device = await requestBrowserDevice().catch((error: Error) => {
    line.textContent = error.message; // no WebGPU: say which browser and flag to use
    throw error;
  });
  const software = Boolean(describeDevice(device)?.software);
  const fallback = software ? options.counts.software : options.counts.gpu;
  const asked = Math.floor(Number(new URLSearchParams(location.search).get('n')));
  const n = Math.max(1, Math.min(1_000_000, asked || fallback));
  const sizeText = software
    ? `software adapter: ${options.counts.software.toLocaleString('en')} ${options.what} by default (${options.counts.gpu.toLocaleString('en')} on a GPU), half resolution · ?n=N for more`
    : `${options.counts.gpu.toLocaleString('en')} ${options.what} by default · ?n=N sets the count`;

  // No multisampling on a software adapter: there it halves the frame rate (the three.js example, SwiftShader).
  const renderer = new THREE.WebGPURenderer({ device, antialias: !software });
  await renderer.init();
  renderer.setPixelRatio(software ? 0.5 : window.devicePixelRatio);
  renderer.setSize(window.innerWidth, window.innerHeight);
  document.body.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x0f1117);
  scene.add(new THREE.HemisphereLight(0xdde6ff, 0x202030, 1.5));
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.position.set(1, 3, 2);
  scene.add(sun);

  const camera = new THREE.PerspectiveCamera(50, window.innerWidth / window.innerHeight, 0.1, 1000);
  const controls = new OrbitControls(camera, renderer.domElement);
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
  });
  let shownAt = 0;
  const status = (text: string): void => {
    const now = performance.now();
    if (now - shownAt < 250) return;
    shownAt = now;
    line.textContent = text;
  };
  return { device, software, n, sizeText, renderer, scene, camera, controls, status };
}

/**
 * A three storage node over a GPUBuffer of the library's (`count` records of vec4<f32>), read in
 * place. three has no public call to wrap a foreign GPUBuffer, but it only creates an
 * attribute's buffer when its backend has none yet: it gets this one before the first render.
 */
export function gpuVec4s(stage: Stage, buffer: GPUBuffer, count: number): StorageBufferNode<'vec4'> {
  return storage(
    foreign(stage, buffer, new THREE.StorageInstancedBufferAttribute(count, 4)),
    'vec4',
    count,
  ).toReadOnly();
}

/** A three storage node over a GPUBuffer of `count` u32 (read in place, as gpuVec4s). */
export function gpuUints(stage: Stage, buffer: GPUBuffer, count: number): StorageBufferNode<'uint'> {
  const attribute = new THREE.StorageInstancedBufferAttribute(new Uint32Array(count), 1);
  return storage(foreign(stage, buffer, attribute), 'uint', count).toReadOnly();
}

function foreign<T extends THREE.StorageInstancedBufferAttribute>(stage: Stage, buffer: GPUBuffer, attribute: T): T {
  (stage.renderer.backend as unknown as { get(object: object): { buffer?: GPUBuffer } }).get(attribute).buffer = buffer;
  return attribute;
}

/**
 * `count` spheres drawn from a GPU buffer of (x, y, z, radius) records, instanced: a unit sphere
 * scaled by the radius and moved to the centre, in blues (or `colorNode`), smooth-shaded.
 */
export function sphereMesh(
  stage: Stage,
  spheres: StorageBufferNode<'vec4'>,
  count: number,
  colorNode?: THREE.MeshStandardNodeMaterial['colorNode'],
): THREE.Mesh {
  const sphere = spheres.element(instanceIndex);
  const material = new THREE.MeshStandardNodeMaterial({ roughness: 0.5 });
  material.positionNode = positionLocal.mul(sphere.w).add(sphere.xyz);
  material.colorNode = colorNode ?? mix(color(0x2b6cd9), color(0x7fd1ff), hash(instanceIndex));
  const mesh = new THREE.Mesh(new THREE.IcosahedronGeometry(1, stage.software ? 1 : 3), material);
  mesh.count = count; // instances
  mesh.frustumCulled = false; // the geometry's bounds are the unit sphere's, not the scene's
  return mesh;
}

/** Meshes for box collider records (10 floats a box: centre, half extents, quaternion), in `material`. */
export function boxMeshes(records: Float32Array, material: THREE.Material): THREE.Mesh[] {
  const unit = new THREE.BoxGeometry(1, 1, 1);
  const meshes: THREE.Mesh[] = [];
  for (let k = 0; k < records.length / 10; k++) {
    const mesh = new THREE.Mesh(unit, material);
    placeBox(mesh, records, k);
    meshes.push(mesh);
  }
  return meshes;
}

/** Moves a box mesh to record k of `records` (10 floats a box). */
export function placeBox(mesh: THREE.Object3D, records: Float32Array, k: number): void {
  const [cx, cy, cz, hx, hy, hz, qx, qy, qz, qw] = records.subarray(10 * k, 10 * k + 10);
  mesh.position.set(cx, cy, cz);
  mesh.scale.set(2 * hx, 2 * hy, 2 * hz);
  mesh.quaternion.set(qx, qy, qz, qw);
}

/** Frames per second over the last half second or more. */
export function fpsMeter(): () => number {
  let fps = 0;
  let frames = 0;
  let start = performance.now();
  return () => {
    frames++;
    const now = performance.now();
    if (now - start > 500) {
      fps = (1000 * frames) / (now - start);
      frames = 0;
      start = now;
    }
    return fps;
  };
}

/** A storage buffer (STORAGE | COPY_DST) holding `data`, for the library's calls and the page's kernels. */
export function storageBuffer(device: GPUDevice, label: string, data: Float32Array | Uint32Array): GPUBuffer {
  const buffer = device.createBuffer({
    label,
    size: data.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

/**
 * `n` spheres at random in a cube of side `side` about the origin, radii from `radii[0]` to
 * `radii[1]`: their records, their GPU buffer, and the scene bounds the encoded calls plan by.
 */
export function sphereField(
  device: GPUDevice,
  n: number,
  side: number,
  radii: [number, number],
): { spheres: Float32Array; buffer: GPUBuffer; scene: { min: number[]; max: number[]; maxRadius: number } } {
  const spheres = new Float32Array(4 * n);
  const at = (): number => (Math.random() - 0.5) * side;
  for (let i = 0; i < n; i++) spheres.set([at(), at(), at(), radii[0] + (radii[1] - radii[0]) * Math.random()], 4 * i);
  const h = side / 2;
  return {
    spheres,
    buffer: storageBuffer(device, 'spheres', spheres),
    scene: { min: [-h, -h, -h], max: [h, h, h], maxRadius: radii[1] },
  };
}
