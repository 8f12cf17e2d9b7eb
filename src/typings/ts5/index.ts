/// <reference types="@webgpu/types" preserve="true" />
// The declarations of `webgpu-collide` for TypeScript before 6 (package.json: the `types@<6`
// condition, and typesVersions `<6.0` for `moduleResolution: node10`): their lib.dom has no
// WebGPU, so this brings it from the dependency @webgpu/types. TypeScript 6 and later get
// ../index.ts: their lib.dom declares WebGPU, and @webgpu/types beside it would be a duplicate.
export * from '../../index.js';
