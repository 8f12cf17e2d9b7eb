/**
 * Typed errors. Every error the library throws on purpose is a `CollideError`; each subclass
 * carries the fields a caller needs to react without parsing the message.
 */

/**
 * The base of every error the library throws on purpose: `catch (e) { if (e instanceof CollideError) ... }`.
 *
 * @category Errors
 */
export class CollideError extends Error {
  /**
   * The class's name, written out: a minifier renames classes, so `new.target.name` would say
   * `e` in a bundled app. Each subclass declares its own.
   */
  override name = 'CollideError';
  constructor(message: string) {
    super(message);
  }
}

/**
 * Bad input at the API boundary. `argument` names the parameter (`'spheres'`, `'options.maxPairs'`),
 * `index` the record (or -1 when the rule is about the whole argument), `rule` the broken rule
 * in a few words, stable enough to match on in tests.
 *
 * @category Errors
 */
export class InvalidInputError extends CollideError {
  override name = 'InvalidInputError';
  /** The parameter: `'spheres'`, `'rays'`, `'options.maxPairs'`, ... */
  readonly argument: string;
  /** The record that broke the rule, or -1 when the rule is about the whole argument. */
  readonly index: number;
  /** The broken rule, one of the phrases of {@link RULES} (stable: match on it). */
  readonly rule: string;
  constructor(argument: string, index: number, rule: string, detail?: string) {
    const where = index >= 0 ? `${argument}[record ${index}]` : argument;
    super(`${where}: ${rule}${detail ? ` (${detail})` : ''}`);
    this.argument = argument;
    this.index = index;
    this.rule = rule;
  }
}

/**
 * Something does not fit: more records than the device can hold, or more results than the
 * caller's cap. `count` is the true number (never a truncated one), `capacity` the limit.
 *
 * @category Errors
 */
export class CapacityError extends CollideError {
  override name = 'CapacityError';
  /** What did not fit: `'spheres'`, `'pairs'`, `'hits'`, ... */
  readonly what: string;
  /** The true number (never a truncated one): e.g. every pair found, past `maxPairs`. */
  readonly count: number;
  /** The limit it exceeded: the caller's cap or the device's. */
  readonly capacity: number;
  constructor(what: string, count: number, capacity: number, hint?: string) {
    super(`${what}: ${count} exceeds the capacity of ${capacity}${hint ? `; ${hint}` : ''}`);
    this.what = what;
    this.count = count;
    this.capacity = capacity;
  }
}

/**
 * No WebGPU adapter could be found. The message says what to install.
 *
 * @category Errors
 */
export class NoAdapterError extends CollideError {
  override name = 'NoAdapterError';
}

/**
 * A WebGPU validation, out-of-memory or internal error raised while recording or running a call.
 *
 * @category Errors
 */
export class WebGPUError extends CollideError {
  override name = 'WebGPUError';
  /** The WebGPU error scope it was caught in. */
  readonly kind: 'validation' | 'out-of-memory' | 'internal';
  constructor(kind: WebGPUError['kind'], message: string) {
    super(`WebGPU ${kind} error: ${message}`);
    this.kind = kind;
  }
}

/**
 * The device was lost or destroyed while a call was pending, or before it started.
 *
 * @category Errors
 */
export class DeviceLostError extends CollideError {
  override name = 'DeviceLostError';
  /** `GPUDeviceLostInfo.reason`: 'destroyed' (someone called `device.destroy()`) or 'unknown'. */
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(`GPU device lost (${reason}): ${message}`);
    this.reason = reason;
  }
}

/**
 * The collider or world was used after `destroy()`.
 *
 * @category Errors
 */
export class DestroyedError extends CollideError {
  override name = 'DestroyedError';
}
