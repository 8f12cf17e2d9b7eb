/**
 * A device for tests in any environment: navigator.gpu in a browser (vitest's browser mode:
 * Chromium and Firefox, on SwiftShader in CI) and in Deno (its built-in WebGPU,
 * scripts/deno-tests.ts), dawn.node in Node. The Node entry is imported only in Node, by a path
 * the browser bundle never sees.
 */
import { requestBrowserDevice } from '../../src/device.js';

export const inBrowser = typeof window !== 'undefined' && typeof navigator !== 'undefined' && 'gpu' in navigator;

/** Deno: navigator.gpu is built in (wgpu); no window. */
export const inDeno = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';

const NODE_ENTRY = '../../src/node.js';

export async function requestTestDevice(): Promise<GPUDevice> {
  if (inBrowser || inDeno) return requestBrowserDevice();
  const node = (await import(/* @vite-ignore */ NODE_ENTRY)) as typeof import('../../src/node.js');
  return node.requestNodeDevice();
}

/** Bitwise equality of two typed arrays (no Node Buffer in a browser). */
export function sameBits(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.every((v, k) => v === y[k]);
}
