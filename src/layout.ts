/**
 * Every GPU record's layout, declared once.
 *
 * Input records (the contract's flat Float32Arrays) are described by their stride in floats.
 * Uniform and storage structs are described by a small schema from which both the WGSL
 * declaration (interpolated into the shaders) and the TypeScript byte offsets are derived, using
 * WGSL's alignment rules. `test/layout.test.ts` parses the generated WGSL with wgsl_reflect
 * and checks that its offsets and sizes are the ones computed here.
 *
 * This module holds the machinery and the records every subsystem shares; each subsystem declares
 * its own structs beside its kernels (shaders/<subsystem>/layout.ts).
 */

/**
 * Floats per input record, as in docs/CONTRACT.md.
 *
 * @category Record layouts
 */
export const STRIDE = {
  sphere: 4,
  aabb: 6,
  orientedBox: 10,
  ray: 6,
  sphereCast: 7,
  velocity: 3,
} as const;

/**
 * Bytes per pair in a pair list on the GPU (`vec2<u32>`).
 *
 * @category Record layouts
 */
export const PAIR_BYTES = 8;

/**
 * Floats per record once validation has packed it for the GPU (vec4-aligned):
 * AABB (min.xyz, 0), (max.xyz, 0); oriented box (centre, 0), (half extents, 0), (unit quaternion);
 * ray or cast (A, radius), (B, 0).
 *
 * @category Record layouts
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
type VectorType = 'vec2f' | 'vec3f' | 'vec4f' | 'vec2u' | 'vec3u' | 'vec4u' | 'vec2i' | 'vec3i' | 'vec4i';
/**
 * A WGSL member type a struct layout knows: scalars, vectors, `atomic<u32>`, `mat4x4f`.
 *
 * @category Record layouts
 */
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

/**
 * A fixed-size array of structs inside a struct: `array<T, N>`.
 *
 * @category Record layouts
 */
export interface ArrayField {
  /** The element struct. */
  array: StructLayout<Record<string, FieldType>>;
  /** N, the number of elements. */
  length: number;
}
/**
 * The type of a struct member: a primitive, or a fixed-size array of structs.
 *
 * @category Record layouts
 */
export type FieldType = PrimitiveType | ArrayField;

/**
 * One member of a {@link StructLayout}, placed by WGSL's alignment rules.
 *
 * @category Record layouts
 */
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
 *
 * @category Record layouts
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
      items.forEach((item, k) => {
        writeStruct(element, item as StructValues<Record<string, FieldType>>, view, at + k * stride);
      });
    }
  }
}

/** Packs one struct into a fresh ArrayBuffer of its size (for `queue.writeBuffer`). */
export function packStruct<F extends Record<string, FieldType>>(
  layout: StructLayout<F>,
  values: StructValues<F>,
): ArrayBuffer {
  const buffer = new ArrayBuffer(layout.size);
  writeStruct(layout, values, new DataView(buffer));
  return buffer;
}

// ---------------------------------------------------------------------------------------------
// GPU structs. Each is interpolated into the shaders that use it as `${Struct.wgsl}`.

/** The sphere–box kernels' parameters (uniform). */
export const BoxParams = defineStruct('BoxParams', {
  sphereCount: 'u32',
  boxCount: 'u32',
  /** All-pairs: blocks of spheres per row of tiles; tiles in all. */
  sphereBlocks: 'u32',
  tileCount: 'u32',
});

/**
 * The pair list's counter (storage, atomics). `count` is the low 32 bits of the true number
 * of pairs found, `countHi` the high bits, so that overflow past 2^32 is still reported.
 *
 * @category Record layouts
 */
export const PairCounter = defineStruct('PairCounter', {
  count: 'atomic<u32>',
  countHi: 'atomic<u32>',
});
