/**
 * The checks every call's validation is built from, worded once: the rules (RULES), the bounds
 * on magnitudes, and the checks of a value, a typed array and each kind of option. Each throws an
 * InvalidInputError naming the argument, the record and the rule.
 */
import { InvalidInputError } from './errors.js';

/**
 * The rules input is checked against, worded once so that messages and tests agree: an
 * {@link InvalidInputError}'s `rule` is one of these phrases (match with
 * `error.rule === RULES.finite`, never on the message).
 *
 * @category Errors
 */
export const RULES = {
  type: 'must be a Float32Array',
  device: 'must be a GPUDevice',
  stride: 'length must be a multiple of the record stride',
  finite: 'every value must be finite (no NaN or Infinity)',
  radius: 'radius must be >= 0',
  halfExtent: 'half extents must be >= 0',
  minMax: 'min must be <= max on every axis',
  quaternion: 'rotation quaternion must not be zero',
  capacity: 'more records than the device can hold',
  option: 'option out of range',
  detached: 'buffer is detached',
  count: 'record count must match the spheres',
  inverseMass: 'inverse mass must be >= 0',
  defaultMass:
    'the default inverse mass (1 / volume) must be a normal f32: pass inverseMasses for radii outside about [1e-13, 2.6e12]',
  outside: 'centre must lie inside the world bounds',
  bounds: 'bounds must be 6 finite numbers with min < max on every axis',
  vector: 'must be finite numbers',
  magnitude: 'magnitude must be at most 2^60 (1.15e18), so that squared distances fit in f32',
  tiny: 'a nonzero radius or extent must be at least 2^-60 (8.7e-19), so that its square is a normal f32',
  gpuRecords: 'must be { buffer: GPUBuffer, count, offset? } within the buffer, with the usage the call needs',
  sceneBounds: 'every radius must be at most options.scene.maxRadius and every value finite',
  out: 'must be the typed array the result field is: Uint32Array for pairs and offsets, Int32Array for index, Float32Array for distances and points',
  submitFirst: 'read an encoded result after submitting the encoder its call was recorded into',
  encoder: 'must be a GPUCommandEncoder',
  indexType: 'must be a Uint32Array',
  indexRange: 'every index must be less than the vertex count',
  pose: 'pose must be 7 finite numbers within 2^60: centre x, y, z and a nonzero quaternion x, y, z, w',
  mesh: "must be a live mesh made by this Collider's createMesh",
  worldMesh: "must be a live mesh (collider.createMesh) on the world's device",
} as const;

/**
 * The largest magnitude a coordinate, radius, extent or velocity may have: squares of sums of
 * two such values (2^122) and their sums of three still fit f32 (2^128). Beyond it a kernel would
 * overflow to Infinity and answer wrongly, so it is an input error.
 */
export const MAX_MAGNITUDE = 2 ** 60;

/** The smallest nonzero radius, half extent or cast radius: its square is still a normal f32. */
export const MIN_SIZE = 2 ** -60;

/** Throws for a value that is NaN, ±Infinity or beyond MAX_MAGNITUDE. */
export function checkValue(argument: string, index: number, v: number, what: string): void {
  if (Math.abs(v) <= MAX_MAGNITUDE) return;
  throw new InvalidInputError(argument, index, v - v !== 0 ? RULES.finite : RULES.magnitude, `${what} is ${v}`);
}

/** Throws for a radius or extent that is nonzero but so small that its square underflows f32. */
export function checkSize(argument: string, index: number, v: number, what: string): void {
  if (v !== 0 && Math.abs(v) < MIN_SIZE) throw new InvalidInputError(argument, index, RULES.tiny, `${what} is ${v}`);
}

/** What a value is, for a message: 'null', 'Array', a class's name, or its typeof. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'Array';
  return typeof value === 'object' ? ((value as object).constructor?.name ?? 'object') : typeof value;
}

export function checkFloat32Array(argument: string, value: unknown, stride: number): Float32Array {
  if (!(value instanceof Float32Array)) throw new InvalidInputError(argument, -1, RULES.type, `got ${kindOf(value)}`);
  // A detached ArrayBuffer reads as length 0; say so instead of silently treating it as empty.
  if (value.buffer.byteLength === 0 && isDetached(value.buffer)) {
    throw new InvalidInputError(argument, -1, RULES.detached);
  }
  if (value.length % stride !== 0) {
    throw new InvalidInputError(argument, -1, RULES.stride, `length ${value.length} is not a multiple of ${stride}`);
  }
  return value;
}

/** A detached buffer reports byteLength 0 and refuses new views; an empty one accepts them. */
export function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * The grid tuning a Collider or a ParticleWorld accepts (`options.grid`): levelStep an integer
 * number of octaves per level in 1–8, denseFactor a finite number ≥ 0 (0: always hashed). Anything else would drop
 * pairs (a fractional step) or fail deep inside the plan.
 */
export function checkGridOptions(argument: string, value: unknown): { levelStep?: number; denseFactor?: number } {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null)
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an object, got ${value === null ? 'null' : typeof value}`,
    );
  const grid = value as { levelStep?: unknown; denseFactor?: unknown };
  const levelStep = grid.levelStep;
  if (
    levelStep !== undefined &&
    (typeof levelStep !== 'number' || !Number.isInteger(levelStep) || levelStep < 1 || levelStep > 8)
  ) {
    throw new InvalidInputError(
      `${argument}.levelStep`,
      -1,
      RULES.option,
      `expected an integer in [1, 8], got ${String(levelStep)}`,
    );
  }
  const denseFactor = checkNumber(`${argument}.denseFactor`, grid.denseFactor, 0, 2 ** 32);
  return { levelStep: levelStep as number | undefined, denseFactor };
}

/**
 * `options.device`, when given, must be a GPUDevice (duck-typed: its queue and createBuffer; the
 * GPUDevice class is not a global in every host). Undefined asks the host for one.
 */
export function checkDevice(argument: string, value: unknown): GPUDevice | undefined {
  if (value === undefined) return undefined;
  const device = value as { queue?: unknown; createBuffer?: unknown; createComputePipeline?: unknown };
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof device.createBuffer !== 'function' ||
    typeof device.createComputePipeline !== 'function' ||
    typeof device.queue !== 'object'
  ) {
    const got =
      value === null
        ? 'null'
        : typeof value === 'object'
          ? ((value as object).constructor?.name ?? 'object')
          : typeof value;
    throw new InvalidInputError(argument, -1, RULES.device, `got ${got}`);
  }
  return value as GPUDevice;
}

/** A finite number option in [min, max] (or undefined). */
export function checkNumber(
  argument: string,
  value: unknown,
  min: number,
  max: number,
  minExclusive = false,
): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (minExclusive && value === min)
  ) {
    const range = `${minExclusive ? '(' : '['}${min}, ${max}]`;
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected a finite number in ${range}, got ${String(value)}`,
    );
  }
  return value;
}

/** A vector of `length` finite numbers (array or typed array), or undefined. */
export function checkVector(
  argument: string,
  value: unknown,
  length: number,
  rule: string = RULES.vector,
): number[] | undefined {
  if (value === undefined) return undefined;
  const list = ArrayBuffer.isView(value) ? Array.from(value as unknown as ArrayLike<number>) : value;
  if (
    !Array.isArray(list) ||
    list.length !== length ||
    !list.every((v) => typeof v === 'number' && Number.isFinite(v))
  ) {
    throw new InvalidInputError(argument, -1, rule, `expected ${length} finite numbers, got ${String(value)}`);
  }
  return list as number[];
}

/** An optional result array of the caller's: a Uint32Array (not detached). */
export function checkOutArray(argument: string, value: unknown): Uint32Array | undefined;
export function checkOutArray<T extends Uint32Array | Int32Array | Float32Array>(
  argument: string,
  value: unknown,
  type: { new (length: number): T },
): T | undefined;
export function checkOutArray(
  argument: string,
  value: unknown,
  type: { new (length: number): ArrayBufferView } = Uint32Array,
): ArrayBufferView | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof type)) throw new InvalidInputError(argument, -1, RULES.out, `got ${kindOf(value)}`);
  if (value.buffer.byteLength === 0 && isDetached(value.buffer))
    throw new InvalidInputError(argument, -1, RULES.detached);
  return value;
}

/**
 * A call's options argument: an object, or undefined for none ({}). Anything else (null, a
 * number) is an option error naming the argument, not a TypeError from reading its fields.
 */
export function checkOptions<T extends object>(argument: string, value: T | undefined): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an options object or undefined, got ${value === null ? 'null' : typeof value}`,
    );
  }
  return value;
}

/** A boolean option (or undefined). */
export function checkBoolean(argument: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean')
    throw new InvalidInputError(argument, -1, RULES.option, `expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** The caller's command encoder of an encode call (checked before anything is recorded or changed). */
export function checkEncoder(value: unknown): GPUCommandEncoder {
  const encoder = value as GPUCommandEncoder | undefined;
  if (
    !encoder ||
    typeof encoder !== 'object' ||
    typeof encoder.beginComputePass !== 'function' ||
    typeof encoder.copyBufferToBuffer !== 'function'
  ) {
    throw new InvalidInputError('encoder', -1, RULES.encoder, `got ${String(value)}`);
  }
  return encoder;
}

/** An integer option in [min, max] (or undefined); min is 0 unless given. */
export function checkPositiveInteger(
  argument: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
  min = 0,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected an integer in [${min}, ${max}], got ${String(value)}`,
    );
  }
  return value;
}

export function checkOneOf<T extends string>(argument: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new InvalidInputError(
      argument,
      -1,
      RULES.option,
      `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value as T;
}
