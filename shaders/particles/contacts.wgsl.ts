/**
 * The particle world's contacts out (world.encodeColliderContacts, world.encodeMeshContacts):
 * the last step's collider slots as records, appended behind a counter that keeps counting past
 * the records' capacity, and the indirect arguments covering them. A slot holds a box (its id
 * below boxCount) or a mesh's triangle (./meshes.wgsl.ts: the triangle in slotTriangles).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams, ParticleColliderContact } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { EMPTY_SLOT } from './colliders.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../src/gpu/kernel.js';

export const colliderContactsBindings = bindings({
  params: uniform('ParticleParams'),
  slots: readOnly('array<ParticleColliderContact>'),
  records: readWrite('array<vec4u>'),
  counter: readWrite('array<atomic<u32>, 2>'),
});

export const colliderContactsArgsBindings = bindings({
  params: uniform('ParticleParams'),
  counter: readOnly('array<u32, 2>'),
  args: readWrite('array<u32, 3>'),
  records: readOnly('array<vec4u>'),
});

export const meshColliderContactsBindings = bindings({
  params: uniform('ParticleParams'),
  slots: readOnly('array<ParticleColliderContact>'),
  slotTriangles: readOnly('array<vec4f>'),
  records: readWrite('array<vec4u>'),
  counter: readWrite('array<atomic<u32>, 2>'),
});

const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${ParticleColliderContact.wgsl}
${flatWorkgroup}
${WG.wgsl}
const EMPTY_SLOT: u32 = ${EMPTY_SLOT}u;
`;

export const colliderContactsEntry = entry({
  name: 'colliderContacts',
  index: 'id',
  exit: 'params.boxCount == 0u',
  bound: 'params.count',
});

/**
 * The last step's collider contacts out (world.encodeColliderContacts), one thread per particle:
 * a record (particle, box, normal impulse's f32 bits, 0) per slot, appended; the counter keeps
 * counting past the records' capacity.
 */
export const colliderContactsShader = () => wgsl`
${header()}
${colliderContactsBindings.wgsl}

${colliderContactsEntry.wgsl}
  let base = (params.rangeBase + id) * params.boxSlots;
  for (var i = 0u; i < params.boxSlots; i++) {
    let c = slots[base + i];
    if (c.box == EMPTY_SLOT) {
      break;
    }
    if (c.box > params.boxCount) {
      continue; // a mesh's triangle (meshContacts)
    }
    let at = atomicAdd(&counter[0], 1u);
    if (at < arrayLength(&records)) {
      records[at] = vec4u(id, c.box - 1u, bitcast<u32>(c.impulse.x), 0u);
    }
  }
}
`;

export const colliderContactsArgsEntry = entry({ name: 'colliderContactsArgs', size: ONE_THREAD });

/** One thread: the indirect arguments (x, y, 1) covering min(count, capacity) records at 64 threads a workgroup, folded past the device's limit. */
export const colliderContactsArgsShader = () => wgsl`
${header()}
${colliderContactsArgsBindings.wgsl}

${colliderContactsArgsEntry.wgsl}
  let n = min(counter[0], arrayLength(&records));
  let groups = (n + 63u) / 64u;
  var y = 1u;
  if (groups > params.maxGroups) {
    y = (groups + params.maxGroups - 1u) / params.maxGroups;
  }
  args[0] = (groups + y - 1u) / y;
  args[1] = select(0u, y, groups > 0u);
  args[2] = 1u;
}
`;

export const meshColliderContactsEntry = entry({
  name: 'meshColliderContacts',
  index: 'id',
  exit: 'params.meshCount == 0u',
  bound: 'params.count',
});

/**
 * The last step's mesh contacts out (world.encodeMeshContacts), one thread per particle: a
 * record (particle, mesh, triangle, normal impulse's f32 bits) per triangle slot, appended; the
 * counter keeps counting past the records' capacity.
 */
export const meshColliderContactsShader = () => wgsl`
${header()}
${meshColliderContactsBindings.wgsl}

${meshColliderContactsEntry.wgsl}
  let base = (params.rangeBase + id) * params.boxSlots;
  for (var i = 0u; i < params.boxSlots; i++) {
    let c = slots[base + i];
    if (c.box == EMPTY_SLOT) {
      break;
    }
    if (c.box > params.boxCount) {
      let at = atomicAdd(&counter[0], 1u);
      if (at < arrayLength(&records)) {
        let tri = 3u * (id * params.boxSlots + i);
        records[at] = vec4u(id, bitcast<u32>(slotTriangles[tri].w), bitcast<u32>(slotTriangles[tri + 1u].w), bitcast<u32>(c.impulse.x));
      }
    }
  }
}
`;
