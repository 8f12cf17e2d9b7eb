/**
 * The TS layouts in src/layout.ts against WGSL as wgsl_reflect parses it: every struct's member
 * offsets and size, both in isolation and as declared inside each shader that uses it.
 */
import { describe, it, expect } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import * as layout from '../src/layout.js';
import * as gridLayout from '../shaders/spatial/layout.js';
import * as allPairsLayout from '../shaders/broadphase/all-pairs/layout.js';
import * as sweepLayout from '../shaders/broadphase/sweep/layout.js';
import * as bvhLayout from '../shaders/spatial/bvhLayout.js';
import * as passesLayout from '../shaders/passes/layout.js';
import * as residentLayout from '../shaders/resident/layout.js';
import * as particlesLayout from '../shaders/particles/layout.js';
import * as meshLayout from '../shaders/mesh/layout.js';
import { defineStruct, packStruct, type StructLayout, type FieldType } from '../src/layout.js';
import { shaderVariants } from './support/shaderVariants.js';

type AnyStruct = StructLayout<Record<string, FieldType>>;
/** Every module that declares structs: the shared ones (src/layout.ts) and each subsystem's, beside its kernels. */
const modules = [
  layout,
  gridLayout,
  allPairsLayout,
  sweepLayout,
  bvhLayout,
  passesLayout,
  residentLayout,
  particlesLayout,
  meshLayout,
];
const structs = (modules.flatMap((m) => Object.values(m)) as unknown[]).filter(
  (v): v is AnyStruct => typeof v === 'object' && v !== null && 'wgsl' in v && 'offsets' in v,
);

/** The WGSL of a struct and of the structs it contains, in declaration order. */
function declaration(struct: AnyStruct): string {
  const inner = struct.fields.flatMap((f) =>
    typeof f.type === 'string' ? [] : [declaration(f.type.array as AnyStruct)],
  );
  return [...inner, struct.wgsl].join('\n');
}

/**
 * Structs a shader shares with the host: the types of its uniform and storage variables, the
 * element types of its storage arrays, and the structs those contain. (Structs used only inside
 * the shader, like the particle step's Contact, never cross to the host.)
 */
function hostStructs(code: string): Set<string> {
  const reflect = new WgslReflect(code);
  const byName = new Map(reflect.structs.map((s) => [s.name, s]));
  const out = new Set<string>();
  const add = (name: string | undefined): void => {
    const struct = name ? byName.get(name) : undefined;
    if (!struct || out.has(struct.name)) return;
    out.add(struct.name);
    for (const member of struct.members)
      add((member.type as { format?: { name: string } }).format?.name ?? member.type.name);
  };
  for (const v of [...reflect.uniforms, ...reflect.storage])
    add((v.type as { format?: { name: string } }).format?.name ?? v.type.name);
  return out;
}

function expectMatches(struct: AnyStruct, code: string): void {
  const reflected = new WgslReflect(code).structs.find((s) => s.name === struct.name);
  expect(reflected, `${struct.name} is declared`).toBeDefined();
  expect(reflected!.size, `${struct.name} size`).toBe(struct.size);
  expect(reflected!.members.map((m) => [m.name, m.offset])).toEqual(struct.fields.map((f) => [f.name, f.offset]));
}

describe('layouts', () => {
  it('declares exactly the structs the shaders share with the host', () => {
    const used = new Set(shaderVariants().flatMap(([, code]) => [...hostStructs(code)]));
    expect(structs.map((s) => s.name).sort()).toEqual([...used].sort());
  });

  for (const struct of structs) {
    it(`${struct.name}: TS offsets and size equal wgsl_reflect's`, () => {
      expectMatches(struct, declaration(struct));
    });
  }

  for (const [name, code] of shaderVariants()) {
    it(`${name}: every struct it shares with the host is the one its layout module declares`, () => {
      const declared = [...hostStructs(code)];
      expect(declared.length).toBeGreaterThan(0);
      for (const structName of declared) {
        const struct = structs.find((s) => s.name === structName);
        expect(struct, `${structName} comes from a layout module`).toBeDefined();
        expectMatches(struct!, code);
      }
    });
  }

  it('follows WGSL alignment: vec3 takes 16-byte alignment, a scalar may follow in its padding', () => {
    const s = defineStruct('T', { a: 'f32', b: 'vec3f', c: 'f32', d: 'vec2u' });
    expect(s.offsets).toEqual({ a: 0, b: 16, c: 28, d: 32 });
    expect(s.size).toBe(48);
    expectMatches(s as AnyStruct, s.wgsl);
  });

  it('packs values at their offsets', () => {
    const data = new DataView(
      packStruct(gridLayout.GridParams, {
        sphereCount: 7,
        levelBias: -5,
        levels: [
          { dims: [4, 5, 6], cellSize: 0.5 },
          { origin: [1, 2, 3], count: 9 },
        ],
      }),
    );
    expect(data.getUint32(gridLayout.GridParams.offsets.sphereCount, true)).toBe(7);
    expect(data.getInt32(gridLayout.GridParams.offsets.levelBias, true)).toBe(-5);
    const level0 = gridLayout.GridParams.offsets.levels;
    const stride = gridLayout.GridLevel.size;
    expect(data.getUint32(level0 + gridLayout.GridLevel.offsets.dims + 4, true)).toBe(5);
    expect(data.getFloat32(level0 + gridLayout.GridLevel.offsets.cellSize, true)).toBe(0.5);
    expect(data.getUint32(level0 + stride + gridLayout.GridLevel.offsets.count, true)).toBe(9);
    expect(
      [0, 4, 8].map((o) => data.getFloat32(level0 + stride + gridLayout.GridLevel.offsets.origin + o, true)),
    ).toEqual([1, 2, 3]);
  });

  it('rejects values of the wrong shape', () => {
    expect(() => packStruct(gridLayout.GridParams, { levels: [{ origin: [1, 2] }] })).toThrow(/origin takes 3/);
  });
});
