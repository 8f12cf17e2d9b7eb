/**
 * Explicit bind group layouts and compute pipelines. Every pass declares its bindings as a
 * list of kinds, in binding order, next to the WGSL that declares the same bindings; nothing
 * uses `layout: 'auto'`, so a bind group can be shared between pipelines of one pass.
 *
 * Layouts and pipelines are cached per device: a second collider or world on the same device
 * compiles nothing (compiling is the slow part of creating one, on SwiftShader tens of ms a
 * pipeline), and creating and destroying them repeatedly does not grow memory.
 */
import { ShaderStage } from './flags.js';

export type BindingKind = 'uniform' | 'storage' | 'read-only-storage';

interface DeviceCache {
  layouts: Map<string, GPUBindGroupLayout>;
  layoutIds: WeakMap<GPUBindGroupLayout, number>;
  pipelines: Map<string, GPUComputePipeline>;
}

const caches = new WeakMap<GPUDevice, DeviceCache>();

function cacheOf(device: GPUDevice): DeviceCache {
  let cache = caches.get(device);
  if (!cache) {
    cache = { layouts: new Map(), layoutIds: new WeakMap(), pipelines: new Map() };
    caches.set(device, cache);
  }
  return cache;
}

export function bindGroupLayout(device: GPUDevice, label: string, kinds: readonly BindingKind[]): GPUBindGroupLayout {
  const cache = cacheOf(device);
  const key = kinds.join(',');
  let layout = cache.layouts.get(key);
  if (!layout) {
    layout = device.createBindGroupLayout({
      label,
      entries: kinds.map((type, binding) => ({ binding, visibility: ShaderStage.COMPUTE, buffer: { type } })),
    });
    cache.layouts.set(key, layout);
    cache.layoutIds.set(layout, cache.layouts.size);
  }
  return layout;
}

export type BindingResource = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

export function bindGroup(device: GPUDevice, label: string, layout: GPUBindGroupLayout, resources: readonly BindingResource[]): GPUBindGroup {
  return device.createBindGroup({
    label,
    layout,
    entries: resources.map((resource, binding) => ({ binding, resource: 'buffer' in resource ? resource : { buffer: resource } })),
  });
}

export function computePipeline(
  device: GPUDevice,
  label: string,
  layouts: readonly GPUBindGroupLayout[],
  code: string,
  entryPoint: string,
  constants?: Record<string, number>,
): GPUComputePipeline {
  const cache = cacheOf(device);
  const ids = layouts.map((layout) => cache.layoutIds.get(layout) ?? -1);
  const key = `${ids.join(',')}|${entryPoint}|${JSON.stringify(constants ?? {})}|${code}`;
  let pipeline = ids.includes(-1) ? undefined : cache.pipelines.get(key);
  if (!pipeline) {
    const module = device.createShaderModule({ label, code });
    pipeline = device.createComputePipeline({
      label,
      layout: device.createPipelineLayout({ label, bindGroupLayouts: [...layouts] }),
      compute: { module, entryPoint, constants },
    });
    if (!ids.includes(-1)) cache.pipelines.set(key, pipeline);
  }
  return pipeline;
}
