/**
 * Every shader variant compiles on the device with no error or warning, including the variants
 * no other test happens to create first. (WGSL reserves many words — `filter`, `active`,
 * `from` — that only the compiler catches.) And every variant fits WebGPU's default limits on
 * bindings, so that a device made with no requiredLimits (a user's own) runs every pass.
 */
import { describe, it, expect } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { useGpu } from './support/gpu.js';
import { shaderVariants } from './support/shaderVariants.js';
import { runtimeArrays, sizeArrays } from '../src/gpu/pipeline.js';
import { compiledFor, gridLayoutOf } from '../shaders/spatial/grid.wgsl.js';

const gpu = useGpu();
const variants = shaderVariants();

describe('shaders', () => {
  for (const [name, code] of variants) {
    it(`${name} compiles cleanly`, async () => {
      const module = gpu.device.createShaderModule({ label: name, code });
      const info = await module.getCompilationInfo();
      expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
    });
  }

  // On software adapters, pipelines are compiled again with their runtime-sized arrays given the
  // bound length (src/gpu/pipeline.ts): every such array must be found, with its stride, and
  // every sized variant must compile.
  it('every runtime-sized storage array of every variant is found, with the stride WGSL gives it', () => {
    for (const [name, code] of variants) {
      const reflected = new WgslReflect(code).storage
        .filter((v) => v.group === 0 && v.type.name === 'array' && (v.type as unknown as { count: number }).count === 0)
        .map((v) => `${name}: ${v.binding} ${v.name} stride ${(v.type as unknown as { stride: number }).stride}`);
      const found = runtimeArrays(code).map((a) => `${name}: ${a.binding} ${a.name} stride ${a.stride}`);
      expect(found).toEqual(reflected);
    }
  });

  for (const [name, code] of variants) {
    const arrays = runtimeArrays(code);
    if (arrays.length === 0) continue;
    it(`${name} compiles cleanly with its arrays sized`, async () => {
      const lengths = arrays.map((_, k) => 5000 + k);
      const sized = sizeArrays(code, arrays, lengths);
      const counts = new WgslReflect(sized).storage
        .filter((v) => v.group === 0 && v.type.name === 'array')
        .map((v) => [v.name, (v.type as unknown as { count: number }).count]);
      expect(counts).toEqual(expect.arrayContaining(arrays.map((a, k) => [a.name, lengths[k]])));
      expect(sized).not.toMatch(new RegExp(`arrayLength\\(&(${arrays.map((a) => a.name).join('|')})\\)`));
      const module = gpu.device.createShaderModule({ label: `${name} sized`, code: sized });
      const info = await module.getCompilationInfo();
      expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
    });
  }

  // WebGPU's defaults: maxStorageBuffersPerShaderStage 8, maxUniformBuffersPerShaderStage 12.
  it('every variant declares at most 8 storage buffers and 12 uniform buffers (the default limits)', () => {
    const over = variants
      .map(([name, code]) => ({
        name,
        storage: code.match(/var<storage/g)?.length ?? 0,
        uniform: code.match(/var<uniform>/g)?.length ?? 0,
      }))
      .filter((v) => v.storage > 8 || v.uniform > 12);
    expect(over).toEqual([]);
  });
});

describe('compiledFor: kernels compiled for a plan of one level', () => {
  it('reads level 0 through the literal index everywhere, and only when the plan has one level', () => {
    for (const [name, code] of variants.filter(([n]) => n.includes('oneLevel=true'))) {
      expect(code.match(/grid\.levels\[[^\]]*\]/g) ?? [], name).not.toHaveLength(0);
      expect(
        (code.match(/grid\.levels\[[^\]]*\]/g) ?? []).filter((m) => m !== 'grid.levels[0u]'),
        name,
      ).toEqual([]);
    }
    for (const [name, code] of variants.filter(([n]) => n.includes('oneLevel=false'))) {
      expect(code.includes('grid.levels[0u]'), name).toBe(false);
    }
    expect(gridLayoutOf({ dense: true, levels: [{}] })).toEqual({ dense: true, oneLevel: true });
    expect(gridLayoutOf({ dense: false, levels: [{}, {}] })).toEqual({ dense: false, oneLevel: false });
  });

  it('refuses an index it cannot rewrite, rather than leave a level read behind', () => {
    expect(compiledFor('let a = grid.levels[b].dims;', { dense: true, oneLevel: false })).toBe(
      'let a = grid.levels[b].dims;',
    );
    expect(compiledFor('let a = grid.levels[ b ].dims;', { dense: true, oneLevel: true })).toBe(
      'let a = grid.levels[0u].dims;',
    );
    expect(() => compiledFor('let a = grid.levels[b + 1u].dims;', { dense: true, oneLevel: true })).toThrow(
      /not a name/,
    );
  });
});
