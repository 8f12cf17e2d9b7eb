/// <reference types="@webgpu/types" preserve="true" />
// `webgpu-collide/node` for TypeScript before 6: see ./index.ts.
export * from '../../node.js';
