/**
 * Every shader variant compiles on the device with no error or warning, including the variants
 * no other test happens to create first. (WGSL reserves many words — `filter`, `active`,
 * `from` — that only the compiler catches.)
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from './support/gpu.js';
import { allPairsShader } from '../shaders/allPairs.wgsl.js';
import { gridCountShader, gridScatterShader } from '../shaders/grid.wgsl.js';
import { gridPairsShader } from '../shaders/gridPairs.wgsl.js';
import { scanShader } from '../shaders/scan.wgsl.js';
import { boxAllPairsShader, boxGridPairsShader } from '../shaders/boxes.wgsl.js';
import { castShader } from '../shaders/casts.wgsl.js';

const gpu = useGpu();

const variants: [string, string][] = [
  ['allPairs', allPairsShader()],
  ['gridCount', gridCountShader()],
  ['gridScatter', gridScatterShader()],
  ['scan', scanShader()],
  ...[true, false].map((dense): [string, string] => [`gridPairs dense=${dense}`, gridPairsShader({ dense })]),
  ...(['aabb', 'obb'] as const).map((kind): [string, string] => [`boxAllPairs ${kind}`, boxAllPairsShader({ kind })]),
  ...(['aabb', 'obb'] as const).flatMap((kind) => [true, false].map((dense): [string, string] => [`boxGridPairs ${kind} dense=${dense}`, boxGridPairsShader({ kind, dense })])),
  ...(['nearest', 'count', 'write'] as const).flatMap((mode) => [
    [`cast brute ${mode}`, castShader({ broadphase: 'brute', mode })] as [string, string],
    ...[true, false].map((dense): [string, string] => [`cast grid ${mode} dense=${dense}`, castShader({ broadphase: 'grid', mode, dense })]),
  ]),
];

describe('shaders', () => {
  for (const [name, code] of variants) {
    it(`${name} compiles cleanly`, async () => {
      const module = gpu.device.createShaderModule({ label: name, code });
      const info = await module.getCompilationInfo();
      expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
    });
  }
});
