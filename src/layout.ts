/**
 * Every GPU record's layout, declared once.
 *
 * Input records (the contract's flat Float32Arrays) are described by their stride in floats.
 * Uniform and storage structs are described by a small schema from which both the WGSL
 * declaration (interpolated into the shaders) and the TypeScript byte offsets are derived, using
 * WGSL's alignment rules. `test/layout.test.ts` parses the generated WGSL with wgsl_reflect
 * and checks that its offsets and sizes are the ones computed here.
 *
 * Over 500 lines: every struct shared by WGSL and TypeScript, declared once in one place (the
 * layout test checks them all against the shaders), most of it their documentation.
 */

/** Floats per input record, as in docs/CONTRACT.md. */
export const STRIDE = {
  sphere: 4,
  aabb: 6,
  orientedBox: 10,
  ray: 6,
  sphereCast: 7,
  velocity: 3,
} as const;

/** Bytes per pair in a pair list on the GPU (`vec2<u32>`). */
export const PAIR_BYTES = 8;

/**
 * Floats per record once validation has packed it for the GPU (vec4-aligned):
 * AABB (min.xyz, 0), (max.xyz, 0); oriented box (centre, 0), (half extents, 0), (unit quaternion);
 * ray or cast (A, radius), (B, 0).
 */
export const GPU_STRIDE = {
  /** (x, y, z, radius): the same as STRIDE.sphere. */
  sphere: 4,
  aabb: 8,
  orientedBox: 12,
  /** (A, 0), (B, 0): a cast of radius 0. */
  ray: 8,
  /** (A, radius), (B, 0). */
  cast: 8,
} as const;

type Scalar = 'f32' | 'u32' | 'i32';
type VectorType =
  | 'vec2f' | 'vec3f' | 'vec4f'
  | 'vec2u' | 'vec3u' | 'vec4u'
  | 'vec2i' | 'vec3i' | 'vec4i';
/** A WGSL member type a struct layout knows: scalars, vectors, `atomic<u32>`, `mat4x4f`. */
export type PrimitiveType = Scalar | VectorType | 'atomic<u32>' | 'mat4x4f';

interface TypeInfo {
  size: number;
  align: number;
  components: number;
  scalar: Scalar;
}

const PRIMITIVES: Record<PrimitiveType, TypeInfo> = {
  f32: { size: 4, align: 4, components: 1, scalar: 'f32' },
  u32: { size: 4, align: 4, components: 1, scalar: 'u32' },
  i32: { size: 4, align: 4, components: 1, scalar: 'i32' },
  vec2f: { size: 8, align: 8, components: 2, scalar: 'f32' },
  vec3f: { size: 12, align: 16, components: 3, scalar: 'f32' },
  vec4f: { size: 16, align: 16, components: 4, scalar: 'f32' },
  vec2u: { size: 8, align: 8, components: 2, scalar: 'u32' },
  vec3u: { size: 12, align: 16, components: 3, scalar: 'u32' },
  vec4u: { size: 16, align: 16, components: 4, scalar: 'u32' },
  vec2i: { size: 8, align: 8, components: 2, scalar: 'i32' },
  vec3i: { size: 12, align: 16, components: 3, scalar: 'i32' },
  vec4i: { size: 16, align: 16, components: 4, scalar: 'i32' },
  'atomic<u32>': { size: 4, align: 4, components: 1, scalar: 'u32' },
  mat4x4f: { size: 64, align: 16, components: 16, scalar: 'f32' },
};

/** A fixed-size array of structs inside a struct: `array<T, N>`. */
export interface ArrayField {
  /** The element struct. */
  array: StructLayout<Record<string, FieldType>>;
  /** N, the number of elements. */
  length: number;
}
/** The type of a struct member: a primitive, or a fixed-size array of structs. */
export type FieldType = PrimitiveType | ArrayField;

/** One member of a {@link StructLayout}, placed by WGSL's alignment rules. */
export interface FieldLayout {
  /** The member's name in WGSL. */
  name: string;
  /** Its type. */
  type: FieldType;
  /** Byte offset from the start of the struct. */
  offset: number;
  /** Size in bytes. */
  size: number;
  /** Alignment in bytes. */
  align: number;
}

/**
 * A GPU struct's layout: its WGSL declaration and the byte offset of each member, e.g.
 * `CastHitRecord.wgsl` to paste into a shader that reads hit records, `CastHitRecord.size` for
 * the stride of an array of them, `CastHitRecord.offsets.index` to read one on the CPU.
 */
export interface StructLayout<F extends Record<string, FieldType>> {
  /** The struct's name in WGSL. */
  name: string;
  /** The WGSL declaration, `struct Name { ... }`. */
  wgsl: string;
  /** Size in bytes, rounded up to the struct's alignment (as WGSL does). */
  size: number;
  /** Alignment in bytes (the largest of its members'). */
  align: number;
  /** Byte offset of each field. */
  offsets: { [K in keyof F]: number };
  /** Every member, in order. */
  fields: FieldLayout[];
}

const roundUp = (n: number, a: number): number => Math.ceil(n / a) * a;

/** The array stride of each struct declared with defineStruct, by its WGSL name. */
const structStrides = new Map<string, number>();

/**
 * The stride in bytes of `array<T>` for a WGSL type named here: a primitive, or a struct
 * declared with {@link defineStruct}; undefined for any other type.
 */
export function arrayStride(type: string): number | undefined {
  const primitive = PRIMITIVES[type as PrimitiveType] as TypeInfo | undefined;
  return primitive ? roundUp(primitive.size, primitive.align) : structStrides.get(type);
}

/**
 * Declares a struct once: `defineStruct('Params', { count: 'u32', origin: 'vec3f' })` gives the
 * WGSL text and the byte offsets, laid out by WGSL's rules (each member at its alignment, the
 * struct's size a multiple of its largest alignment).
 */
export function defineStruct<F extends Record<string, FieldType>>(name: string, schema: F): StructLayout<F> {
  let offset = 0;
  let maxAlign = 4;
  const fields: FieldLayout[] = [];
  for (const [fieldName, type] of Object.entries(schema)) {
    let size: number;
    let align: number;
    if (typeof type === 'string') {
      ({ size, align } = PRIMITIVES[type]);
    } else {
      align = type.array.align;
      size = roundUp(type.array.size, align) * type.length;
    }
    offset = roundUp(offset, align);
    fields.push({ name: fieldName, type, offset, size, align });
    offset += size;
    maxAlign = Math.max(maxAlign, align);
  }
  const size = roundUp(offset, maxAlign);
  const wgslType = (t: FieldType): string => (typeof t === 'string' ? t : `array<${t.array.name}, ${t.length}>`);
  const wgsl = `struct ${name} {\n${fields.map((f) => `  ${f.name}: ${wgslType(f.type)},`).join('\n')}\n}\n`;
  const offsets = Object.fromEntries(fields.map((f) => [f.name, f.offset])) as { [K in keyof F]: number };
  structStrides.set(name, size);
  return { name, wgsl, size, align: maxAlign, offsets, fields };
}

type Value = number | readonly number[];
export type StructValues<F extends Record<string, FieldType>> = {
  [K in keyof F]?: F[K] extends ArrayField ? readonly Record<string, Value>[] : Value;
};

/**
 * Writes `values` into `view` at `base` following `layout`. Missing fields stay zero.
 * Scalars take numbers, vectors arrays of numbers, arrays of structs arrays of objects.
 */
export function writeStruct<F extends Record<string, FieldType>>(
  layout: StructLayout<F>,
  values: StructValues<F>,
  view: DataView,
  base = 0,
): void {
  for (const field of layout.fields) {
    const value = (values as Record<string, unknown>)[field.name];
    if (value === undefined) continue;
    const at = base + field.offset;
    if (typeof field.type === 'string') {
      const info = PRIMITIVES[field.type];
      const list = typeof value === 'number' ? [value] : (value as readonly number[]);
      if (list.length !== info.components) {
        throw new Error(`${layout.name}.${field.name} takes ${info.components} component(s), got ${list.length}`);
      }
      for (let c = 0; c < info.components; c++) {
        const o = at + 4 * c;
        if (info.scalar === 'f32') view.setFloat32(o, list[c], true);
        else if (info.scalar === 'u32') view.setUint32(o, list[c] >>> 0, true);
        else view.setInt32(o, list[c] | 0, true);
      }
    } else {
      const element = field.type.array;
      const stride = roundUp(element.size, element.align);
      const items = value as readonly Record<string, Value>[];
      if (items.length > field.type.length) {
        throw new Error(`${layout.name}.${field.name} holds ${field.type.length} entries, got ${items.length}`);
      }
      items.forEach((item, k) => writeStruct(element, item as StructValues<Record<string, FieldType>>, view, at + k * stride));
    }
  }
}

/** Packs one struct into a fresh ArrayBuffer of its size (for `queue.writeBuffer`). */
export function packStruct<F extends Record<string, FieldType>>(layout: StructLayout<F>, values: StructValues<F>): ArrayBuffer {
  const buffer = new ArrayBuffer(layout.size);
  writeStruct(layout, values, new DataView(buffer));
  return buffer;
}

// ---------------------------------------------------------------------------------------------
// GPU structs. Each is interpolated into the shaders that use it as `${Struct.wgsl}`.

import { MAX_LEVELS } from './spatial/level.js';

/** One level of the multi-level grid (see src/spatial/plan.ts). */
export const GridLevel = defineStruct('GridLevel', {
  dims: 'vec3u',
  keyBase: 'u32',
  /** Where the level's cell (0, 0, 0) starts. */
  origin: 'vec3f',
  cellSize: 'f32',
  /** Bounds of the level's centres: a query box outside them skips the level (∓f32 max: never). */
  lower: 'vec3f',
  invCellSize: 'f32',
  upper: 'vec3f',
  maxRadius: 'f32',
  count: 'u32',
  /** The next level after this one that holds spheres (levelCount when none): loops over levels skip the empty ones. */
  next: 'u32',
  /**
   * The radii the level holds, as the range [lo, hi] of ceil(log2 r) (the plan's levelOfLog2
   * read backwards): testing a sphere's level this way costs no division.
   */
  log2Range: 'vec2i',
});

/** The grid a broad phase was planned with (uniform). */
export const GridParams = defineStruct('GridParams', {
  sphereCount: 'u32',
  bucketMask: 'u32',
  levelBias: 'i32',
  levelStep: 'u32',
  levelCount: 'u32',
  dense: 'u32',
  /** Nonzero: the grid's count kernel returns at once (a gated caller copies its switch here on the GPU). */
  skip: 'u32',
  /** The first level that holds spheres (levelCount when none); each level's `next` leads on. */
  firstLevel: 'u32',
  levels: { array: GridLevel, length: MAX_LEVELS },
});

/** The all-pairs tile kernel's parameters (uniform). */
export const AllPairsParams = defineStruct('AllPairsParams', {
  sphereCount: 'u32',
  tileCount: 'u32',
});

/** The sphere–box kernels' parameters (uniform). */
export const BoxParams = defineStruct('BoxParams', {
  sphereCount: 'u32',
  boxCount: 'u32',
  /** All-pairs: blocks of spheres per row of tiles; tiles in all. */
  sphereBlocks: 'u32',
  tileCount: 'u32',
});

/** The GPU-resident calls' check and dispatch kernels (uniform; shaders/resident/resident.wgsl.ts). */
export const ResidentParams = defineStruct('ResidentParams', {
  sphereCount: 'u32',
  /** Records the result list holds. */
  capacity: 'u32',
  /** Threads a workgroup of the consumer's kernel: the indirect arguments cover min(count, capacity) of them. */
  workgroupSize: 'u32',
  maxDimension: 'u32',
  /** The largest radius the caller promised; a larger one is a violation. */
  maxRadius: 'f32',
  /** Which recording wrote these parameters (ResidentQueries counts them): the call's status gets it back. */
  call: 'u32',
});

/**
 * The status of a GPU-resident call (storage): spheres that broke the promised scene bounds
 * (a radius above maxRadius, a value not finite), and the first of them.
 */
export const ResidentStatus = defineStruct('ResidentStatus', {
  /** Spheres that broke the promise. */
  violations: 'atomic<u32>',
  /** The lowest index among them (0xffffffff when none). */
  firstViolation: 'atomic<u32>',
  /**
   * The recording whose parameters the call ran with (written last): another than its own means
   * a later call was recorded before this one was submitted and overwrote them.
   */
  call: 'atomic<u32>',
});

/** The sort-and-sweep kernels' parameters (uniform). */
export const SweepParams = defineStruct('SweepParams', {
  sphereCount: 'u32',
  boxCount: 'u32',
  /** The sweep axis: 0, 1 or 2 (the axis of greatest variance of the centres). */
  axis: 'u32',
  /** Added to every interval's upper end, so that f32 rounding cannot prune a pair the narrow test keeps. */
  slack: 'f32',
  /** The largest radius: how far before a box an interval that reaches it can start. */
  maxRadius: 'f32',
});

/** The LBVH kernels' parameters (uniform): the Morton grid over the centres' bounds, counts, slack. */
export const BvhParams = defineStruct('BvhParams', {
  /** The centres' lower bound: Morton cell 0. */
  origin: 'vec3f',
  sphereCount: 'u32',
  /** 2^20 / extent per axis (0 for an axis of zero extent: every code has 0 there). */
  scale: 'vec3f',
  boxCount: 'u32',
  /** Unused, written 0: leaf boxes grow by their own radius (paddedRadius, shaders/broadphase/bvh/bvh.wgsl.ts), not by a slack of the coordinates. */
  slack: 'f32',
});

/** One level of the LBVH's box pyramid (uniform, one per level): blocks of 2^level sorted leaves. */
export const BvhLevel = defineStruct('BvhLevel', {
  level: 'u32',
  /** Full blocks in this level: sphereCount >> level. */
  count: 'u32',
  /** Where the level below (level − 1 ≥ 1) and this level start in the pyramid, in blocks. */
  srcBase: 'u32',
  dstBase: 'u32',
});

/**
 * An internal node of the LBVH (storage): its box (the union of its leaves' boxes) and its two
 * children, internal node indices or sorted leaf positions with BVH_LEAF (bit 31) set.
 */
export const BvhNode = defineStruct('BvhNode', {
  lo: 'vec3f',
  left: 'u32',
  hi: 'vec3f',
  right: 'u32',
});

/** The raycast and sphere-cast kernels' parameters (uniform). */
export const CastParams = defineStruct('CastParams', {
  castCount: 'u32',
  sphereCount: 'u32',
  /** Slack added to every search distance: covers rounding in positions of this magnitude. */
  slack: 'f32',
});

/**
 * One hit as the cast kernels write it: for a ray, `point` and `contact` are both D and
 * `distance` is |AD|; for a sphere cast, `point` is the centre at contact C, `contact` is E,
 * `distance` is |AC|. `index` is the sphere, or −1 for a miss.
 */
export const CastHitRecord = defineStruct('CastHitRecord', {
  point: 'vec3f',
  distance: 'f32',
  contact: 'vec3f',
  index: 'i32',
});

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
  /** Substeps a step, and Jacobi sweeps a substep (particleSplit runs them for a free particle). */
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
});

/**
 * A particle's solver velocities, in bucket order: `v` is (velocity, inverse mass), `p` the
 * pseudo-velocity of the position correction and, in w, the particle's contact count (its mass
 * is split among that many contacts).
 */
export const ParticleBody = defineStruct('ParticleBody', {
  v: 'vec4f',
  p: 'vec4f',
});

/**
 * One entry of a particle's contact list (both particles of a pair hold one, bit-identical up to
 * the sign of the vectors): `impulse` is the accumulated normal impulse and, in yzw, the
 * accumulated friction impulse on the partner; `nbr` the partner's position in bucket order,
 * with the top bit (DORMANT_BIT) set while the pair is farther apart than a search without the
 * skin would list it (then the solve skips the entry), `id` the partner's index; `normal` the unit normal toward the partner (xyz) and the pseudo-velocity the
 * position correction aims at (w), both fixed for a substep (positions move only after its
 * sweeps); `aim` the normal velocity the solve aims at; `pseudo` the accumulated
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
  entriesNeeded: 'atomic<u32>',
  /** The most box colliders any particle was found near in a step of the call (slots beyond `boxSlots` are not stored). */
  boxSlotsNeeded: 'atomic<u32>',
});

/**
 * A particle's contact with a box collider (by particle index, `boxSlots` slots a particle in
 * each of two halves, one per step parity): `impulse` the accumulated normal impulse and, in
 * yzw, the friction impulse; `normal` the unit normal from the particle toward the box (xyz) and
 * the pseudo-velocity the position correction aims at (w); `surface` the box's velocity at the
 * contact point (xyz) and the normal velocity the solve aims at (w); `box` the collider's index
 * plus 1 (0, EMPTY_SLOT, ends a particle's slots: a cleared buffer is all empty); `pseudo` the accumulated position-correction impulse of
 * the substep. Geometry and aims are fixed for a substep (colliderPrepare).
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

/** One level of the exclusive scan (uniform). */
export const ScanParams = defineStruct('ScanParams', {
  count: 'u32',
  /** 1 when blockSums holds the (already scanned) offsets of the tiles. */
  useOffsets: 'u32',
  /** Nonzero: every thread returns at once (a gated caller copies its switch here on the GPU). */
  skip: 'u32',
});

/**
 * The pair list's counter (storage, atomics). `count` is the low 32 bits of the true number
 * of pairs found, `countHi` the high bits, so that overflow past 2^32 is still reported.
 */
export const PairCounter = defineStruct('PairCounter', {
  count: 'atomic<u32>',
  countHi: 'atomic<u32>',
});
