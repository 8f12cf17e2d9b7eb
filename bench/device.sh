#!/usr/bin/env bash
# The bench on a lent GPU machine that has no npm: every suite at the sizes a real GPU is judged
# at, each under its own time limit, so that one slow suite cannot cost the others their run.
#
# Here (a machine with node_modules), bundle the bench and pack it with node and dawn.node:
#   npx esbuild bench/cli.ts --bundle --platform=node --format=esm --external:webgpu --outfile=/tmp/bench.mjs
#   bash PACK.sh /tmp/bench.mjs        # the pack script of the workplace; it writes .devicepack/
# There, from the project root:
#   bash bench/device.sh OUTDIR [SUITE...]     # SUITE: goals pile pile-1m pile-sleep colliders-1m pairs casts sort resident particles colliders meshes terrain
# `goals` measures every real-GPU goal of the issues (1M-sphere pairs, coherent rays at 1M, the
# sort beside a copy and both scans, the 1M-ball pile) with the GPU methods alone, the CPU peers
# left out: at most 8 minutes, so that it fits one call of a 15-minute device lease.
# Writes OUTDIR/SUITE.json per suite and appends everything printed to OUTDIR/log. The bench
# refuses to run on a software adapter (--require-hardware): then nothing is measured.
set -uo pipefail
out=${1:?usage: bench/device.sh OUTDIR [SUITE...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(pile pile-1m pairs casts sort resident particles)
root=$(cd "$(dirname "$0")/.." && pwd)

# NVIDIA's Vulkan ICD (libGLX_nvidia.so.0) needs libglvnd's dispatch library; a container that
# mounts only the driver's files lacks it, and the loader then says "Could not get
# 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'". The pack's run.sh unpacks its debs only
# where there is no Vulkan loader, so unpack libglvnd's here when it is missing. Fetch them into
# the pack beside the loader before taking it there:
#   (cd .devicepack/debs && apt-get download libglvnd0 libegl1 libgl1 libglx0 libgles2 libopengl0)
if ! ldconfig -p | grep -q 'libGLdispatch.so.0 '; then
  for f in "$root"/.devicepack/debs/libglvnd0_*.deb "$root"/.devicepack/debs/lib{egl1,gl1,glx0,gles2,opengl0}_*.deb; do
    [ -f "$f" ] && dpkg -x "$f" /
  done
  ldconfig
fi

# One suite: its seconds, then the bench's flags.
run() {
  local name=$1 seconds=$2
  shift 2
  echo "=== $name (at most $seconds s): $*" | tee -a "$out/log"
  local start=$SECONDS
  timeout --kill-after=5 "$seconds" bash "$root/.devicepack/run.sh" --require-hardware --json "$out/$name.json" "$@" 2>&1 | tee -a "$out/log"
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$out/log"
  [ "$rc" -ne 3 ] || exit 3 # a software adapter: the other suites would measure nothing either
}

# 1M particles among 10k static boxes, with and without them (the goal: ≤ 1.25× the boxless step).
colliders_1m() {
  run "$1" 150 --suites colliders --collider-sizes 1000000 --collider-boxes 10000 --collider-methods gpu,gpu-no-boxes --collider-steps 30 --collider-warmup 20
}

for suite in "${suites[@]}"; do
  case $suite in
    goals)
      run goals-pairs 110 --suites pairs --sizes 1000000 --scenes uniform,clustered --pair-methods gpu-auto,gpu-grid --reps 10 --budget 30
      run goals-casts 140 --suites casts --cast-sizes 1000000x1000000 --cast-methods gpu-auto,gpu-grid,gpu-bvh --reps 5 --budget 30
      run goals-sort 60 --suites sort --sort-sizes 1000000,16000000 --reps 10
      run goals-pile-1m 150 --suites pile --pile-sizes 1000000 --pile-frames 600 --pile-methods gpu --gas-sizes ''
      colliders_1m goals-colliders ;;
    colliders-1m) colliders_1m colliders-1m ;;
    # The 1M pile with sleep off (goals-pile-1m has it on): what sleep adds to the overlap (issue 47).
    pile-sleep) run pile-sleep 200 --suites pile --pile-sizes 1000000 --pile-frames 600 --pile-methods gpu-awake --gas-sizes '' ;;
    pile) run pile 200 --suites pile --pile-sizes 8000 --pile-frames 600 --pile-methods rapier,gpu,gpu-light \
      --gas-sizes 100000,1000000 --gas-steps 10 --budget 60 ;;
    # Its own run: an estimate from the 8000-ball pile's wall time per particle would skip it.
    # The light setting (1×2) is not for piles, and a 1M-ball pile under it needs more contact
    # entries than a storage binding holds: only the default solver.
    pile-1m) run pile-1m 150 --suites pile --pile-sizes 1000000 --pile-frames 600 --pile-methods gpu --gas-sizes '' ;;
    pairs) run pairs 130 --suites pairs --sizes 100000,1000000,4000000 --scenes uniform,clustered \
      --pair-methods gpu-auto,gpu-grid,gpu-sweep,gpu-bvh,cpu-grid,js-grid,rapier --reps 5 --budget 30 ;;
    casts) run casts 200 --suites casts --cast-sizes 100000x100000,1000000x1000000 \
      --cast-methods gpu-auto,gpu-grid,gpu-bvh,rapier --reps 5 --budget 20 ;;
    sort) run sort 40 --suites sort --sort-sizes 1000000,16000000 --reps 10 ;;
    resident) run resident 40 --suites resident --resident-sizes 100000,1000000 ;;
    # Issue 49's real-GPU goals: 1M triangles built ≤ 5 ms and refitted ≤ 1 ms, ≥ 0.5 G coherent and
    # ≥ 0.1 G incoherent first-hit rays/s (GPU time), without the CPU peer.
    meshes) run meshes 150 --suites meshes --mesh-sizes 1000000 --mesh-rays 1000000 --mesh-methods gpu --reps 5 ;;
    # Issue 50's real-GPU goal: 1M balls poured on a 1M-triangle terrain mesh at ≤ 1.5× the step on
    # one flat box (the interleaved control row), none deeper than 0.25 r, without Rapier.
    terrain) run terrain 240 --suites colliders --collider-scene terrain --collider-sizes 1000000 --mesh-triangles 1000000 --collider-methods gpu --collider-warmup 20 --collider-steps 30 ;;
    # Not in the default list: the particle world among 1,000 static boxes, with and without them, beside Rapier.
    colliders) run colliders 240 --suites colliders --collider-sizes 100000 --collider-boxes 1000 ;;
    particles) run particles 90 --suites particles --particle-sizes 100000,1000000 --reps 10 --budget 20 ;;
    *) echo "bench/device.sh: unknown suite $suite" >&2; exit 2 ;;
  esac
done
