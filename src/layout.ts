/**
 * Every GPU record's layout, declared once.
 *
 * Input records (the contract's flat Float32Arrays) are described by their stride in floats.
 * Uniform and storage structs are described by a small schema from which both the WGSL
 * declaration (interpolated into the shaders) and the TypeScript byte offsets are derived, using
 * WGSL's alignment rules. `test/layout.test.ts` parses the generated WGSL with wgsl_reflect
 * and checks that its offsets and sizes are the ones computed here.
 */

/** Floats per input record, as in DESIGN.md. */
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
  aabb: 8,
  orientedBox: 12,
  cast: 8,
} as const;

type Scalar = 'f32' | 'u32' | 'i32';
type VectorType =
  | 'vec2f' | 'vec3f' | 'vec4f'
  | 'vec2u' | 'vec3u' | 'vec4u'
  | 'vec2i' | 'vec3i' | 'vec4i';
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
  array: StructLayout<Record<string, FieldType>>;
  length: number;
}
export type FieldType = PrimitiveType | ArrayField;

export interface FieldLayout {
  name: string;
  type: FieldType;
  offset: number;
  size: number;
  align: number;
}

export interface StructLayout<F extends Record<string, FieldType>> {
  name: string;
  /** The WGSL declaration, `struct Name { ... }`. */
  wgsl: string;
  /** Size in bytes, rounded up to the struct's alignment (as WGSL does). */
  size: number;
  align: number;
  /** Byte offset of each field. */
  offsets: { [K in keyof F]: number };
  fields: FieldLayout[];
}

const roundUp = (n: number, a: number): number => Math.ceil(n / a) * a;

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

import { MAX_LEVELS } from './grid/level.js';

/** One level of the multi-level grid (see src/grid/plan.ts). */
export const GridLevel = defineStruct('GridLevel', {
  dims: 'vec3u',
  keyBase: 'u32',
  cellSize: 'f32',
  invCellSize: 'f32',
  maxRadius: 'f32',
  count: 'u32',
});

/** The grid a broad phase was planned with (uniform). */
export const GridParams = defineStruct('GridParams', {
  origin: 'vec3f',
  sphereCount: 'u32',
  bucketMask: 'u32',
  levelBias: 'i32',
  levelStep: 'u32',
  levelCount: 'u32',
  dense: 'u32',
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

/** A particle world's step parameters (uniform). */
export const ParticleParams = defineStruct('ParticleParams', {
  count: 'u32',
  dt: 'f32',
  restitution: 'f32',
  percent: 'f32',
  gravity: 'vec3f',
  slop: 'f32',
  boundsMin: 'vec3f',
  bounded: 'u32',
  boundsMax: 'vec3f',
});

/** One level of the exclusive scan (uniform). */
export const ScanParams = defineStruct('ScanParams', {
  count: 'u32',
  /** 1 when blockSums holds the (already scanned) offsets of the tiles. */
  useOffsets: 'u32',
});

/**
 * The pair list's counter (storage, atomics). `count` is the low 32 bits of the true number
 * of pairs found, `countHi` the high bits, so that overflow past 2^32 is still reported.
 */
export const PairCounter = defineStruct('PairCounter', {
  count: 'atomic<u32>',
  countHi: 'atomic<u32>',
});
