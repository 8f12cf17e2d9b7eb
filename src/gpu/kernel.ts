/**
 * A kernel's bindings, declared once by name. `bindings({ ... })` numbers the entries in
 * declaration order (group 0) and gives, from that one list:
 *
 * - `wgsl`: the WGSL declarations, `@group(0) @binding(i) var<...> name: type;` each, for the
 *   shader module to interpolate (the form src/gpu/pipeline.ts finds runtime-sized arrays in);
 * - `layout(device)`: the bind group layout (cached per device by its kinds);
 * - `bind(device, label, { name: buffer, ... })`: the bind group, with every name required and
 *   no other allowed (TypeScript checks it), placed at its binding.
 *
 * So no kernel numbers a binding by hand, and the shader, the layout and the bind group cannot
 * disagree about which buffer is where (test/gpu/kernel.test.ts checks each declaration against the
 * WGSL that uses it, as wgsl_reflect parses it).
 *
 * And a kernel's entry points, declared once each (`entry({ name, size, index, bound, exit })`,
 * below): the `@compute @workgroup_size(...)` line, the signature, the thread index and the
 * bounds check, with the size's declaration (`override WG: u32;`) written once per module from
 * `WG.wgsl`. test/gpu/kernel.test.ts checks every kernel's entries against every variant's WGSL.
 */
import { bindGroupLayout, bindGroup, type BindingKind, type BindingResource } from './pipeline.js';

export type { BindingKind, BindingResource } from './pipeline.js';

/** One binding: its kind and its WGSL type (a struct name, `array<vec4f>`, `vec4u`, ...). */
export interface BindingSpec {
  readonly kind: BindingKind;
  readonly type: string;
}

/** A uniform of WGSL type `type`. */
export const uniform = (type: string): BindingSpec => ({ kind: 'uniform', type });
/** A uniform whose offset is set with the bind group (WebGPU's dynamic offset): one group, many slots. */
export const dynamicUniform = (type: string): BindingSpec => ({ kind: 'dynamic-uniform', type });
/** A storage binding the kernel only reads (`var<storage, read>`). */
export const readOnly = (type: string): BindingSpec => ({ kind: 'read-only-storage', type });
/** A storage binding the kernel writes (`var<storage, read_write>`). */
export const readWrite = (type: string): BindingSpec => ({ kind: 'storage', type });

export interface BindingEntry<N extends string = string> extends BindingSpec {
  readonly name: N;
  readonly binding: number;
}

export interface Bindings<N extends string> {
  /** The entries in binding order (group 0). */
  readonly entries: readonly BindingEntry<N>[];
  /** Each name's binding number. */
  readonly index: Readonly<Record<N, number>>;
  /** The kinds in binding order (the layout's entries). */
  readonly kinds: readonly BindingKind[];
  /** The WGSL declarations of the bindings, one a line, in binding order. */
  readonly wgsl: string;
  /** The bind group layout on `device` (cached per device by the kinds). */
  layout(device: GPUDevice, label?: string): GPUBindGroupLayout;
  /** A bind group of this layout with each named resource at its binding. */
  bind(device: GPUDevice, label: string, resources: Readonly<Record<N, BindingResource>>): GPUBindGroup;
}

const ACCESS: Record<BindingKind, string> = {
  uniform: 'uniform',
  'dynamic-uniform': 'uniform',
  'read-only-storage': 'storage, read',
  storage: 'storage, read_write',
};

/** The WGSL declaration of one binding of group 0. */
export function bindingLine(entry: BindingEntry): string {
  return `@group(0) @binding(${entry.binding}) var<${ACCESS[entry.kind]}> ${entry.name}: ${entry.type};`;
}

/** Declares a kernel's bindings, numbered in the order of `specs`' keys. */
export function bindings<const S extends Record<string, BindingSpec>>(specs: S): Bindings<Extract<keyof S, string>> {
  type N = Extract<keyof S, string>;
  const entries = Object.entries(specs).map(([name, spec], binding): BindingEntry<N> => {
    if (!/^[A-Za-z_]\w*$/.test(name)) throw new Error(`binding name ${name} is not a WGSL identifier`);
    return { name: name as N, binding, kind: spec.kind, type: spec.type };
  });
  const kinds = entries.map((e) => e.kind);
  const index = Object.fromEntries(entries.map((e) => [e.name, e.binding])) as Record<N, number>;
  return {
    entries,
    index,
    kinds,
    wgsl: entries.map(bindingLine).join('\n'),
    layout: (device, label = entries.map((e) => e.name).join(' ')) => bindGroupLayout(device, `${label} layout`, kinds),
    bind(device, label, resources) {
      const missing = entries.filter((e) => resources[e.name] === undefined).map((e) => e.name);
      if (missing.length > 0) throw new Error(`${label}: no resource for ${missing.join(', ')}`);
      return bindGroup(
        device,
        label,
        bindGroupLayout(device, `${label} layout`, kinds),
        entries.map((e) => resources[e.name]),
      );
    },
  };
}

/** The binding names of a declaration. */
export type BindingNames<B> = B extends Bindings<infer N> ? N : never;

/**
 * A kernel's workgroup size as its WGSL names it (`@workgroup_size(WG)`, and the thread index
 * `flatWorkgroup(wid, nwg) * WG + lid`): an override that the pass sets when it makes the pipeline
 * (src/gpu/workgroups.ts), or a constant of the module (the scan and the radix sort size
 * workgroup memory by theirs), or 1 (a kernel of one thread: indirect arguments, a decision).
 */
export interface WorkgroupSize {
  /** The name the WGSL uses; `'1'` for one thread. */
  readonly name: string;
  /** The constant's value; undefined for an override. */
  readonly value?: number;
  /** The declaration a module that uses the size writes once (`${size.wgsl}`); empty for 1. */
  readonly wgsl: string;
}

/** A workgroup size set when the pipeline is made: `override NAME: u32;`. */
export const overrideSize = (name: string): WorkgroupSize => ({
  name: identifier(name, 'workgroup size'),
  wgsl: `override ${name}: u32; // src/gpu/workgroups.ts`,
});

/** A workgroup size fixed in the module: `const NAME: u32 = value;`. */
export const constSize = (name: string, value: number): WorkgroupSize => {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`workgroup size ${name} = ${value} is not a positive integer`);
  return { name: identifier(name, 'workgroup size'), value, wgsl: `const ${name}: u32 = ${value}u;` };
};

/** The override most kernels take (src/gpu/workgroups.ts: the pass's entry of WORKGROUP_SIZE). */
export const WG = overrideSize('WG');
/** The override of the tiled all-pairs kernels (a tile of spheres a workgroup). */
export const TILE = overrideSize('TILE');
/** One thread. */
export const ONE_THREAD: WorkgroupSize = { name: '1', value: 1, wgsl: '' };

/** Builtins an entry may take besides the thread index's own, with their WGSL types. */
const BUILTIN_TYPES = {
  subgroup_invocation_id: 'u32',
  subgroup_size: 'u32',
} as const;
export type EntryBuiltin = keyof typeof BUILTIN_TYPES;

/**
 * How a compute entry point opens, declared once: its name, its workgroup size, the index its
 * threads work on and the bounds check that ends the threads past the work.
 */
export interface EntrySpec {
  /** The entry point's name (the pipeline's `entryPoint`). */
  readonly name: string;
  /** Its workgroup size: `WG` (the default), `TILE`, a module constant (`constSize`) or `ONE_THREAD`. */
  readonly size?: WorkgroupSize;
  /**
   * The name of the linear index: `let <index> = flatWorkgroup(wid, nwg) * <size> + lid;` (one a
   * thread; `per: 'workgroup'`: `flatWorkgroup(wid, nwg)`, one a workgroup). The entry then takes
   * `wid`, `nwg` and `lid` (the body may use `lid`: workgroup memory). Without it, no index and no
   * bounds check.
   */
  readonly index?: string;
  /** What the index counts: threads (the default) or workgroups. */
  readonly per?: 'thread' | 'workgroup';
  /** The index's exclusive bound: a thread whose index is at or past it returns at once. */
  readonly bound?: string;
  /**
   * Another condition on which the thread returns at once, tested before the bound (a pass that
   * skips: `grid.skip != 0u`; a bound that is not the index's: `chunk * TILE >= params.count`).
   */
  readonly exit?: string;
  /** Further builtin parameters, by name: `{ lane: 'subgroup_invocation_id' }`. */
  readonly builtins?: Readonly<Record<string, EntryBuiltin>>;
}

/** A declared entry point: what it was declared with, and its WGSL opening. */
export interface Entry {
  readonly name: string;
  readonly size: WorkgroupSize;
  /** The index's name, if it has one. */
  readonly index?: string;
  /** Its parameters: [name, builtin, type] in order. */
  readonly parameters: readonly (readonly [string, string, string])[];
  /**
   * The WGSL up to the body: `@compute @workgroup_size(size)`, the signature and its `{`, the
   * index, the bounds check. The module writes the body and the closing `}` after it.
   */
  readonly wgsl: string;
}

function identifier(name: string, what: string): string {
  if (!/^[A-Za-z_]\w*$/.test(name)) throw new Error(`${what} ${name} is not a WGSL identifier`);
  return name;
}

/**
 * Declares a compute entry point and writes its opening. A kernel of one index per thread:
 *
 *     entry({ name: 'gridScatter', index: 'i', bound: 'grid.sphereCount' })
 *
 * gives
 *
 *     @compute @workgroup_size(WG)
 *     fn gridScatter(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
 *       let i = flatWorkgroup(wid, nwg) * WG + lid;
 *       if (i >= grid.sphereCount) {
 *         return;
 *       }
 *
 * The module declares the size once (`${WG.wgsl}`) and `flatWorkgroup` (shaders/common.wgsl.ts).
 * A bounds check returns before any statement of the body. A kernel whose threads meet at
 * barriers after it must not return one thread and not its workgroup: there the index is the
 * workgroup's (`per: 'workgroup'`), or the bound is left out and the body masks its threads.
 */
export function entry(spec: EntrySpec): Entry {
  const { name, size = WG, index, per = 'thread', bound, exit, builtins = {} } = spec;
  identifier(name, 'entry point');
  if (index === undefined && (bound !== undefined || spec.per !== undefined))
    throw new Error(`${name}: a bound or per without an index`);
  const parameters: [string, string, string][] = [];
  if (index !== undefined) {
    identifier(index, 'index');
    parameters.push(
      ['wid', 'workgroup_id', 'vec3u'],
      ['nwg', 'num_workgroups', 'vec3u'],
      ['lid', 'local_invocation_index', 'u32'],
    );
  }
  for (const [param, builtin] of Object.entries(builtins))
    parameters.push([identifier(param, 'parameter'), builtin, BUILTIN_TYPES[builtin]]);
  const names = parameters.map(([param]) => param);
  if (new Set(names).size !== names.length || (index !== undefined && names.includes(index)))
    throw new Error(`${name}: parameter names repeat (${[...names, index ?? ''].join(', ')})`);
  const lines = [
    `@compute @workgroup_size(${size.name})`,
    `fn ${name}(${parameters.map(([param, builtin, type]) => `@builtin(${builtin}) ${param}: ${type}`).join(', ')}) {`,
  ];
  if (index !== undefined) {
    lines.push(
      per === 'workgroup'
        ? `  let ${index} = flatWorkgroup(wid, nwg);`
        : `  let ${index} = flatWorkgroup(wid, nwg) * ${size.name} + lid;`,
    );
  }
  // WGSL does not mix || and && without parentheses.
  const exits = [
    exit?.includes('&&') ? `(${exit})` : exit,
    bound === undefined ? undefined : `${index} >= ${bound}`,
  ].filter((c): c is string => c !== undefined);
  if (exits.length > 0) lines.push(`  if (${exits.join(' || ')}) {`, '    return;', '  }');
  return { name, size, index, parameters, wgsl: lines.join('\n') };
}
