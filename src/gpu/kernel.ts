/**
 * A kernel's bindings, declared once by name. `bindings({ ... })` numbers the entries in
 * declaration order (group 0) and gives, from that one list:
 *
 * - `wgsl`: the WGSL declarations, `@group(0) @binding(i) var<...> name: type;` each, for the
 *   shader module to interpolate (the form src/gpu/pipeline.ts finds runtime-sized arrays in);
 * - `layout(device)`: the bind group layout (cached per device by its kinds, as before);
 * - `bind(device, label, { name: buffer, ... })`: the bind group, with every name required and
 *   no other allowed (TypeScript checks it), placed at its binding.
 *
 * So no kernel numbers a binding by hand, and the shader, the layout and the bind group cannot
 * disagree about which buffer is where (test/kernel.test.ts checks each declaration against the
 * WGSL that uses it, as wgsl_reflect parses it).
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

const ACCESS: Record<BindingKind, string> = { uniform: 'uniform', 'read-only-storage': 'storage, read', storage: 'storage, read_write' };

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
      return bindGroup(device, label, bindGroupLayout(device, `${label} layout`, kinds), entries.map((e) => resources[e.name]));
    },
  };
}

/** The binding names of a declaration. */
export type BindingNames<B> = B extends Bindings<infer N> ? N : never;
