/**
 * The sweeps over a step's coloured pairs (colouring.wgsl.ts colours them; solver.wgsl.ts has the
 * overview). Per sweep, on one bodies buffer, in place:
 *   pairSolve       one dispatch per colour: each pair of the colour whose band the substep
 *                   has reached (colourPlan.wgsl.ts: the first substep in which the pair may
 *                   close), from its owner's entry, solves its accumulated, clamped impulses (normal, Coulomb
 *                   friction, and the position correction's on the pseudo-velocities) with both
 *                   particles' whole masses, and applies them to both at once (Gauss–Seidel: the
 *                   next colour sees them); the mirror entry gets the same impulses
 *   pairSolveTail   the colours after those the host dispatches one by one (colourPlan's tail,
 *                   where few pairs are left): one workgroup, colour after colour
 *   overflowSolve   each particle with overflow pairs: one Jacobi sweep over them with its mass
 *                   split among them, from the bodies the colours left, into `delta`
 *   overflowApply   those changes added to the bodies
 * then particleSettle (substep.wgsl.ts) solves each particle's walls and collider contacts.
 * A pair is written by one thread and a body by one thread per dispatch: no atomics, and the
 * result does not depend on the order of a colour's pairs.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { header, coneScale } from './common.wgsl.js';
import { colouringHeader, PASS_INDEX } from './colouring.wgsl.js';
import { bindings, uniform, dynamicUniform, readOnly, readWrite, entry, constSize } from '../../src/gpu/kernel.js';

/** A sweep's colour (slot.x) and band (slot.y), at a dynamic offset (src/particles/solverBuffers.ts, sweepSlot). */
const sweepSlot = { slot: dynamicUniform(PASS_INDEX) } as const;

export const pairSolveBindings = bindings({
  params: uniform('ParticleParams'),
  ...sweepSlot,
  table: readOnly('array<u32>'),
  pairs: readOnly('array<vec2u>'),
  contacts: readWrite('array<ParticleContact>'),
  mirror: readOnly('array<u32>'),
  bodies: readWrite('array<ParticleBody>'),
});

export const overflowSolveBindings = bindings({
  params: uniform('ParticleParams'),
  start: readOnly('array<u32>'),
  bodies: readOnly('array<ParticleBody>'),
  contacts: readWrite('array<ParticleContact>'),
  state: readOnly('array<u32>'),
  masks: readOnly('array<u32>'),
  table: readOnly('array<u32>'),
  delta: readWrite('array<ParticleBody>'),
});

export const overflowApplyBindings = bindings({
  params: uniform('ParticleParams'),
  table: readOnly('array<u32>'),
  delta: readOnly('array<ParticleBody>'),
  bodies: readWrite('array<ParticleBody>'),
});

/**
 * Statements of a pair's solve (in scope: `impulse`, `pseudo`, `geometry` (normal, push aim),
 * `aim`, `k`, `rel` (the partner's velocity less this particle's), `vpRel` (the same of the
 * pseudo-velocities)): binds `normal`, `lt` (the new accumulated impulses), `change` (the change
 * of impulse on the partner) and `pushed`, `pushChange` (the position correction's).
 */
const pairStatements = (friction: boolean): string => /* wgsl */ `
        let n = geometry.xyz;
        let vn = dot(rel, n);
        let normal = max(impulse.x + (aim - vn) / k, 0.0);
        var lt = impulse.yzw;
${
  friction
    ? `        if (params.friction > 0.0) {
          // Coulomb's cone: the friction impulse lt − vt/k, shortened to at most friction·λn.
          var next = lt - (rel - vn * n) / k;
          next = next * coneScale(dot(next, next), params.friction * normal);
          lt = next;
        }`
    : ''
}
        let change = (normal - impulse.x) * n + (lt - impulse.yzw);
        // The position correction, on pseudo-velocities that never enter the velocity.
        let pushed = max(pseudo + (geometry.w - dot(vpRel, n)) / k, 0.0);
        let pushChange = (pushed - pseudo) * n;`;

/** One pair's solve, from `item` (its owner's entry and the owner) of the pair list. */
const pairSolveStatements = (friction: boolean, skip: 'return' | 'continue'): string => /* wgsl */ `
  let e = item.x;
  let t = item.y;
  let c = contacts[e];
  let u = c.nbr;
  let bt = bodies[t];
  let bu = bodies[u];
  let wt = bt.v.w;
  let wu = bu.v.w;
  let k = wt + wu;
  let impulse = c.impulse;
  let pseudo = c.pseudo;
  let geometry = c.normal;
  let aim = c.aim;
  let rel = bu.v.xyz - bt.v.xyz;
  let vpRel = bu.p.xyz - bt.p.xyz;
${pairStatements(friction)}
  if (all(change == vec3f(0.0)) && all(pushChange == vec3f(0.0)) && normal == impulse.x && all(lt == impulse.yzw) && pushed == pseudo) {
    // Nothing changed (a speculative pair that stays open): no write.
    ${skip};
  }
  bodies[t] = ParticleBody(vec4f(bt.v.xyz - wt * change, wt), vec4f(bt.p.xyz - wt * pushChange, bt.p.w));
  if (wu > 0.0) {
    bodies[u] = ParticleBody(vec4f(bu.v.xyz + wu * change, wu), vec4f(bu.p.xyz + wu * pushChange, bu.p.w));
  }
  contacts[e].impulse = vec4f(normal, lt);
  contacts[e].pseudo = pushed;
  let m = mirror[e - params.entryBase];
  if (m != NO_MIRROR) {
    // The partner's entry: the same impulses, the friction on the partner's partner negated.
    contacts[params.entryBase + m].impulse = vec4f(normal, -lt);
    contacts[params.entryBase + m].pseudo = pushed;
  }`;

export const pairSolveEntry = entry({
  name: 'pairSolve',
  index: 'i',
  bound: 'select(0u, table[TABLE_RANGES + 2u * (slot.x * BANDS + slot.y) + 1u], slot.x < table[TABLE_TAIL])',
});

/**
 * One colour's pairs (`slot.x`) of bands up to `slot.y` (the first of its range), each from its
 * owner's entry; none for a colour of the tail
 * (pairSolveTail's: colourPlan gives it no workgroups, and a direct dispatch, over every
 * particle, returns here). A colour holds at most one pair a moving particle, so a dispatch over
 * the particles covers it. Without `friction`, the friction code is left out.
 */
export const pairSolveShader = ({ friction = true }: { friction?: boolean } = {}) => wgsl`
${header()}
${colouringHeader}
${pairSolveBindings.wgsl}
${coneScale}

${pairSolveEntry.wgsl}
  let item = pairs[table[TABLE_RANGES + 2u * slot.x * BANDS] + i];
${pairSolveStatements(friction, 'return')}
}
`;

export const pairSolveTailBindings = bindings({
  params: uniform('ParticleParams'),
  ...sweepSlot,
  table: readOnly('array<u32>'),
  pairs: readOnly('array<vec2u>'),
  contacts: readWrite('array<ParticleContact>'),
  mirror: readOnly('array<u32>'),
  bodies: readWrite('array<ParticleBody>'),
});

/**
 * The tail's workgroup: small, since its barriers cost with its size on a software adapter
 * (SwiftShader, a scratch measure: 32 barriers in one workgroup of 16 threads 54 µs, of 64
 * threads 176 µs, of 256 threads 694 µs), and its pairs are few.
 */
const TAIL = constSize('TAIL', 32);

// One workgroup (its index, always 0, unused): the threads take the pairs by `lid`.
export const pairSolveTailEntry = entry({ name: 'pairSolveTail', size: TAIL, index: 'group', per: 'workgroup' });

/**
 * The tail (colourPlan: the colours from TABLE_TAIL on, few pairs), its pairs of bands up to
 * `slot.y`: one workgroup solves them colour after colour, each colour's pairs spread over its
 * threads, with a barrier between colours (what separate dispatches would order), so the same as
 * a dispatch a colour.
 */
export const pairSolveTailShader = ({ friction = true }: { friction?: boolean } = {}) => wgsl`
${header()}
${colouringHeader}
${pairSolveTailBindings.wgsl}
${coneScale}

${TAIL.wgsl}
${pairSolveTailEntry.wgsl}
  for (var colour = table[TABLE_TAIL]; colour < PALETTE; colour++) {
    let begin = table[TABLE_RANGES + 2u * colour * BANDS];
    let count = table[TABLE_RANGES + 2u * (colour * BANDS + slot.y) + 1u];
    if (count == 0u) {
      continue;
    }
    for (var i = lid; i < count; i += TAIL) {
      let item = pairs[begin + i];
${pairSolveStatements(friction, 'continue')}
    }
    storageBarrier();
  }
}
`;

export const overflowSolveEntry = entry({ name: 'overflowSolve', index: 'j', bound: 'table[TABLE_OVERFLOW]' });

/**
 * A particle of the overflow: one Jacobi sweep over its overflow pairs, with k = wA·mA + wB·mB
 * (m: each particle's overflow pairs), from the bodies as the colours left them; both particles of
 * a pair compute the same impulses from their own entries (inputs that differ by exact sign
 * flips), so the pair stays equal and opposite. The changes go to `delta` (overflowApply adds them).
 */
export const overflowSolveShader = ({ friction = true }: { friction?: boolean } = {}) => wgsl`
${header()}
${colouringHeader}
${overflowSolveBindings.wgsl}
${coneScale}

${overflowSolveEntry.wgsl}
  let t = table[TABLE_LIST + j];
  let body = bodies[t];
  let w = body.v.w;
  let v = body.v.xyz;
  let vp = body.p.xyz;
  let wm = w * f32(masks[MASK_WORDS * t + MASK_OVERFLOW]);
  var dv = vec3f(0.0);
  var dvp = vec3f(0.0);
  let first = params.entryBase + min(start[t], params.entryCapacity);
  let last = params.entryBase + min(start[t + 1u], params.entryCapacity);
  for (var e = first; e < last; e++) {
    if (state[e - params.entryBase] != PAIR_OVERFLOW) {
      continue;
    }
    let u = contacts[e].nbr;
    let impulse = contacts[e].impulse;
    let pseudo = contacts[e].pseudo;
    let geometry = contacts[e].normal;
    let aim = contacts[e].aim;
    let qb = bodies[u];
    let k = wm + qb.v.w * f32(masks[MASK_WORDS * u + MASK_OVERFLOW]);
    let rel = qb.v.xyz - v;
    let vpRel = qb.p.xyz - vp;
${pairStatements(friction)}
    dv -= w * change;
    dvp -= w * pushChange;
    contacts[e].impulse = vec4f(normal, lt);
    contacts[e].pseudo = pushed;
  }
  delta[j] = ParticleBody(vec4f(dv, 0.0), vec4f(dvp, 0.0));
}
`;

export const overflowApplyEntry = entry({ name: 'overflowApply', index: 'j', bound: 'table[TABLE_OVERFLOW]' });

/** The overflow's changes of velocity and pseudo-velocity added to its particles' bodies. */
export const overflowApplyShader = () => wgsl`
${header()}
${colouringHeader}
${overflowApplyBindings.wgsl}

${overflowApplyEntry.wgsl}
  let t = table[TABLE_LIST + j];
  let body = bodies[t];
  let d = delta[j];
  bodies[t] = ParticleBody(vec4f(body.v.xyz + d.v.xyz, body.v.w), vec4f(body.p.xyz + d.p.xyz, body.p.w));
}
`;
