/**
 * Fits 'auto''s cast-cost constants (CAST_COST, src/broadphase/grid/castCost.ts) to measured
 * calls: the JSON lines of bench/probes/castFit.ts, each a scene with every phase's wall ms.
 * Each line's cost terms are computed again here by the current model (castCostTerms, from the
 * same scene and casts, which are seeded), so the model can change without timing anything
 * again (`--recorded-terms`: the line's own). Brute force's unit (ms of one cast against one
 * sphere) is the median over the lines that timed all-pairs, else `--unit`. Each phase's
 * constants c ≥ 0 then minimise Σ ln²(Σ c·terms / (ms / unit)) over its lines: the error as a
 * ratio, so that a scene the model overestimates a hundredfold (the grid's walk to far
 * outliers, which the measured call cut short by falling back to a scan of the level) weighs no
 * more than one it underestimates a hundredfold. Every subset of terms held at 0 is tried
 * (Nelder–Mead on the logarithms of the others). Prints the constants, and for each line the
 * phase 'auto' would pick with them against the fastest measured.
 *
 *   npx tsx bench/probes/castFitSolve.ts FILE.jsonl [FILE.jsonl ...] [--unit 7.8e-5] [--recorded-terms]
 */
import { readFileSync } from 'node:fs';
import { PAIR_SCENES, mixedCasts, castSceneOf } from '../scenes.js';
import { validateSpheres, validateCasts } from '../../src/validate.js';
import { planGrid } from '../../src/spatial/plan.js';
import { castCostTerms } from '../../src/broadphase/index.js';

interface Line {
  kind: string;
  n: number;
  rays: number;
  radius?: number;
  casts?: string;
  terms: Record<string, Record<string, number>>;
  [phase: string]: unknown;
}

const args = process.argv.slice(2);
const unitAt = args.indexOf('--unit');
let unit = unitAt >= 0 ? Number(args[unitAt + 1]) : 7.8e-5;
const recorded = args.includes('--recorded-terms');
const files = args.filter((a, i) => !a.startsWith('--') && (unitAt < 0 || i !== unitAt + 1));
const lines: Line[] = files
  .flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => JSON.parse(l) as Line),
  )
  .filter((l) => l.terms);
if (lines.length === 0) throw new Error('no lines with terms: run bench/probes/castFit.ts first');
if (!recorded) {
  for (const l of lines) {
    const radius = l.radius ?? 0;
    const { spheres, casts, stride } =
      (l.casts ?? 'mixed') === 'mixed'
        ? (() => {
            const spheres = PAIR_SCENES[l.kind].make(l.n);
            return { spheres, ...mixedCasts(spheres, l.rays, radius) };
          })()
        : castSceneOf(l.kind, l.n, l.rays, radius);
    const stats = validateSpheres('spheres', spheres);
    l.terms = castCostTerms(planGrid(stats), stats, validateCasts(stride === 7 ? 'casts' : 'rays', casts, stride));
  }
}

const measured = (l: Line, phase: string): number | undefined =>
  typeof l[phase] === 'number' ? (l[phase] as number) : undefined;
const bruteUnits = lines
  .filter((l) => measured(l, 'all-pairs') !== undefined)
  .map((l) => measured(l, 'all-pairs')! / l.terms['all-pairs'].test)
  .sort((a, b) => a - b);
if (bruteUnits.length > 0) unit = bruteUnits[bruteUnits.length >> 1];

/** Nelder–Mead: the x minimising f, from x0 (steps of 1 in each coordinate to start). */
function minimise(f: (x: number[]) => number, x0: number[], iterations = 4000): number[] {
  const k = x0.length;
  let simplex = [x0, ...x0.map((_, i) => x0.map((v, j) => (i === j ? v + 1 : v)))].map((x) => ({ x, y: f(x) }));
  for (let it = 0; it < iterations; it++) {
    simplex.sort((p, q) => p.y - q.y);
    const centre = x0.map((_, j) => simplex.slice(0, k).reduce((s, p) => s + p.x[j], 0) / k);
    const worst = simplex[k];
    const at = (t: number) => centre.map((c, j) => c + t * (worst.x[j] - c));
    const r = { x: at(-1), y: 0 };
    r.y = f(r.x);
    if (r.y < simplex[0].y) {
      const e = { x: at(-2), y: 0 };
      e.y = f(e.x);
      simplex[k] = e.y < r.y ? e : r;
    } else if (r.y < simplex[k - 1].y) {
      simplex[k] = r;
    } else {
      const c = { x: at(0.5), y: 0 };
      c.y = f(c.x);
      if (c.y < worst.y) simplex[k] = c;
      else
        simplex = simplex
          .map((p, i) => (i === 0 ? p : { x: p.x.map((v, j) => simplex[0].x[j] + 0.5 * (v - simplex[0].x[j])), y: 0 }))
          .map((p, i) => (i === 0 ? p : { ...p, y: f(p.x) }));
    }
  }
  simplex.sort((p, q) => p.y - q.y);
  return simplex[0].x;
}

const phases = [...new Set(lines.flatMap((l) => Object.keys(l.terms)))].filter((p) => p !== 'all-pairs');
const fitted: Record<string, Record<string, number>> = { 'all-pairs': { test: 1 } };
for (const phase of phases) {
  const own = lines.filter((l) => measured(l, phase) !== undefined && l.terms[phase]);
  const names = Object.keys(own[0].terms[phase]).filter((t) => own.some((l) => l.terms[phase][t] !== 0));
  let best: { c: number[]; err: number; used: string[] } | undefined;
  for (let mask = 1; mask < 1 << names.length; mask++) {
    const used = names.filter((_, i) => mask & (1 << i));
    const rows = own.map((l) => ({ x: used.map((t) => l.terms[phase][t]), y: measured(l, phase)! / unit }));
    // Start each constant where its term alone would explain the median line.
    const start = used.map((_, i) =>
      Math.log(rows.map((r) => r.y / Math.max(r.x[i], 1e-30)).sort((p, q) => p - q)[rows.length >> 1] / used.length),
    );
    const err = (theta: number[]): number =>
      rows.reduce(
        (s, r) =>
          s +
          Math.log(
            Math.max(
              r.x.reduce((a, v, i) => a + v * Math.exp(theta[i]), 0),
              1e-300,
            ) / r.y,
          ) **
            2,
        0,
      );
    const theta = minimise(err, start);
    const e = err(theta);
    if (!best || e < best.err) best = { c: theta.map(Math.exp), err: e, used };
  }
  if (!best) throw new Error(`no non-negative fit for ${phase}`);
  fitted[phase] = Object.fromEntries(
    Object.keys(own[0].terms[phase]).map((t) => [
      t,
      best!.used.includes(t) ? +best!.c[best!.used.indexOf(t)].toPrecision(2) : 0,
    ]),
  );
  console.log(
    `${phase}: ${JSON.stringify(fitted[phase])} (rms of ln(estimate / measured) ${Math.sqrt(best.err / own.length).toFixed(2)} over ${own.length} lines)`,
  );
}
console.log(
  `unit: ${unit.toExponential(2)} ms (${bruteUnits.length ? `median of ${bruteUnits.length} all-pairs lines` : 'given'})`,
);

const cost = (l: Line, phase: string): number =>
  Object.entries(l.terms[phase]).reduce((s, [t, v]) => s + v * (fitted[phase][t] ?? 0), 0);
let worst = 1;
for (const l of lines) {
  const timed = Object.keys(l.terms).filter((p) => measured(l, p) !== undefined);
  const pick = Object.keys(l.terms).reduce((a, b) => (cost(l, b) < cost(l, a) ? b : a));
  const fastest = Math.min(...timed.map((p) => measured(l, p)!));
  const over = measured(l, pick) !== undefined ? measured(l, pick)! / fastest : NaN;
  if (over > worst) worst = over;
  console.log(
    `${l.kind} ${l.n} r=${l.radius ?? 0} ${l.casts ?? 'mixed'}: ${timed.map((p) => `${p} ${measured(l, p)}`).join(', ')}; picks ${pick}${Number.isNaN(over) ? ' (not timed)' : ` (${over.toFixed(2)}× the fastest)`}`,
  );
}
console.log(`worst pick: ${worst.toFixed(2)}× the fastest phase`);
