// The declarations of `webgpu-collide` for TypeScript 6 and later (package.json's `types`
// condition): WebGPU's types come from the compiler's own lib.dom (or lib.webworker), which lacks
// only the flag constants: ./flags.ts. TypeScript 5 gets ./ts5/index.ts instead.
import './flags.js';
export * from '../index.js';
