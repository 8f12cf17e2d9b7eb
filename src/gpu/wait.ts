/**
 * How the library waits for a device's promises (a buffer's map, an error scope).
 *
 * By default it simply awaits them. A host may register another way for a device
 * (`setDeviceWaiter`): webgpu-collide/node does, for a software adapter under dawn.node. There,
 * while any promise of the device is pending, dawn.node keeps the event loop turning (it polls
 * the device from a `setImmediate` callback that queues itself again), so the waiting thread
 * takes a whole core; and on a software adapter the shaders run on the same cores. On a 2-core
 * machine the wait takes half the CPU from the work it waits for, which a waiting thread that
 * sleeps between polls leaves to the shaders.
 */

/** Waits for a promise of the device; resolves or rejects as the promise does. */
export type DeviceWaiter = <T>(promise: Promise<T>) => Promise<T>;

const waiters = new WeakMap<GPUDevice, DeviceWaiter>();

/** Registers how to wait for `device`'s promises (undefined: plain await again). */
export function setDeviceWaiter(device: GPUDevice, waiter: DeviceWaiter | undefined): void {
  if (waiter) waiters.set(device, waiter);
  else waiters.delete(device);
}

/** Whether `device` has a waiter of its own. */
export function hasDeviceWaiter(device: GPUDevice): boolean {
  return waiters.has(device);
}

/** `promise`, awaited the way registered for `device`. */
export function settle<T>(device: GPUDevice, promise: Promise<T>): Promise<T> {
  const waiter = waiters.get(device);
  return waiter ? waiter(promise) : promise;
}

/**
 * Resolves when `device`'s queue has finished the work submitted so far
 * (`queue.onSubmittedWorkDone()`), awaited as the library awaits its own reads: in Node on a
 * software adapter, asleep between dawn.node's polls instead of spinning on a core the shaders
 * need (`requestNodeDevice`'s `waiting` option). Use it after `encode*` calls where you would
 * await `onSubmittedWorkDone()`.
 *
 * @category Devices
 */
export function workDone(device: GPUDevice): Promise<void> {
  return settle(device, device.queue.onSubmittedWorkDone());
}
