/**
 * WebGPU's flag constants (`GPUBufferUsage.STORAGE`, ...) as globals, for TypeScript 6 and later:
 * their lib.dom declares WebGPU's interfaces but not these five namespaces, which a user needs to
 * make the buffers that the GPU-resident calls take. The same declarations as @webgpu/types's, so
 * they merge with it when a project loads both. (TypeScript 5 gets @webgpu/types instead: ./ts5.)
 */
declare global {
  interface GPUBufferUsage {
    readonly MAP_READ: GPUFlagsConstant;
    readonly MAP_WRITE: GPUFlagsConstant;
    readonly COPY_SRC: GPUFlagsConstant;
    readonly COPY_DST: GPUFlagsConstant;
    readonly INDEX: GPUFlagsConstant;
    readonly VERTEX: GPUFlagsConstant;
    readonly UNIFORM: GPUFlagsConstant;
    readonly STORAGE: GPUFlagsConstant;
    readonly INDIRECT: GPUFlagsConstant;
    readonly QUERY_RESOLVE: GPUFlagsConstant;
  }
  var GPUBufferUsage: GPUBufferUsage;
  interface GPUColorWrite {
    readonly RED: GPUFlagsConstant;
    readonly GREEN: GPUFlagsConstant;
    readonly BLUE: GPUFlagsConstant;
    readonly ALPHA: GPUFlagsConstant;
    readonly ALL: GPUFlagsConstant;
  }
  var GPUColorWrite: GPUColorWrite;
  interface GPUMapMode {
    readonly READ: GPUFlagsConstant;
    readonly WRITE: GPUFlagsConstant;
  }
  var GPUMapMode: GPUMapMode;
  interface GPUShaderStage {
    readonly VERTEX: GPUFlagsConstant;
    readonly FRAGMENT: GPUFlagsConstant;
    readonly COMPUTE: GPUFlagsConstant;
  }
  var GPUShaderStage: GPUShaderStage;
  interface GPUTextureUsage {
    readonly COPY_SRC: GPUFlagsConstant;
    readonly COPY_DST: GPUFlagsConstant;
    readonly TEXTURE_BINDING: GPUFlagsConstant;
    readonly STORAGE_BINDING: GPUFlagsConstant;
    readonly RENDER_ATTACHMENT: GPUFlagsConstant;
  }
  var GPUTextureUsage: GPUTextureUsage;
}
export {};
