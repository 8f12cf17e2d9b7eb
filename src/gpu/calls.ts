/**
 * The call discipline the Collider and the ParticleWorld share: calls that share buffers run one
 * at a time in call order, every submission is error-scoped, and a failure reaches the caller as
 * the typed error it stands for (DestroyedError, DeviceLostError, WebGPUError).
 */
import { DestroyedError, DeviceLostError } from '../errors.js';
import { lostInfo } from '../device.js';
import { submitChecked, callFailure } from './submit.js';

export class CallQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** `what` names the owner in messages: 'collider', 'particle world'. */
  constructor(
    private readonly device: GPUDevice,
    private readonly what: string,
  ) {
    lostInfo(device); // start tracking its loss
  }

  /** The owner was destroyed: every later call throws DestroyedError. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Throws at once when the owner was destroyed or the device is lost. */
  checkUsable(): void {
    if (this.closed) throw new DestroyedError(`this ${this.what} was destroyed`);
    const lost = lostInfo(this.device);
    if (lost) throw new DeviceLostError(lost.reason, lost.message);
  }

  /** Runs `task` once every earlier task has settled; its failure typed. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      this.checkUsable();
      return this.typed(task());
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Submits what `record` records, inside error scopes; nothing once the owner is destroyed. */
  submit(record: (encoder: GPUCommandEncoder) => void): Promise<void> {
    if (this.closed) return Promise.reject(new DestroyedError(`this ${this.what} was destroyed`));
    return submitChecked(this.device, `webgpu-collide ${this.what}`, record, () => lostInfo(this.device));
  }

  /**
   * `call`, with its failure turned into the typed error it stands for; DestroyedError when the
   * owner was destroyed while it ran, even if it got to its end, unless `copied`: a read whose
   * data was copied into buffers of its own when it was called answers.
   */
  async typed<T>(call: Promise<T>, copied = false): Promise<T> {
    let value: T;
    try {
      value = await call;
    } catch (error) {
      throw await callFailure(error, this.device, () => this.closed, this.what);
    }
    if (this.closed && !copied) throw new DestroyedError(`this ${this.what} was destroyed while the call ran`);
    return value;
  }
}
