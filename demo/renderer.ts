/**
 * Draws the particle world straight from its GPU buffers (no readback): every particle a
 * camera-facing quad shaded as a lit sphere in the fragment shader (ray–sphere intersection,
 * written depth), coloured by speed, static particles grey; the particles from `glassFrom` on
 * (the demo's hopper) translucent, so that what is inside shows; the walls as lines; ray-rain
 * hits as small red spheres read from the raycast's hit records.
 */
import { CastHitRecord, defineStruct, packStruct } from '../src/layout.js';

/** The per-frame uniform, declared once (WGSL text and offsets). */
const Frame = defineStruct('Frame', {
  viewProj: 'mat4x4f',
  eye: 'vec3f',
  highlight: 'i32',
  boundsMin: 'vec3f',
  speedScale: 'f32',
  boundsMax: 'vec3f',
  hitRadius: 'f32',
});

const frameStruct = /* wgsl */ `
${Frame.wgsl}
@group(0) @binding(0) var<uniform> frame: Frame;
`;

const impostor = /* wgsl */ `
struct Impostor {
  @builtin(position) position: vec4f,
  @location(0) world: vec3f,
  @location(1) @interpolate(flat) sphere: vec4f,
  @location(2) @interpolate(flat) color: vec3f,
}

const CORNERS = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0));

// A quad facing the eye, touching the sphere's front: seen from the eye, the sphere's silhouette
// cuts that plane in a circle of radius r·sqrt((d − r) / (d + r)) < r (d: the eye's distance to
// the centre), so a half-width of r (and a little) covers it.
fn impostorVertex(sphere: vec4f, corner: u32, color: vec3f) -> Impostor {
  let toEye = normalize(frame.eye - sphere.xyz);
  let side = normalize(cross(vec3f(0.0, 1.0, 0.0) + toEye * 1e-3, toEye));
  let up = cross(toEye, side);
  let c = CORNERS[corner];
  let world = sphere.xyz + (side * c.x + up * c.y) * (sphere.w * 1.02) + toEye * sphere.w;
  var out: Impostor;
  out.position = frame.viewProj * vec4f(world, 1.0);
  out.world = world;
  out.sphere = sphere;
  out.color = color;
  return out;
}

struct Shaded {
  @location(0) color: vec4f,
  @builtin(frag_depth) depth: f32,
}

fn shadeSphere(in: Impostor) -> Shaded {
  let dir = normalize(in.world - frame.eye);
  let d = frame.eye - in.sphere.xyz;
  let b = dot(d, dir);
  let c = dot(d, d) - in.sphere.w * in.sphere.w;
  let disc = b * b - c;
  if (disc < 0.0) {
    discard;
  }
  let t = -b - sqrt(disc);
  let p = frame.eye + dir * t;
  let n = normalize(p - in.sphere.xyz);
  let light = normalize(vec3f(0.4, 1.0, 0.6));
  let diffuse = max(dot(n, light), 0.0);
  let specular = pow(max(dot(reflect(-light, n), -dir), 0.0), 32.0);
  var out: Shaded;
  out.color = vec4f(in.color * (0.25 + 0.75 * diffuse) + vec3f(0.35 * specular), 1.0);
  let clip = frame.viewProj * vec4f(p, 1.0);
  out.depth = clip.z / clip.w;
  return out;
}

@fragment
fn shade(in: Impostor) -> Shaded {
  return shadeSphere(in);
}

// The same sphere, mostly see-through (blended over what is behind, depth not written).
@fragment
fn shadeGlass(in: Impostor) -> Shaded {
  var out = shadeSphere(in);
  out.color = vec4f(out.color.rgb, 0.22);
  return out;
}
`;

const particlesShader = /* wgsl */ `
${frameStruct}
@group(0) @binding(1) var<storage, read> spheres: array<vec4f>;
@group(0) @binding(2) var<storage, read> velocities: array<vec4f>;
${impostor}

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> Impostor {
  let velocity = velocities[i];
  let speed = length(velocity.xyz) * frame.speedScale;
  var color = mix(vec3f(0.16, 0.42, 0.85), vec3f(1.0, 0.55, 0.15), clamp(speed, 0.0, 1.0));
  if (velocity.w == 0.0) {
    color = vec3f(0.45, 0.47, 0.52); // static (inverse mass 0): the hopper
  }
  if (i32(i) == frame.highlight) {
    color = vec3f(1.0, 1.0, 0.3);
  }
  return impostorVertex(spheres[i], v, color);
}
`;

const hitsShader = /* wgsl */ `
${frameStruct}
${CastHitRecord.wgsl}
@group(0) @binding(1) var<storage, read> hits: array<CastHitRecord>;
${impostor}

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> Impostor {
  let hit = hits[i];
  var out = impostorVertex(vec4f(hit.point, frame.hitRadius), v, vec3f(0.95, 0.1, 0.1));
  if (hit.index < 0) {
    out.position = vec4f(2.0, 2.0, 2.0, 1.0); // a miss: off screen
  }
  return out;
}
`;

const boxShader = /* wgsl */ `
${frameStruct}
@vertex
fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {
  // 12 edges of the bounds, 2 vertices each: edge e runs along axis e / 4.
  let edge = v / 2u;
  let axis = edge / 4u;
  let k = edge % 4u;
  var corner = vec3f(0.0);
  corner[(axis + 1u) % 3u] = f32(k & 1u);
  corner[(axis + 2u) % 3u] = f32((k >> 1u) & 1u);
  corner[axis] = f32(v & 1u);
  let p = mix(frame.boundsMin, frame.boundsMax, corner);
  return frame.viewProj * vec4f(p, 1.0);
}
@fragment
fn fs() -> @location(0) vec4f {
  return vec4f(0.55, 0.6, 0.7, 1.0);
}
`;

export interface FrameState {
  viewProj: Float32Array;
  eye: ArrayLike<number>;
  highlight: number;
  bounds: ArrayLike<number>;
  speedScale: number;
  hitRadius: number;
}

export class Renderer {
  private readonly frame: GPUBuffer;
  private readonly particles: GPURenderPipeline;
  private readonly glass: GPURenderPipeline;
  private readonly hits: GPURenderPipeline;
  private readonly box: GPURenderPipeline;
  private depth: GPUTexture | null = null;

  constructor(private readonly device: GPUDevice, private readonly context: GPUCanvasContext, format: GPUTextureFormat) {
    this.frame = device.createBuffer({ label: 'demo frame', size: Frame.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const depthStencil: GPUDepthStencilState = { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' };
    const impostorPipeline = (label: string, code: string, glass = false): GPURenderPipeline => {
      const module = device.createShaderModule({ label, code });
      const blend: GPUBlendState = { color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' }, alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' } };
      return device.createRenderPipeline({
        label,
        layout: 'auto',
        vertex: { module, entryPoint: 'vs' },
        fragment: { module, entryPoint: glass ? 'shadeGlass' : 'shade', targets: [glass ? { format, blend } : { format }] },
        primitive: { topology: 'triangle-list' },
        depthStencil: glass ? { ...depthStencil, depthWriteEnabled: false } : depthStencil,
      });
    };
    this.particles = impostorPipeline('demo particles', particlesShader);
    this.glass = impostorPipeline('demo glass particles', particlesShader, true);
    this.hits = impostorPipeline('demo ray-rain hits', hitsShader);
    const boxModule = device.createShaderModule({ label: 'demo box', code: boxShader });
    this.box = device.createRenderPipeline({
      label: 'demo box',
      layout: 'auto',
      vertex: { module: boxModule, entryPoint: 'vs' },
      fragment: { module: boxModule, entryPoint: 'fs', targets: [{ format }] },
      primitive: { topology: 'line-list' },
      depthStencil,
    });
  }

  /**
   * Records the frame into `encoder`: walls, particles (those from `glassFrom` on translucent,
   * after the others), and (with hits) the ray-rain points.
   */
  draw(encoder: GPUCommandEncoder, state: FrameState, spheres: GPUBuffer, velocities: GPUBuffer, count: number, hits?: { buffer: GPUBuffer; count: number }, glassFrom = count): void {
    const texture = this.context.getCurrentTexture();
    if (!this.depth || this.depth.width !== texture.width || this.depth.height !== texture.height) {
      this.depth?.destroy();
      this.depth = this.device.createTexture({ label: 'demo depth', size: [texture.width, texture.height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
    const b = state.bounds;
    this.device.queue.writeBuffer(this.frame, 0, packStruct(Frame, {
      viewProj: Array.from(state.viewProj),
      eye: [state.eye[0], state.eye[1], state.eye[2]],
      highlight: state.highlight,
      boundsMin: [b[0], b[1], b[2]],
      speedScale: state.speedScale,
      boundsMax: [b[3], b[4], b[5]],
      hitRadius: state.hitRadius,
    }));

    const pass = encoder.beginRenderPass({
      label: 'demo frame',
      colorAttachments: [{ view: texture.createView(), clearValue: { r: 0.06, g: 0.07, b: 0.09, a: 1 }, loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: this.depth.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' },
    });
    pass.setPipeline(this.box);
    pass.setBindGroup(0, this.device.createBindGroup({ layout: this.box.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: this.frame } }] }));
    pass.draw(24);
    const solid = Math.min(glassFrom, count);
    const particles = (pipeline: GPURenderPipeline, first: number, instances: number): void => {
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, this.device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: this.frame } }, { binding: 1, resource: { buffer: spheres, size: 16 * count } }, { binding: 2, resource: { buffer: velocities, size: 16 * count } }],
      }));
      pass.draw(6, instances, 0, first);
    };
    if (solid > 0) particles(this.particles, 0, solid);
    if (hits && hits.count > 0) {
      pass.setPipeline(this.hits);
      pass.setBindGroup(0, this.device.createBindGroup({
        layout: this.hits.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: this.frame } }, { binding: 1, resource: { buffer: hits.buffer, size: CastHitRecord.size * hits.count } }],
      }));
      pass.draw(6, hits.count);
    }
    // Translucent last, over everything opaque.
    if (count > solid) particles(this.glass, solid, count - solid);
    pass.end();
  }
}
