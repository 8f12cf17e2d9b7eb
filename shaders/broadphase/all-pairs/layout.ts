/** The all-pairs kernels' structs. Each is interpolated into the shaders that use it as `${Struct.wgsl}` (src/layout.ts). */
import { defineStruct } from '../../../src/layout.js';

/** The all-pairs tile kernel's parameters (uniform). */
export const AllPairsParams = defineStruct('AllPairsParams', {
  sphereCount: 'u32',
  tileCount: 'u32',
});
