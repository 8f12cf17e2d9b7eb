/**
 * The kinematic boxes' own motion in the particle world (./colliders.wgsl.ts has the overview):
 * colliderSpeed, before a step's gather, the fastest a box can send a particle in the step (every
 * reach counts it: formula.reach); colliderMove, after each substep, each box's pose advanced by
 * its velocity. And the speed and the travel of a box, which colliderFind grows its search by.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { ParticleParams, ParticleStats, WideBox } from './layout.js';
import { flatWorkgroup } from '../common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, WG } from '../../src/gpu/kernel.js';

export const colliderSpeedBindings = bindings({
  params: uniform('ParticleParams'),
  colliderPoses: readOnly('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
  stats: readWrite('ParticleStats'),
});

export const colliderMoveBindings = bindings({
  params: uniform('ParticleParams'),
  colliderPoses: readWrite('array<vec4f>'),
  colliderVelocities: readOnly('array<vec4f>'),
});

const header = () => /* wgsl */ `
${ParticleParams.wgsl}
${WideBox.wgsl}
${ParticleStats.wgsl}
${flatWorkgroup}
${WG.wgsl}
`;

/**
 * The speed of box k's fastest point (its centre's speed plus its rotation's at its farthest
 * corner), from its velocities (linear, angular: two vec4 a box).
 */
export const boxSpeed = (k: string): string =>
  `(length(colliderVelocities[2u * ${k}].xyz) + length(colliderVelocities[2u * ${k} + 1u].xyz) * length(colliderPoses[3u * ${k} + 1u].xyz))`;

/** How far box k may travel in a step of frameDt. */
export const boxTravel = (k: string): string => `${boxSpeed(k)} * params.frameDt`;

export const colliderSpeedEntry = entry({
  name: 'colliderSpeed',
  index: 'k',
  bound: 'params.boxCount + params.meshCount',
});

/**
 * Before the gather: the fastest a box can send a particle within the step, the largest over
 * the boxes of (1 + restitution) × the speed of its fastest point (the centre's speed plus the
 * rotation's at its farthest corner): a free particle struck by a box at speed V leaves at up to
 * (1 + e)·V. Every moving particle's reach counts it, up to STRUCK_REACH of its radius
 * (formula.reach), so that a resting particle a box or its chain of contacts strikes has the
 * neighbours it then runs into in its list, and solves them.
 */
export const colliderSpeedShader = () => wgsl`
${header()}
${colliderSpeedBindings.wgsl}

${colliderSpeedEntry.wgsl}
  let speed = (1.0 + params.restitution) * ${boxSpeed('k')};
  if (speed > 0.0) {
    atomicMax(&stats.boxSpeedBits, bitcast<u32>(speed));
  }
}
`;

export const colliderMoveEntry = entry({
  name: 'colliderMove',
  index: 'k',
  bound: 'params.boxCount + params.meshCount',
});

/** After a substep: each kinematic box's pose advances by its velocity over the substep. */
export const colliderMoveShader = () => wgsl`
${header()}
${colliderMoveBindings.wgsl}

${colliderMoveEntry.wgsl}
  let h = params.dt;
  let v = colliderVelocities[2u * k].xyz;
  let omega = colliderVelocities[2u * k + 1u].xyz;
  if (any(v != vec3f(0.0))) {
    colliderPoses[3u * k] = vec4f(colliderPoses[3u * k].xyz + v * h, 0.0);
  }
  if (any(omega != vec3f(0.0))) {
    let q = colliderPoses[3u * k + 2u];
    let dq = vec4f(omega * q.w + cross(omega, q.xyz), -dot(omega, q.xyz)) * (0.5 * h);
    let next = q + dq;
    colliderPoses[3u * k + 2u] = next / length(next);
  }
}
`;
