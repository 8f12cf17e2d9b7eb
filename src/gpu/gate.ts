/**
 * Dispatches that a kernel turns on or off on the GPU, so that a submission can skip passes
 * with nothing read back. A pass records each gated dispatch as an indirect dispatch; a gating
 * kernel (the particle step's `particleDecide`) then writes the arguments: the recorded sizes
 * (from `template`, which `finish` writes) for the dispatches whose condition holds, zeros for
 * the others. The sizes must be the same for every recording between `begin` and the
 * submission (the particle step records the same count and plan every step), so one template
 * serves every step recorded into a submission.
 */
import { BufferUsage } from './flags.js';
import { createBuffer } from './buffers.js';
import { foldWorkgroups } from './dispatch.js';

/** Which outcome of the gating kernel a dispatch runs on. */
export type GateCondition = 'on' | 'off';

/** The gating kernel's WGSL function: shaders/gpu/gate.wgsl.ts. */
export class DispatchGate {
  /** Indirect dispatch arguments, three u32 a dispatch, written by the gating kernel. */
  readonly args: GPUBuffer;
  /** The recorded sizes (GATE_WGSL's template), written by `finish`. */
  readonly template: GPUBuffer;
  private recorded: number[] = [];
  private written = '';

  constructor(
    private readonly device: GPUDevice,
    label: string,
    /** Most gated dispatches in one recording. */
    readonly slots = 64,
  ) {
    this.args = createBuffer(device, `${label} arguments`, 12 * slots, BufferUsage.STORAGE | BufferUsage.INDIRECT);
    this.template = createBuffer(
      device,
      `${label} template`,
      16 * (slots + 1),
      BufferUsage.STORAGE | BufferUsage.COPY_DST,
    );
  }

  /** Starts a recording: the next gated dispatch takes the first slot. */
  begin(): void {
    this.recorded = [];
  }

  /**
   * Records `groups` workgroups (folded past `maxPerDimension`) as an indirect dispatch that runs
   * only when the gate is `when`. Records nothing for zero workgroups.
   */
  dispatch(pass: GPUComputePassEncoder, groups: number, maxPerDimension: number, when: GateCondition = 'on'): void {
    if (groups === 0) return;
    const slot = this.recorded.length / 4;
    if (slot >= this.slots) throw new Error(`a dispatch gate holds ${this.slots} dispatches`);
    const [x, y] = foldWorkgroups(groups, maxPerDimension);
    this.recorded.push(x, y, 1, when === 'on' ? 1 : 0);
    pass.dispatchWorkgroupsIndirect(this.args, 12 * slot);
  }

  /** Writes the template of the dispatches recorded since `begin` (through the queue, when it changed). */
  finish(): void {
    const key = this.recorded.join(',');
    if (key === this.written) return;
    const words = new Uint32Array(4 + this.recorded.length);
    words[0] = this.recorded.length / 4;
    words.set(this.recorded, 4);
    this.device.queue.writeBuffer(this.template, 0, words);
    this.written = key;
  }

  destroy(): void {
    this.args.destroy();
    this.template.destroy();
  }
}
