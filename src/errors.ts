/**
 * Typed errors. Every error the library throws on purpose is a `CollideError`; each subclass
 * carries the fields a caller needs to react without parsing the message.
 */

export class CollideError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Bad input at the API boundary. `argument` names the parameter (`'spheres'`, `'options.maxPairs'`),
 * `index` the record (or -1 when the rule is about the whole argument), `rule` the broken rule
 * in a few words, stable enough to match on in tests.
 */
export class InvalidInputError extends CollideError {
  readonly argument: string;
  readonly index: number;
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
 */
export class CapacityError extends CollideError {
  readonly what: string;
  readonly count: number;
  readonly capacity: number;
  constructor(what: string, count: number, capacity: number, hint?: string) {
    super(`${what}: ${count} exceeds the capacity of ${capacity}${hint ? `; ${hint}` : ''}`);
    this.what = what;
    this.count = count;
    this.capacity = capacity;
  }
}

/** No WebGPU adapter could be found. The message says what to install. */
export class NoAdapterError extends CollideError {}

/** A WebGPU validation, out-of-memory or internal error raised while recording or running a call. */
export class WebGPUError extends CollideError {
  readonly kind: 'validation' | 'out-of-memory' | 'internal' | 'uncaptured';
  constructor(kind: WebGPUError['kind'], message: string) {
    super(`WebGPU ${kind} error: ${message}`);
    this.kind = kind;
  }
}

/** The device was lost or destroyed while a call was pending, or before it started. */
export class DeviceLostError extends CollideError {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(`GPU device lost (${reason}): ${message}`);
    this.reason = reason;
  }
}

/** The collider or world was used after `destroy()`. */
export class DestroyedError extends CollideError {}
