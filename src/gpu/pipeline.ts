/**
 * Explicit bind group layouts and compute pipelines. Every pass declares its bindings as a
 * list of kinds, in binding order, next to the WGSL that declares the same bindings; nothing
 * uses `layout: 'auto'`, so a bind group can be shared between pipelines of one pass.
 */
import { ShaderStage } from './flags.js';

export type BindingKind = 'uniform' | 'storage' | 'read-only-storage';

export function bindGroupLayout(device: GPUDevice, label: string, kinds: readonly BindingKind[]): GPUBindGroupLayout {
  return device.createBindGroupLayout({
    label,
    entries: kinds.map((type, binding) => ({ binding, visibility: ShaderStage.COMPUTE, buffer: { type } })),
  });
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
  const module = device.createShaderModule({ label, code });
  return device.createComputePipeline({
    label,
    layout: device.createPipelineLayout({ label, bindGroupLayouts: [...layouts] }),
    compute: { module, entryPoint, constants },
  });
}
