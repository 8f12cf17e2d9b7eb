/**
 * `npm run bench:plot [-- results.json]`: time against size on log–log axes, one plot per
 * suite and scene, one line per method, as SVG (and PNG when Chromium is there to render it)
 * in docs/plots/. Where brute force and the grid cross, a dashed line marks the size.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import type { Row } from './harness.js';

const input = process.argv[2] ?? 'bench/results/bench.json';
const outDir = 'docs/plots';
const data = JSON.parse(readFileSync(input, 'utf8')) as {
  rows: Row[];
  adapter?: { description?: string };
  date: string;
  command: string;
};
/** Methods renamed since older results were written: the casts suite's 'gpu-brute' is 'gpu-all-pairs', as in the other suites. */
const RENAMED: Record<string, string> = { 'gpu-brute': 'gpu-all-pairs' };
for (const row of data.rows) row.method = RENAMED[row.method] ?? row.method;
mkdirSync(outDir, { recursive: true });

const COLORS: Record<string, string> = {
  'gpu-grid': '#d62728',
  'gpu-all-pairs': '#ff9896',
  'gpu-step': '#d62728',
  'cpu-grid': '#1f77b4',
  'cpu-walk': '#1f77b4',
  'cpu-brute': '#aec7e8',
  'cpu-step': '#1f77b4',
  'js-grid': '#2ca02c',
  rapier: '#9467bd',
  three: '#8c564b',
  'gpu-10-steps-per-submit': '#e377c2',
};
const X_KEY: Record<string, string> = {
  pairs: 'spheres',
  casts: 'rays',
  particles: 'particles',
  pile: 'particles',
  boxes: 'spheres',
};
const timeOf = (r: Row): number | undefined => r.gpuMs?.median ?? r.wallMs?.median;

interface Series {
  method: string;
  points: [number, number][];
}

function crossing(a: Series | undefined, b: Series | undefined): number | null {
  if (!a || !b) return null;
  const xs = a.points.map((p) => p[0]).filter((x) => b.points.some((q) => q[0] === x));
  for (let k = 1; k < xs.length; k++) {
    const d = (x: number): number =>
      Math.log(a.points.find((p) => p[0] === x)![1]) - Math.log(b.points.find((p) => p[0] === x)![1]);
    const d0 = d(xs[k - 1]);
    const d1 = d(xs[k]);
    // a (the grid) slower than b (brute force) at the smaller size, not slower at the larger.
    if (d0 > 0 && d1 <= 0) {
      const f = -d0 / (d1 - d0);
      return Math.exp(Math.log(xs[k - 1]) + f * (Math.log(xs[k]) - Math.log(xs[k - 1])));
    }
  }
  return null;
}

function svgPlot(title: string, xLabel: string, series: Series[], cross: { x: number; label: string } | null): string {
  const W = 760,
    H = 480,
    L = 70,
    R = 190,
    T = 40,
    B = 56;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const x0 = Math.floor(Math.log10(Math.min(...xs))),
    x1 = Math.ceil(Math.log10(Math.max(...xs)));
  const y0 = Math.floor(Math.log10(Math.min(...ys))),
    y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const px = (x: number): number => L + ((Math.log10(x) - x0) / Math.max(x1 - x0, 1)) * (W - L - R);
  const py = (y: number): number => H - B - ((Math.log10(y) - y0) / Math.max(y1 - y0, 1)) * (H - T - B);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  out.push(`<text x="${L}" y="24" font-size="15" font-weight="600">${title}</text>`);
  const fmt = (e: number): string => (e >= 6 ? `${10 ** (e - 6)}M` : e >= 3 ? `${10 ** (e - 3)}k` : `${10 ** e}`);
  for (let e = x0; e <= x1; e++) {
    out.push(`<line x1="${px(10 ** e)}" y1="${T}" x2="${px(10 ** e)}" y2="${H - B}" stroke="#ddd"/>`);
    out.push(`<text x="${px(10 ** e)}" y="${H - B + 18}" text-anchor="middle">${fmt(e)}</text>`);
  }
  for (let e = y0; e <= y1; e++) {
    out.push(`<line x1="${L}" y1="${py(10 ** e)}" x2="${W - R}" y2="${py(10 ** e)}" stroke="#ddd"/>`);
    out.push(
      `<text x="${L - 8}" y="${py(10 ** e) + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1)}</text>`,
    );
  }
  out.push(`<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 14}" text-anchor="middle">${xLabel} (log)</text>`);
  out.push(
    `<text transform="translate(18 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">ms per call (log)</text>`,
  );
  if (cross) {
    out.push(
      `<line x1="${px(cross.x)}" y1="${T}" x2="${px(cross.x)}" y2="${H - B}" stroke="#555" stroke-dasharray="5 4"/>`,
    );
    out.push(`<text x="${px(cross.x) + 4}" y="${T + 14}" fill="#555">${cross.label}</text>`);
  }
  series.forEach((s, k) => {
    const color = COLORS[s.method] ?? '#7f7f7f';
    const pts = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [x, y] of s.points)
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${color}"/>`);
    const ly = T + 8 + 20 * k;
    out.push(
      `<line x1="${W - R + 16}" y1="${ly}" x2="${W - R + 40}" y2="${ly}" stroke="${color}" stroke-width="2"/><circle cx="${W - R + 28}" cy="${ly}" r="3.5" fill="${color}"/>`,
    );
    out.push(`<text x="${W - R + 46}" y="${ly + 4}">${s.method}</text>`);
  });
  out.push(
    `<text x="${L}" y="${H - 2}" font-size="10" fill="#666">${data.adapter?.description ?? ''} · ${data.date.slice(0, 10)} · GPU methods: GPU time; CPU methods and peers: query time</text>`,
  );
  out.push('</svg>');
  return out.join('\n');
}

const files: string[] = [];
const groups = new Map<string, Row[]>();
for (const r of data.rows) {
  if (r.suite === 'boxes') continue; // one size each: nothing to plot against
  const key = `${r.suite}|${r.scene}`;
  groups.set(key, [...(groups.get(key) ?? []), r]);
}
for (const [key, rows] of groups) {
  const [suite, scene] = key.split('|');
  const xKey = X_KEY[suite];
  const methods = [...new Set(rows.map((r) => r.method))];
  const series: Series[] = methods
    .map((method) => ({
      method,
      points: rows
        .filter((r) => r.method === method && timeOf(r))
        .map((r) => [r.size[xKey], timeOf(r)!] as [number, number])
        .sort((a, b) => a[0] - b[0]),
    }))
    .filter((s) => s.points.length > 0);
  if (!series.some((s) => s.points.length > 1)) continue;
  const brute = series.find((s) => s.method === 'gpu-all-pairs');
  const grid = series.find((s) => s.method === 'gpu-grid');
  const x = crossing(grid, brute);
  const cross = x ? { x, label: `grid faster from ~${Math.round(x).toLocaleString('en')}` } : null;
  const name = `${suite}-${scene.replace(/[^A-Za-z0-9.]+/g, '-')}`;
  writeFileSync(
    `${outDir}/${name}.svg`,
    svgPlot(`${suite}: ${scene}`, suite === 'casts' ? 'rays (= spheres)' : xKey, series, cross),
  );
  files.push(name);
}
console.log(`wrote ${files.length} plots to ${outDir}/: ${files.join(', ')}`);

// PNGs, rendered by Chromium when it is installed.
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(chromium)) {
  const { chromium: launcher } = await import('playwright-core');
  const browser = await launcher.launch({ executablePath: chromium, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 760, height: 480 } });
  for (const name of files) {
    await page.setContent(
      `<html><body style="margin:0">${readFileSync(`${outDir}/${name}.svg`, 'utf8')}</body></html>`,
    );
    await page.screenshot({ path: `${outDir}/${name}.png` });
  }
  await browser.close();
  console.log('and their PNGs');
}
