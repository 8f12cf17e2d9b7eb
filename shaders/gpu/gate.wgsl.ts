/** The gating kernel's side of a dispatch gate (src/gpu/gate.ts, DispatchGate). */

/**
 * The gating kernel's function, `writeGate(on)`; the kernel declares `gateTemplate`
 * (read-only storage, `array<vec4u>`: element 0 holds the number of gated dispatches in x,
 * element 1 + k the k-th dispatch's workgroups in xyz and, in w, 1 if it runs when the gate is on
 * and 0 if when it is off) and `gateArgs` (storage, `array<u32>`: three words a dispatch).
 */
export const GATE_WGSL = /* wgsl */ `
fn writeGate(on: bool) {
  let want = select(0u, 1u, on);
  for (var k = 0u; k < gateTemplate[0].x; k++) {
    let g = gateTemplate[k + 1u];
    let live = g.w == want;
    gateArgs[3u * k] = select(0u, g.x, live);
    gateArgs[3u * k + 1u] = select(0u, g.y, live);
    gateArgs[3u * k + 2u] = select(0u, g.z, live);
  }
}
`;
