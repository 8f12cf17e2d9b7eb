/**
 * The GPU methods of the query suites, from the broad-phase registry (src/broadphase/registry.ts):
 * `gpu-auto` and `gpu-<phase>` for every phase that serves the query, in the registry's order. A
 * phase added to the registry is benched with no change here; the peers' names are the suites'.
 */
import { phasesServing, type QueryKind } from '../src/broadphase/index.js';
import { BROADPHASES, type Broadphase } from '../src/options.js';

/** The bench's name for a run of the Collider with `broadphase`: `gpu-auto`, `gpu-grid`, `gpu-all-pairs`, ... */
export function gpuMethod(broadphase: Broadphase): string {
  return `gpu-${broadphase}`;
}

/** `gpu-auto`, then `gpu-<phase>` for each phase serving `query`. */
export function gpuMethods(query: QueryKind): string[] {
  return [gpuMethod('auto'), ...phasesServing(query).map(gpuMethod)];
}

/** The broad phase a GPU method runs ('auto' for `gpu-auto`), or undefined for a peer's method. */
export function broadphaseOf(method: string): Broadphase | undefined {
  return BROADPHASES.find((broadphase) => gpuMethod(broadphase) === method);
}

/** The methods that test every sphere against every other, box or cast: their time grows with the product, which estimates the next size's. */
export const BRUTE_FORCE_METHODS: ReadonlySet<string> = new Set([gpuMethod('all-pairs'), 'cpu-brute', 'three']);
