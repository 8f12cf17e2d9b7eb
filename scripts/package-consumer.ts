/**
 * A stranger's code: uses every export of 'webgpu-collide' and 'webgpu-collide/node', values and
 * types. Never run; scripts/check-package.ts type-checks it with `tsc --strict` in a fresh
 * project that installed the packed tarball (and `npm run typecheck` checks it against src/
 * through tsconfig.json's paths). A new export must be used here, or check-package fails.
 */
import {
  createCollider,
  type Collider,
  AUTO_GRID_MIN_SPHERES,
  AUTO_GRID_MIN_BOXES,
  BROADPHASES,
  CollideError,
  InvalidInputError,
  CapacityError,
  NoAdapterError,
  WebGPUError,
  DeviceLostError,
  DestroyedError,
  createParticleWorld,
  type ParticleWorld,
  defaultInverseMass,
  SKIN_OF_RADIUS,
  SLEEP_SPEED_OF_RADIUS,
  type ColliderContacts,
  type MeshContacts,
  type ContactRecords,
  type MeshContactList,
  type MeshCollider,
  describeDevice,
  requestBrowserDevice,
  BROWSER_HELP,
  STRIDE,
  GPU_STRIDE,
  PAIR_BYTES,
  CastHitRecord,
  PairCounter,
  ResidentStatus,
  type EncodedPairs,
  type EncodedHits,
  type HitsResult,
  RULES,
  GpuTimer,
  workDone,
  reference,
  type Broadphase,
  type PairOptions,
  type CastOptions,
  type CastOut,
  type ColliderOptions,
  type ColliderLimits,
  type RaycastResult,
  type SphereCastResult,
  type AllHits,
  type RaycastAllHits,
  type SphereCastAllHits,
  type ParticleWorldOptions,
  type ParticleSet,
  type ParticleParameters,
  type ParticleParametersNow,
  type ParticleBuffers,
  type ContactSearches,
  type ColliderSet,
  type ColliderBuffers,
  type ColliderContactList,
  type AdapterSummary,
  type DeviceOptions,
  type WebGPUEngine,
  type WebGPUHost,
  type StructLayout,
  type FieldLayout,
  type FieldType,
  type ArrayField,
  type PrimitiveType,
  type GpuRecords,
  type SceneBounds,
  type EncodeOptions,
  type EncodeCastOptions,
  type SphereStats,
  type Profile,
  type StageTime,
  type GridPlan,
  type GridLevelPlan,
  type PlanOptions,
  type ColliderMesh,
  type ColliderMeshCalls,
  type EncodedMeshHits,
  type EncodedMeshContacts,
  MeshHitRecord,
  MeshContactRecord,
  type MeshInput,
  type GpuPositions,
  type MeshQueryOptions,
  type EncodeMeshOptions,
  type MeshRaycastResult,
  type MeshSphereCastResult,
  type MeshContactsResult,
} from 'webgpu-collide';
import * as node from 'webgpu-collide/node';
import {
  requestNodeDevice,
  SWIFTSHADER_ICDS,
  NODE_HELP,
  dawnInstanceCount,
  yieldWhileWaiting,
  WAIT_SLEEP_MS,
  type NodeDeviceOptions,
} from 'webgpu-collide/node';

/** Everything the browser entry offers, in the calls a user makes. */
export async function useIndex(device: GPUDevice): Promise<string[]> {
  const log: string[] = [];
  const deviceOptions: DeviceOptions = { powerPreference: 'high-performance' };
  const other: GPUDevice = await requestBrowserDevice(deviceOptions);
  other.destroy();
  const summary: AdapterSummary | undefined = describeDevice(device);
  const engine: WebGPUEngine | undefined = summary?.engine;
  const host: WebGPUHost | undefined = summary ? { engine: summary.engine, host: summary.host } : undefined;
  log.push(BROWSER_HELP, String(engine), String(host?.host));

  const plan: PlanOptions = { denseFactor: 8, levelStep: 2 };
  const options: ColliderOptions = { device, grid: plan };
  const collider: Collider = await createCollider(options);
  const limits: ColliderLimits = collider.limits;
  const spheres = new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 1]);
  const broadphase: Broadphase = BROADPHASES[0] ?? 'auto';
  const pairOptions: PairOptions = { broadphase, maxPairs: limits.maxPairs, profile: true };
  const pairs: Uint32Array = await collider.spherePairs(spheres, pairOptions);
  await collider.sphereBoxPairs(spheres, new Float32Array(6));
  await collider.sphereOrientedBoxPairs(spheres, new Float32Array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1]));
  const profile: Profile | null = collider.lastProfile;
  const stage: StageTime | undefined = profile?.stages[0];
  log.push(`${pairs.length} ${stage?.name} ${AUTO_GRID_MIN_SPHERES} ${AUTO_GRID_MIN_BOXES}`);

  const castOut: CastOut = { index: new Int32Array(1), distance: new Float32Array(1), point: new Float32Array(3) };
  const castOptions: CastOptions = { broadphase: 'grid', out: castOut };
  const rays = new Float32Array([-5, 0, 0, 5, 0, 0]);
  const nearest: RaycastResult = await collider.raycast(rays, spheres, castOptions);
  const every: RaycastAllHits = await collider.raycast(rays, spheres, { allHits: true, maxHits: 10 });
  const casts = new Float32Array([-5, 0, 0, 5, 0, 0, 0.5]);
  const swept: SphereCastResult = await collider.sphereCast(casts, spheres);
  const sweptAll: SphereCastAllHits = await collider.sphereCast(casts, spheres, { allHits: true });
  const offsets: AllHits = every;
  // Options forwarded as they came (optional): either result.
  const forward = (o?: CastOptions) => collider.raycast(rays, spheres, o);
  log.push(`${(await forward()).index.length}`);
  // allHits known only at run time: either result, told apart by its offsets.
  const either = await collider.raycast(rays, spheres, { allHits: rays.length > 6 } as CastOptions);
  log.push(`${'offsets' in either ? either.offsets.length : either.index.length}`);
  log.push(`${nearest.index[0]} ${swept.contact[0]} ${sweptAll.center.length} ${offsets.offsets.length}`);

  // GPU-resident: spheres and rays already in buffers, results left on the GPU.
  const sphereBuffer = device.createBuffer({
    size: spheres.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(sphereBuffer, 0, spheres);
  const gpuSpheres: GpuRecords = { buffer: sphereBuffer, count: 2 };
  const scene: SceneBounds = { min: [0, 0, 0], max: [1.5, 0, 0], maxRadius: 1 };
  const encodeOptions: EncodeOptions = { scene, capacity: 16 };
  const castEncodeOptions: EncodeCastOptions = { scene, maxLength: 10 };
  // One encoded call per submission, each submitted before the next is recorded.
  const submitted = <T>(record: (encoder: GPUCommandEncoder) => T): T => {
    const residentEncoder = device.createCommandEncoder();
    const result = record(residentEncoder);
    device.queue.submit([residentEncoder.finish()]);
    return result;
  };
  const encoded: EncodedPairs = submitted((e) => collider.encodeSpherePairs(e, gpuSpheres, encodeOptions));
  const boxed: EncodedPairs = submitted((e) => collider.encodeSphereBoxPairs(e, gpuSpheres, gpuSpheres, encodeOptions));
  const turned: EncodedPairs = submitted((e) =>
    collider.encodeSphereOrientedBoxPairs(e, gpuSpheres, gpuSpheres, encodeOptions),
  );
  const hits: EncodedHits<RaycastResult> = submitted((e) =>
    collider.encodeRaycast(e, gpuSpheres, gpuSpheres, { ...castEncodeOptions, allHits: false }),
  );
  const castHits: EncodedHits<HitsResult> = submitted((e) =>
    collider.encodeSphereCast(e, gpuSpheres, gpuSpheres, castEncodeOptions),
  );
  await workDone(device);
  log.push(
    `${(await encoded.read()).length} ${encoded.dispatch.size} ${boxed.capacity} ${turned.counter.size} ${(await hits.read()).point.length} ${castHits.hits.size} ${ResidentStatus.size}`,
  );
  for (const result of [encoded, boxed, turned, hits, castHits]) result.destroy();

  // Triangle meshes: a BVH built on the GPU, queried one-shot and encoded, refitted from a buffer.
  const triangle = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const meshInput: MeshInput = { positions: triangle };
  const mesh: ColliderMesh = collider.createMesh(meshInput);
  const meshCalls: ColliderMeshCalls = collider;
  const meshOptions: MeshQueryOptions = { pose: [0, 0, 1, 0, 0, 0, 1], allHits: false };
  const rayHits: MeshRaycastResult = await meshCalls.raycastMesh(rays, mesh, meshOptions);
  const castHitsOnMesh: MeshSphereCastResult = await collider.sphereCastMesh(casts, mesh);
  const meshTouching: MeshContactsResult = await collider.sphereTriangleContacts(spheres, mesh, { maxPairs: 100 });
  const positionBuffer = device.createBuffer({ size: 36, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(positionBuffer, 0, triangle);
  const positions: GpuPositions = { buffer: positionBuffer };
  const meshEncodeOptions: EncodeMeshOptions = { allHits: true, capacity: 8 };
  const meshEncoder = device.createCommandEncoder();
  mesh.encodeRefit(meshEncoder, positions);
  const encodedMeshHits: EncodedMeshHits = collider.encodeRaycastMesh(meshEncoder, gpuSpheres, mesh, meshEncodeOptions);
  const encodedMeshContacts: EncodedMeshContacts = collider.encodeSphereTriangleContacts(meshEncoder, gpuSpheres, mesh);
  device.queue.submit([meshEncoder.finish()]);
  log.push(
    `${rayHits.triangle[0]} ${castHitsOnMesh.contact.length} ${meshTouching.pairs.length} ${(await encodedMeshHits.read()).triangle.length} ${(await encodedMeshContacts.read()).depth.length} ${MeshHitRecord.size} ${MeshContactRecord.size} ${mesh.triangleCount}`,
  );
  for (const result of [encodedMeshHits, encodedMeshContacts]) result.destroy();
  positionBuffer.destroy();
  sphereBuffer.destroy();
  mesh.destroy();

  const gridPlan: GridPlan = collider.planFor(spheres);
  const level: GridLevelPlan | undefined = gridPlan.levels[0];
  const cpu: Uint32Array = reference.gridSpherePairs(spheres, gridPlan);
  log.push(`${level?.cellSize} ${cpu.length} ${reference.bruteForceSpherePairs(spheres).length}`);
  collider.destroy();

  const parameters: ParticleParameters = {
    gravity: [0, -9.8, 0],
    restitution: 0.2,
    friction: 0.5,
    sleepSpeed: 0.05,
    sleepTime: 0.5,
  };
  const worldOptions: ParticleWorldOptions = {
    device,
    capacity: 2,
    bounds: [-10, -10, -10, 10, 10, 10],
    ...parameters,
  };
  const world: ParticleWorld = await createParticleWorld(worldOptions);
  const set: ParticleSet = {
    spheres,
    velocities: new Float32Array(6),
    inverseMasses: new Float32Array([defaultInverseMass(1), 0]),
  };
  world.setParticles(set);
  const now: Readonly<ParticleParametersNow> = world.parametersNow;
  log.push(`${now.friction} ${now.skin ?? 'default skin'}`);
  await world.step(1 / 60);
  const timer = new GpuTimer(device, true);
  const encoder = device.createCommandEncoder();
  world.encode(encoder, 1 / 60, 2, timer);
  timer.resolve(encoder);
  device.queue.submit([encoder.finish()]);
  const timed: Profile = await timer.read();
  timer.destroy();
  const buffers: ParticleBuffers = world.buffers;
  const state = await world.read();
  const searches: ContactSearches = await world.contactSearches();
  const colliderSet: ColliderSet = {
    boxes: new Float32Array([0, -2, 0, 5, 0.1, 5, 0, 0, 0, 1]),
    velocities: new Float32Array(6),
  };
  world.setColliders(colliderSet);
  await world.step(1 / 60);
  const colliderBuffers: Readonly<ColliderBuffers> | null = world.colliderBuffers;
  const touching: ColliderContactList = await world.colliderContacts();
  const contactsEncoder = device.createCommandEncoder();
  const encodedContacts: ColliderContacts = world.encodeColliderContacts(contactsEncoder);
  device.queue.submit([contactsEncoder.finish()]);
  log.push(
    `${colliderBuffers?.count} ${touching.particles.length} ${(await encodedContacts.read()).boxes.length} ${encodedContacts.capacity}`,
  );
  encodedContacts.destroy();
  // A floor mesh as a collider of the world, and its contacts out.
  const meshMaker: Collider = await createCollider({ device });
  const floor: ColliderMesh = meshMaker.createMesh({ positions: new Float32Array([-5, -2, -5, -5, -2, 5, 5, -2, -5]) });
  const meshColliders: MeshCollider[] = [{ mesh: floor, pose: [0, 0, 0, 0, 0, 0, 1], velocity: [0, 0, 0, 0, 0, 0] }];
  world.setMeshes(meshColliders);
  await world.step(1 / 60);
  const onMesh: MeshContactList = await world.meshContacts();
  const meshContactsEncoder = device.createCommandEncoder();
  const encodedOnMesh: MeshContacts = world.encodeMeshContacts(meshContactsEncoder);
  device.queue.submit([meshContactsEncoder.finish()]);
  const records: ContactRecords<MeshContactList> = encodedOnMesh;
  log.push(`${onMesh.triangles.length} ${(await records.read()).meshes.length} ${colliderBuffers?.meshes}`);
  encodedOnMesh.destroy();
  world.setMeshes([]);
  floor.destroy();
  meshMaker.destroy();
  log.push(
    `${timed.totalMs} ${buffers.spheres.size} ${state.spheres[1]} ${await world.contactCount()} ${searches.steps} ${searches.searches} ${SKIN_OF_RADIUS} ${SLEEP_SPEED_OF_RADIUS} ${await world.sleepingCount()}`,
  );
  world.destroy();

  // The record layouts, for a shader that reads the library's buffers.
  const hit: StructLayout<Record<string, FieldType>> = CastHitRecord;
  const field: FieldLayout | undefined = hit.fields[0];
  const primitive: PrimitiveType = 'vec3f';
  const array: ArrayField = { array: PairCounter, length: 1 };
  log.push(
    `${CastHitRecord.wgsl} ${CastHitRecord.offsets.index} ${CastHitRecord.size} ${field?.offset} ${primitive} ${array.length}`,
  );
  log.push(
    `${STRIDE.sphere} ${STRIDE.orientedBox} ${GPU_STRIDE.cast} ${GPU_STRIDE.sphere} ${GPU_STRIDE.ray} ${PAIR_BYTES} ${PairCounter.offsets.countHi}`,
  );

  const stats: SphereStats | undefined = undefined;
  log.push(String(stats));
  return log;
}

/** Every error class, as a caller tells them apart. */
export function explain(error: unknown): string {
  if (!(error instanceof CollideError)) return String(error);
  if (error instanceof InvalidInputError)
    return `${error.argument}[${error.index}]: ${error.rule === RULES.finite ? 'not finite' : error.rule}`;
  if (error instanceof CapacityError) return `${error.what}: ${error.count} > ${error.capacity}`;
  if (error instanceof NoAdapterError) return `no adapter: ${error.message}`;
  if (error instanceof WebGPUError) return `WebGPU ${error.kind}`;
  if (error instanceof DeviceLostError) return `lost: ${error.reason}`;
  if (error instanceof DestroyedError) return 'destroyed';
  return error.name;
}

/** The Node entry: a dawn.node device, and everything above re-exported. */
export async function useNode(): Promise<string[]> {
  const options: NodeDeviceOptions = {
    timeoutMs: 10_000,
    dawnOptions: [],
    forceFallbackAdapter: false,
    waiting: 'auto',
  };
  const device: GPUDevice = await requestNodeDevice(options);
  yieldWhileWaiting(device, WAIT_SLEEP_MS.last > 0);
  const log = await useIndex(device);
  const again: Collider = await node.createCollider({ device });
  again.destroy();
  device.destroy();
  return [...log, NODE_HELP, SWIFTSHADER_ICDS.join(','), String(dawnInstanceCount())];
}
