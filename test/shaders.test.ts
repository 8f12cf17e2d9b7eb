/**
 * Every shader variant compiles on the device with no error or warning, including the variants
 * no other test happens to create first. (WGSL reserves many words — `filter`, `active`,
 * `from` — that only the compiler catches.) And every variant fits WebGPU's default limits on
 * bindings, so that a device made with no requiredLimits (a user's own) runs every pass.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { shaderVariants } from './support/shaderVariants.js';

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

  // WebGPU's defaults: maxStorageBuffersPerShaderStage 8, maxUniformBuffersPerShaderStage 12.
  it('every variant declares at most 8 storage buffers and 12 uniform buffers (the default limits)', () => {
    const over = variants
      .map(([name, code]) => ({ name, storage: code.match(/var<storage/g)?.length ?? 0, uniform: code.match(/var<uniform>/g)?.length ?? 0 }))
      .filter((v) => v.storage > 8 || v.uniform > 12);
    expect(over).toEqual([]);
  });
});
