// `webgpu-collide/node` for TypeScript 6 and later: see ./index.ts.
import './flags.js';
export * from '../node.js';
