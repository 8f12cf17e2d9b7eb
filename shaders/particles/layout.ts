/** The particle solver's structs: its parameters, bodies, contacts, rest, walls, statistics and the lists it keeps. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../src/layout.js';

/**
 * A particle world's step parameters (uniform; src/particles/solver.ts, shaders/particles/).
 * `dt` is the substep h; `frameDt` the step the contact list is found for (substeps · h).
 * Two copies alternate between steps: `entryBase`/`prevEntryBase` and `rangeBase`/`prevRangeBase`
 * select this step's and the previous step's halves of the contact and range buffers.
 */
export const ParticleParams = defineStruct('ParticleParams', {
  count: 'u32',
  dt: 'f32',
  frameDt: 'f32',
  restitution: 'f32',
  gravity: 'vec3f',
  friction: 'f32',
  boundsMin: 'vec3f',
  bounded: 'u32',
  boundsMax: 'vec3f',
  percent: 'f32',
  slop: 'f32',
  maxPushSpeed: 'f32',
  restitutionThreshold: 'f32',
  margin: 'f32',
  /** How much farther than `margin` a search lists pairs, so that later steps may keep its lists. */
  skin: 'f32',
  entryCapacity: 'u32',
  entryBase: 'u32',
  prevEntryBase: 'u32',
  rangeBase: 'u32',
  prevRangeBase: 'u32',
  /** Substeps a step, and sweeps a substep (particleSplit runs them for a free particle). */
  substeps: 'u32',
  iterations: 'u32',
  /** The device's most workgroups in one dimension of a dispatch (particleBusyArgs folds by it). */
  maxGroups: 'u32',
  /**
   * 1 when this step searches, 0 when it keeps the lists: particleDecide's choice, copied here
   * on the GPU (from ParticleReuse.searching) before the passes that run on one outcome only.
   */
  searching: 'u32',
  /** 1 when a step's final bodies are in buffer B (an odd number of body passes), else 0 (A). */
  resultInB: 'u32',
  /** A particle slower than this at the end of a step is at rest (length units per second). */
  sleepSpeed: 'f32',
  /** Seconds at rest after which a particle may sleep (infinity: never). */
  sleepTime: 'f32',
  /** Box colliders (world.setColliders): 0 when none (the collider passes are then not recorded). */
  boxCount: 'u32',
  /** Collider contacts each particle may hold (ParticleColliderContact slots; grown on demand). */
  boxSlots: 'u32',
  /**
   * Colliders each particle may be found near in a step (its found list, which meshReduce
   * and colliderList make its slots of; grown on demand): `boxSlots` without meshes; with them,
   * more, since most of the triangles within a particle's reach are dropped.
   */
  foundSlots: 'u32',
  /**
   * The fastest a moving box can send a particle this step (length units per second): 0 without
   * kinematic boxes, else written on the GPU (colliderSpeed, copied from ParticleStats.boxSpeedBits)
   * before the first pass that reads it. Every moving particle's reach counts it (formula.reach).
   */
  boxSpeed: 'f32',
  /**
   * Mesh colliders (world.setMeshes): 0 when none. Their poses and velocities follow the boxes'
   * in the colliders' buffers (collider boxCount + m is mesh m), and a contact with triangle u of
   * mesh m holds the id boxCount + the mesh's first id + u in its slot (MeshFindParams.idBase).
   */
  meshCount: 'u32',
});

/**
 * A particle's solver velocities, in bucket order: `v` is (velocity, inverse mass), `p` the
 * pseudo-velocity of the position correction and, in w, a word of the step's passes: −1 for a
 * sleeper (particleSleep); before a substep's prepare, colliderPrepare's count of the particle's
 * collider contacts; 0 from the substep's prepare on.
 */
export const ParticleBody = defineStruct('ParticleBody', {
  v: 'vec4f',
  p: 'vec4f',
});

/**
 * One entry of a particle's contact list (both particles of a pair hold one, bit-identical up to
 * the sign of the vectors): `impulse` is the accumulated normal impulse and, in yzw, the
 * accumulated friction impulse on the partner; `nbr` the partner's position in bucket order,
 * with the top bit (DORMANT_BIT) set while the pair takes no part in the step's solve (the
 * first prepare decides: formula.pairReach; then the solve skips the entry), `id` the partner's
 * index; `normal` the unit normal toward the partner (xyz) and the pseudo-velocity the position
 * correction aims at (w), both fixed for a substep (positions move only after its sweeps); `aim`
 * the normal velocity the solve aims at (in the first entry of a run of dormant entries: the
 * bits of the entry after the run, for the later passes to skip it); `pseudo` the accumulated
 * position-correction impulse of this substep.
 */
export const ParticleContact = defineStruct('ParticleContact', {
  impulse: 'vec4f',
  normal: 'vec4f',
  nbr: 'u32',
  id: 'u32',
  aim: 'f32',
  pseudo: 'f32',
});

/**
 * A particle's sleep record, by particle index (storage): where it ended the last step, its time
 * at rest (seconds), whether it slept in the last step, how many list entries it had then (a
 * shorter list wakes it: a support may have left), and whether it was static.
 */
export const ParticleRest = defineStruct('ParticleRest', {
  position: 'vec3f',
  time: 'f32',
  slept: 'u32',
  entries: 'u32',
  isStatic: 'u32',
  /** 1 when particleSleep found a contact of its deeper than slop + SLEEP_OVERLAP × the smaller radius this step (read by the write-back: not at rest). */
  deep: 'u32',
});

/**
 * A particle's contacts with the walls, one per axis (the nearer wall), by particle index:
 * `impulse[a]` = (normal impulse, side: −1 lower, +1 upper, 0 none, friction impulse along the
 * two other axes); `aim` and `pseudo` per axis as in ParticleContact.
 */
export const ParticleWalls = defineStruct('ParticleWalls', {
  impulseX: 'vec4f',
  impulseY: 'vec4f',
  impulseZ: 'vec4f',
  aim: 'vec4f',
  pseudo: 'vec4f',
});

/**
 * Where each list's indirect arguments (x, y, z) start in the solve's dispatch buffer, in u32s:
 * the busy list's and the settle list's (particleBusyArgs), and colliderFindWide's (colliderWideArgs).
 */
export const LIST_ARGS = { busy: 0, settle: 4, wide: 8, boxed: 12, walled: 16, settleWalls: 20 } as const;

/** A box colliderFind leaves to colliderFindWide (ParticleStats.wide). */
export const WideBox = defineStruct('WideBox', { box: 'u32' });

/** The most boxes a step leaves to colliderFindWide; past them, colliderFind walks them itself. */
export const WIDE_BOXES = 32;

/**
 * Counters of a particle step (storage, atomics): the largest speed (f32 bits, for the search
 * margin), touching pairs of the last step, nonzero when the contact lists must be searched again
 * (the f32 bits of the largest move since the last search past its allowance, or infinity's for
 * a changed particle), the particles asleep in the step, all four cleared at each step; and the largest contact-list length any
 * step of the call asked for (entries beyond `entryCapacity` are not stored; the host grows and
 * re-runs).
 */
export const ParticleStats = defineStruct('ParticleStats', {
  maxSpeedBits: 'atomic<u32>',
  touching: 'atomic<u32>',
  movedBits: 'atomic<u32>',
  /** Particles asleep in the last step (particleSleep). */
  asleep: 'atomic<u32>',
  /** The largest speed of a moving particle this step (f32 bits; with colliders only: colliderFind's reach). */
  fastestBits: 'atomic<u32>',
  /** The fastest a moving box can send a particle this step (f32 bits; colliderSpeed), copied to ParticleParams.boxSpeed. */
  boxSpeedBits: 'atomic<u32>',
  /** Boxes colliderFind left to colliderFindWide this step (their indices in `wide`, up to WIDE_BOXES). */
  wideCount: 'atomic<u32>',
  entriesNeeded: 'atomic<u32>',
  /** The most colliders any particle was found near in a step of the call (those beyond `foundSlots` are not stored). */
  boxSlotsNeeded: 'atomic<u32>',
  /**
   * The most colours a step of the call would have the sweeps dispatch one by one, those before
   * its tail (colourPlan): the host dispatches as many in its next call (src/particles/solver.ts,
   * colourSlots).
   */
  colourSlotsNeeded: 'atomic<u32>',
  /**
   * With meshes: the most collider contacts a particle kept in a step of the call, once its
   * dominated triangles were dropped (meshReduce), where more than `boxSlots` (those beyond
   * are not stored); 0 otherwise.
   */
  keptSlotsNeeded: 'atomic<u32>',
  /** The boxes left to colliderFindWide this step (the first `wideCount`, up to WIDE_BOXES). */
  wide: { array: WideBox, length: WIDE_BOXES },
});

/**
 * A particle's contact with a box collider (by particle index, `boxSlots` slots a particle in
 * each of two halves, one per step parity): `impulse` the accumulated normal impulse and, in
 * yzw, the friction impulse; `normal` the unit normal from the particle toward the box (xyz) and
 * the pseudo-velocity the position correction aims at (w); `surface` the box's velocity at the
 * contact point (xyz) and the normal velocity the solve aims at (w); `box` the collider's index
 * plus 1 (0, EMPTY_SLOT, ends a particle's slots: a cleared buffer is all empty); `pseudo` the accumulated position-correction impulse of
 * the substep. Geometry and aims are fixed for a substep (colliderPrepare). Between colliderList
 * and the first colliderPrepare, a box's slot holds the normal (w = 1: a box; 0 for a triangle)
 * and surface velocity where the list found it, for particleSplit's strike bound.
 */
export const ParticleColliderContact = defineStruct('ParticleColliderContact', {
  impulse: 'vec4f',
  normal: 'vec4f',
  surface: 'vec4f',
  box: 'u32',
  pseudo: 'f32',
});

/**
 * Whether particle steps search for contacts or keep the last search's lists (storage, written
 * by the host and particleDecide): `force` (set by the host when the lists no longer fit the
 * particles or the settings) makes the next step search; `steps` and `searches` count the steps
 * since the particles were set and those that searched.
 */
export const ParticleReuse = defineStruct('ParticleReuse', {
  force: 'u32',
  steps: 'u32',
  searches: 'u32',
  /** particleDecide's choice for this step: 1 search, 0 keep (and skipSearch its opposite). */
  searching: 'u32',
  skipSearch: 'u32',
});

/**
 * One mesh collider's find (uniform, a buffer a mesh; shaders/particles/meshes.wgsl.ts): its pose
 * and velocities as the colliders' buffers hold them at the step's start (copied there on the GPU
 * before the find: centre, the reach extents, unit quaternion; linear, angular velocity), the
 * mesh's index, its triangles, and the collider id of its first triangle (tree order).
 */
export const MeshFindParams = defineStruct('MeshFindParams', {
  centre: 'vec4f',
  extent: 'vec4f',
  rotation: 'vec4f',
  linear: 'vec4f',
  angular: 'vec4f',
  mesh: 'u32',
  triangleCount: 'u32',
  idBase: 'u32',
});
