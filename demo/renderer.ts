/**
 * Draws the particle world straight from its GPU buffers (no readback): every particle a
 * camera-facing quad shaded as a lit sphere in the fragment shader (ray–sphere intersection,
 * written depth), coloured by speed, static particles grey; the box colliders as instanced cubes
 * read from the world's pose buffer (`world.colliderBuffers.poses`: centre, half extents,
 * quaternion), those before `solidFrom` (the demo's hopper) translucent, so that what is inside
 * shows, the rest (the paddle) solid; the walls as lines; ray-rain hits as small red spheres read
 * from the raycast's hit records.
 */
import { defineStruct, packStruct } from '../src/layout.js';
import { CastHitRecord } from '../src/index.js';

/** The per-frame uniform, declared once (WGSL text and offsets). */
const Frame = defineStruct('Frame', {
  viewProj: 'mat4x4f',
  eye: 'vec3f',
  highlight: 'i32',
  boundsMin: 'vec3f',
  speedScale: 'f32',
  boundsMax: 'vec3f',
  hitRadius: 'f32',
  hotBox: 'i32',
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
    color = vec3f(0.45, 0.47, 0.52); // static (inverse mass 0)
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

// The box colliders: 36 vertices a box (6 faces, 2 triangles each, counter-clockwise seen from
// outside), instance i drawn from poses[3i] (centre), poses[3i + 1] (half extents), poses[3i + 2]
// (unit quaternion x, y, z, w), flat-shaded.
const collidersShader = /* wgsl */ `
${frameStruct}
@group(0) @binding(1) var<storage, read> poses: array<vec4f>;

struct BoxVertex {
  @builtin(position) position: vec4f,
  @location(0) @interpolate(flat) normal: vec3f,
  @location(1) @interpolate(flat) box: u32,
}

const CORNERS = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0));

fn rotate(q: vec4f, v: vec3f) -> vec3f {
  let t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> BoxVertex {
  // Face f = v / 6 has its normal along axis f / 2, towards + for odd f; its corners (u, w) run
  // counter-clockwise about that normal (u mirrored on the − faces).
  let face = v / 6u;
  let axis = face / 2u;
  let side = select(-1.0, 1.0, (face & 1u) == 1u);
  let c = CORNERS[v % 6u];
  var local = vec3f(0.0);
  local[axis] = side;
  local[(axis + 1u) % 3u] = c.x * side;
  local[(axis + 2u) % 3u] = c.y;
  var n = vec3f(0.0);
  n[axis] = side;
  let centre = poses[3u * i].xyz;
  let half = poses[3u * i + 1u].xyz;
  let q = poses[3u * i + 2u];
  var out: BoxVertex;
  out.position = frame.viewProj * vec4f(centre + rotate(q, local * half), 1.0);
  out.normal = rotate(q, n);
  out.box = i;
  return out;
}

fn lit(n: vec3f, base: vec3f) -> vec3f {
  let light = normalize(vec3f(0.4, 1.0, 0.6));
  return base * (0.35 + 0.65 * max(dot(n, light), 0.0));
}

// The paddle (and any box from solidFrom on): opaque, green, light when hovered or dragged.
@fragment
fn solid(in: BoxVertex) -> @location(0) vec4f {
  var base = vec3f(0.25, 0.72, 0.42);
  if (i32(in.box) == frame.hotBox) {
    base = vec3f(0.55, 0.95, 0.6);
  }
  return vec4f(lit(in.normal, base), 1.0);
}

// The hopper's plates: see-through, so that the particles inside show (blended, depth not written).
@fragment
fn glass(in: BoxVertex) -> @location(0) vec4f {
  return vec4f(lit(in.normal, vec3f(0.62, 0.67, 0.78)), 0.3);
}
`;

export interface FrameState {
  viewProj: Float32Array;
  eye: ArrayLike<number>;
  highlight: number;
  bounds: ArrayLike<number>;
  speedScale: number;
  hitRadius: number;
  /** The box drawn highlighted (hovered or dragged), or −1. */
  hotBox: number;
}

/** The box colliders to draw: the world's pose buffer (3 vec4f a box), how many, and from which index on they are opaque. */
export interface BoxesToDraw {
  poses: GPUBuffer;
  count: number;
  /** Boxes 0 … solidFrom − 1 are drawn translucent (the hopper), the rest opaque. */
  solidFrom: number;
}

export class Renderer {
  private readonly frame: GPUBuffer;
  private readonly particles: GPURenderPipeline;
  private readonly hits: GPURenderPipeline;
  private readonly solidBoxes: GPURenderPipeline;
  private readonly glassBoxes: GPURenderPipeline;
  private readonly box: GPURenderPipeline;
  private depth: GPUTexture | null = null;

  constructor(
    private readonly device: GPUDevice,
    private readonly context: GPUCanvasContext,
    format: GPUTextureFormat,
  ) {
    this.frame = device.createBuffer({
      label: 'demo frame',
      size: Frame.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    const depthStencil: GPUDepthStencilState = { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' };
    const impostorPipeline = (label: string, code: string): GPURenderPipeline => {
      const module = device.createShaderModule({ label, code });
      return device.createRenderPipeline({
        label,
        layout: 'auto',
        vertex: { module, entryPoint: 'vs' },
        fragment: { module, entryPoint: 'shade', targets: [{ format }] },
        primitive: { topology: 'triangle-list' },
        depthStencil,
      });
    };
    this.particles = impostorPipeline('demo particles', particlesShader);
    this.hits = impostorPipeline('demo ray-rain hits', hitsShader);
    const collidersModule = device.createShaderModule({ label: 'demo box colliders', code: collidersShader });
    const blend: GPUBlendState = {
      color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' },
      alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' },
    };
    const boxPipeline = (glass: boolean): GPURenderPipeline =>
      device.createRenderPipeline({
        label: glass ? 'demo glass boxes' : 'demo solid boxes',
        layout: 'auto',
        vertex: { module: collidersModule, entryPoint: 'vs' },
        fragment: {
          module: collidersModule,
          entryPoint: glass ? 'glass' : 'solid',
          targets: [glass ? { format, blend } : { format }],
        },
        primitive: { topology: 'triangle-list', cullMode: 'back' },
        depthStencil: glass ? { ...depthStencil, depthWriteEnabled: false } : depthStencil,
      });
    this.solidBoxes = boxPipeline(false);
    this.glassBoxes = boxPipeline(true);
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
   * Records the frame into `encoder`: walls, particles, the opaque boxes, (with hits) the
   * ray-rain points, and the translucent boxes last, over everything opaque.
   */
  draw(
    encoder: GPUCommandEncoder,
    state: FrameState,
    spheres: GPUBuffer,
    velocities: GPUBuffer,
    count: number,
    boxes?: BoxesToDraw | null,
    hits?: { buffer: GPUBuffer; count: number },
  ): void {
    const texture = this.context.getCurrentTexture();
    if (!this.depth || this.depth.width !== texture.width || this.depth.height !== texture.height) {
      this.depth?.destroy();
      this.depth = this.device.createTexture({
        label: 'demo depth',
        size: [texture.width, texture.height],
        format: 'depth24plus',
        usage: GPUTextureUsage.RENDER_ATTACHMENT,
      });
    }
    const b = state.bounds;
    this.device.queue.writeBuffer(
      this.frame,
      0,
      packStruct(Frame, {
        viewProj: Array.from(state.viewProj),
        eye: [state.eye[0], state.eye[1], state.eye[2]],
        highlight: state.highlight,
        boundsMin: [b[0], b[1], b[2]],
        speedScale: state.speedScale,
        boundsMax: [b[3], b[4], b[5]],
        hitRadius: state.hitRadius,
        hotBox: state.hotBox,
      }),
    );

    const pass = encoder.beginRenderPass({
      label: 'demo frame',
      colorAttachments: [
        {
          view: texture.createView(),
          clearValue: { r: 0.06, g: 0.07, b: 0.09, a: 1 },
          loadOp: 'clear',
          storeOp: 'store',
        },
      ],
      depthStencilAttachment: {
        view: this.depth.createView(),
        depthClearValue: 1,
        depthLoadOp: 'clear',
        depthStoreOp: 'store',
      },
    });
    pass.setPipeline(this.box);
    pass.setBindGroup(
      0,
      this.device.createBindGroup({
        layout: this.box.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: this.frame } }],
      }),
    );
    pass.draw(24);
    if (count > 0) {
      pass.setPipeline(this.particles);
      pass.setBindGroup(
        0,
        this.device.createBindGroup({
          layout: this.particles.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: this.frame } },
            { binding: 1, resource: { buffer: spheres, size: 16 * count } },
            { binding: 2, resource: { buffer: velocities, size: 16 * count } },
          ],
        }),
      );
      pass.draw(6, count);
    }
    // The boxes, straight from the world's pose buffer (it moves the kinematic ones each step).
    const drawBoxes = (pipeline: GPURenderPipeline, first: number, instances: number): void => {
      if (!boxes || instances <= 0) return;
      pass.setPipeline(pipeline);
      pass.setBindGroup(
        0,
        this.device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: this.frame } },
            { binding: 1, resource: { buffer: boxes.poses, size: 48 * boxes.count } },
          ],
        }),
      );
      pass.draw(36, instances, 0, first);
    };
    const solidFrom = boxes ? Math.min(boxes.solidFrom, boxes.count) : 0;
    if (boxes) drawBoxes(this.solidBoxes, solidFrom, boxes.count - solidFrom);
    if (hits && hits.count > 0) {
      pass.setPipeline(this.hits);
      pass.setBindGroup(
        0,
        this.device.createBindGroup({
          layout: this.hits.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: this.frame } },
            { binding: 1, resource: { buffer: hits.buffer, size: CastHitRecord.size * hits.count } },
          ],
        }),
      );
      pass.draw(6, hits.count);
    }
    // Translucent last, over everything opaque.
    drawBoxes(this.glassBoxes, 0, solidFrom);
    pass.end();
  }
}
