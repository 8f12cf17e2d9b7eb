/**
 * The LBVH's walk (its build: ./bvh.wgsl.ts), shared by every query over one: broad phase
 * 'bvh''s pairs, boxes and casts (shaders/broadphase/bvh/) and the mesh queries
 * (shaders/mesh/queries.wgsl.ts). Each query supplies its node test and its leaf visit.
 */
import { BVH_LEAF, BVH_STACK } from '../../src/spatial/bvhShape.js';

/**
 * How many leaves the walks postpone (BvhWalk's `defer`): a nearest hit's walk tests them soon,
 * since each hit prunes what lies farther; a walk that lists every hit or pair, 16 at a time.
 * Measured on SwiftShader against the tests inline at each child: rays on a 1M-triangle knot
 * 4.8x three-mesh-bvh's time -> 2.1x (coherent), 4.9x -> 1.1x (incoherent); broad phase 'bvh'
 * at 64k spheres, pairs 1.3-1.7x faster, raycasts 1.6-1.7x (docs/PERFORMANCE.md).
 */
export const WALK_DEFER = { nearest: 4, list: 16 } as const;

export interface BvhWalk {
  /**
   * Statements that declare `let key: f32` for the internal node `c` (its box in nodes[c].lo,
   * nodes[c].hi): negative when the query misses the box, else an order key (nearer first).
   */
  test: string;
  /** Statements run for each leaf reached: `u` its sorted position, `q` its sphere. */
  visit: string;
  /** Optional: a bool expression of `key` that skips a node when it is popped (nearest casts). */
  skip?: string;
  /**
   * Optional: a bool expression of `child`, an internal left child, that drops it untested. A
   * left child c's leaves are the sorted positions up to c (in Karras's tree a node's index is
   * one end of its range, and a left child's is its last), so the pair walk drops c ≤ k: none of
   * its leaves comes after the query's own.
   */
  dropLeft?: string;
  /**
   * Optional: the statements that load leaf `u` for `visit` (default `let q = sorted[u];`, a
   * sphere; a mesh's walks load their triangle themselves).
   */
  leaf?: string;
  /**
   * Optional: leaves postponed into a private list of this many (≥ 2) and visited in a loop of
   * their own when it fills or the walk ends (Aila and Laine's "while-while" walk). A visit of
   * many statements then appears once in the shader, not at each child, and runs as often as the
   * leaves reached: where a lane's branch is not taken its statements still cost (SwiftShader
   * runs both sides of a branch under a lane mask; a GPU whose lanes diverge, the same), a long
   * visit inline costs every step of the walk. `skip` reads what the visits left, later.
   */
  defer?: number;
  /**
   * Optional: the walk reads the tree as BvhChildBoxes from `children` (a mesh's walks), not as
   * BvhNode from `nodes`: `test` then finds the child's box in `lo` and `hi` (for every child,
   * and a leaf is reached only when its box passes), where otherwise it reads `nodes[c]` (for
   * internal children only; leaves are reached untested).
   */
  children?: boolean;
  /** Optional: the stack's entries (default BVH_STACK, what any tree needs): at least the internal nodes' depth (walkStackFor). */
  stack?: number;
}

/**
 * A depth-first walk of the tree from the root, nearer child first (the right one on a tie):
 * leaves are visited as soon as their parent is (or postponed: `defer`); of the internal children whose box passes, the walk goes on into the nearer
 * and pushes the farther onto a stack of `stack` entries (nodes and keys), which it pops when a node
 * has no child to go on into. Keeping the next node out of the stack halves the stack's traffic
 * (on SwiftShader a private array indexed at run time lives in memory). A node is skipped when
 * `skip` holds for its key, checked after its siblings' leaves were visited, as a node popped
 * right after them would be. Expects `nodes` bound (and `sorted`, for the default `leaf`) and
 * `sphereCount` (u32 expression, the leaves, > 0) in scope. The stack bound is the module's comment: at most 92 entries.
 */
export function bvhWalk(
  { test, visit, skip, dropLeft, leaf = 'let q = sorted[u];', defer, children, stack = BVH_STACK }: BvhWalk,
  sphereCount: string,
): string {
  const skips = (key: string): string => (skip ? skip.replaceAll('key', key) : 'false');
  // A leaf reached: visited now, or postponed.
  const reach = defer
    ? 'walkLeaves[walkLeafCount] = u;\n          walkLeafCount += 1u;'
    : `${leaf}\n          ${visit}`;
  const walk = /* wgsl */ `while (walking${defer ? ` && walkLeafCount <= ${defer - 2}u` : ''}) {
      var walkNext = 0u;
      var walkNextKey = 0.0;
      var walkFound = false;
      ${children ? 'let walkNode = children[node];' : ''}
      ${['left', 'right']
        .map((side) => {
          // The child's box and what follows when it passes: a postponed or visited leaf, or an
          // internal node to go on into or push.
          const internal = `if (key >= 0.0) {
            if (!walkFound) {
              walkNext = c;
              walkNextKey = key;
              walkFound = true;
            } else if (key <= walkNextKey) {
              stack[sp] = walkNext;
              ${skip ? 'stackKey[sp] = walkNextKey;' : ''}
              sp += 1u;
              walkNext = c;
              walkNextKey = key;
            } else {
              stack[sp] = c;
              ${skip ? 'stackKey[sp] = key;' : ''}
              sp += 1u;
            }
          }`;
          if (children)
            return `{
        let child = walkNode.${side};
        let c = child;
        let lo = walkNode.${side}Lo;
        let hi = walkNode.${side}Hi;
        ${test}
        if ((child & ${BVH_LEAF}u) != 0u) {
          if (key >= 0.0) {
            let u = child & ${BVH_LEAF - 1}u;
            ${reach}
          }
        } else${side === 'left' && dropLeft ? ` if (!(${dropLeft}))` : ''} {
          ${internal}
        }
      }`;
          return `{
        let child = nodes[node].${side};
        if ((child & ${BVH_LEAF}u) != 0u) {
          let u = child & ${BVH_LEAF - 1}u;
          ${reach}
        } else${side === 'left' && dropLeft ? ` if (!(${dropLeft}))` : ''} {
          let c = child;
          ${test}
          ${internal}
        }
      }`;
        })
        .join('\n      ')}
      if (walkFound && !(${skips('walkNextKey')})) {
        node = walkNext;
      } else {
        // Pop the next node that is not skipped, or end.
        loop {
          if (sp == 0u) {
            walking = false;
            break;
          }
          sp -= 1u;
          node = stack[sp];
          if (!(${skips('stackKey[sp]')})) {
            break;
          }
        }
      }
    }`;
  return /* wgsl */ `{
    var stack: array<u32, ${stack}>;
    ${skip ? `var stackKey: array<f32, ${stack}>;` : '// No skip: the stack holds no keys (each store to a private array is a store to memory on SwiftShader).'}
    var sp = 0u;
    var node = 0u;
    var walking = true;
    ${defer ? `var walkLeaves: array<u32, ${defer}>;\n    var walkLeafCount = 0u;` : ''}
    if (${sphereCount} == 1u) {
      let u = 0u;
      ${reach}
      walking = false;
    }
    ${
      defer
        ? `loop {
      ${walk}
      for (var walkLeaf = 0u; walkLeaf < walkLeafCount; walkLeaf += 1u) {
        let u = walkLeaves[walkLeaf];
        ${leaf}
        ${visit}
      }
      walkLeafCount = 0u;
      if (!walking) {
        break;
      }
    }`
        : walk
    }
  }`;
}

/**
 * The entry distance of the ray (origin a, unit direction n) into box [lo − g, hi + g] within
 * [0, tStop], or −1 when it misses. An axis the ray does not move along is a bound on the origin.
 * The box is grown after it is moved to the origin, (lo − a) − g and (hi − a) + g, so every
 * rounding is relative to offsets from the cast's origin, none to the size of the coordinates:
 * an offset that decides the test is within the cast's length and reach, and the slack's 2^-20
 * of those covers it (bvhCastSlack); grown first, lo − g would round by half an ulp of the
 * coordinates themselves.
 */
export const rayBoxEntry = /* wgsl */ `
fn rayBoxEntry(a: vec3f, n: vec3f, tStop: f32, lo: vec3f, hi: vec3f, g: vec3f) -> f32 {
  // The three axes at once (on SwiftShader a loop over an axis index, with its branches, costs
  // more than the arithmetic): each moving axis bounds t by its two planes; each still one (no
  // division by its 0) must hold the origin between them. The same operations as axis by axis.
  let still = n == vec3f(0.0);
  let d = select(n, vec3f(1.0), still);
  let dlo = (lo - a) - g;
  let dhi = (hi - a) + g;
  let ta = dlo / d;
  let tb = dhi / d;
  let near = select(min(ta, tb), vec3f(0.0), still);
  let far = select(max(ta, tb), vec3f(tStop), still);
  let t0 = max(max(0.0, near.x), max(near.y, near.z));
  let t1 = min(min(tStop, far.x), min(far.y, far.z));
  let outside = any(still & ((dlo > vec3f(0.0)) | (dhi < vec3f(0.0))));
  return select(-1.0, t0, t0 <= t1 && !outside);
}
`;
