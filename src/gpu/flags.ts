/**
 * WebGPU's usage and stage flags, with the values the spec fixes. The library uses these
 * instead of the `GPUBufferUsage`/`GPUShaderStage`/`GPUMapMode` globals so that it works with a
 * device from any implementation (dawn.node does not install its globals unless asked).
 */
export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  INDEX: 0x0010,
  VERTEX: 0x0020,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
  QUERY_RESOLVE: 0x0200,
} as const;

export const ShaderStage = { VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 } as const;

export const MapMode = { READ: 0x0001, WRITE: 0x0002 } as const;
