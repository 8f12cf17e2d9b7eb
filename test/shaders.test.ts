/**
 * Every shader variant compiles on the device with no error or warning, including the variants
 * no other test happens to create first. (WGSL reserves many words — `filter`, `active`,
 * `from` — that only the compiler catches.)
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
});
