/**
 * Wide boxes in the particle world: a box whose reach covers more of the particle grid than
 * WIDE_CELLS (./colliders.wgsl.ts) is left by colliderFind, whose one thread a box would walk
 * most of the particles under it (a floor beneath a million: 464 GPU ms a step on an H200), to
 * colliderFindWide, a thread a particle, which tests each moving particle against each such box
 * (up to WIDE_BOXES a step, in ParticleStats.wide) as colliderFind's walk tests the particles it
 * visits, into the same found-slots. colliderList orders the found boxes by index, so the result
 * does not depend on which pass found a box. Where the step dispatches indirectly,
 * colliderWideArgs sizes colliderFindWide's dispatch: none when no box was left to it.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams, ParticleBody, ParticleStats, WideBox, WIDE_BOXES, LIST_ARGS } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { writeArgs } from './common.wgsl.js';
import { boxMath } from '../boxes.wgsl.js';
import { colliderGeometry } from './colliderGeometry.wgsl.js';
import { boxTravel } from './boxMotion.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG, ONE_THREAD } from '../../src/gpu/kernel.js';

const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${ParticleBody.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${flatWorkgroup}
${boxMath}
${WG.wgsl}
const WIDE_BOXES: u32 = ${WIDE_BOXES}u;
`;

export const colliderFindWideBindings = bindings({
  params: uniform('ParticleParams'),
  colliderPoses: readOnly('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
  current: readOnly('array<vec4f>'),
  bodies: readOnly('array<ParticleBody>'),
  found: readWrite('array<atomic<u32>>'),
  stats: readWrite('ParticleStats'),
});

export const colliderFindWideEntry = entry({
  name: 'colliderFindWide',
  index: 'u',
  bound: 'params.count',
  exit: 'atomicLoad(&stats.wideCount) == 0u',
});

/**
 * Each moving particle (bucket position u) against the boxes colliderFind left to it (the wide
 * ones, ParticleStats.wide): the same test and the same found-slots as colliderFind's walk.
 */
export const colliderFindWideShader = () => wgsl`
${header()}
${colliderGeometry}
${colliderFindWideBindings.wgsl}

${colliderFindWideEntry.wgsl}
  let body = bodies[u].v;
  if (body.w <= 0.0) {
    return;
  }
  let s = current[u];
  let struck = min((1.0 + params.restitution) * bitcast<f32>(atomicLoad(&stats.fastestBits)) * params.frameDt, s.w);
  let wide = min(atomicLoad(&stats.wideCount), WIDE_BOXES);
  for (var i = 0u; i < wide; i++) {
    let k = stats.wide[i].box;
    let travel = ${boxTravel('k')};
    let g = boxGeometry(s, colliderPoses[3u * k].xyz, colliderPoses[3u * k + 1u].xyz, colliderPoses[3u * k + 2u]);
    if (g.gap <= params.margin + length(body.xyz) * params.frameDt + travel + struck) {
      let slot = atomicAdd(&found[u], 1u);
      if (slot < params.foundSlots) {
        atomicStore(&found[params.count + u * params.foundSlots + slot], k);
      }
      atomicMax(&stats.boxSlotsNeeded, slot + 1u);
    }
  }
}
`;

export const colliderWideArgsBindings = bindings({
  params: uniform('ParticleParams'),
  stats: readWrite('ParticleStats'),
  args: readWrite('array<u32>'),
});

export const colliderWideArgsEntry = entry({ name: 'colliderWideArgs', size: ONE_THREAD });

/**
 * One thread, where the step dispatches indirectly: colliderFindWide's arguments (x, y, 1), a
 * thread a particle where colliderFind left it a box, else none (folded as dispatchFolded does).
 */
export const colliderWideArgsShader = () => wgsl`
${header()}
${colliderWideArgsBindings.wgsl}
${writeArgs}

${colliderWideArgsEntry.wgsl}
  writeArgs(${LIST_ARGS.wide}u, select(0u, params.count, atomicLoad(&stats.wideCount) > 0u));
}
`;
