/**
 * `npm run build:site`: one static site in dist-site/ that any static server can serve (WebGPU
 * needs a secure context: localhost, or HTTPS). `npm run site` builds it and serves it.
 *
 * - index.html: a card per example (site/examples.ts: its still, its line, the page, its source);
 * - each example's page, built by Vite as it is (at its path in the repository: demo/,
 *   examples/three/, ...), and its source files as text under source/<id>/;
 * - api/: the API reference (TypeDoc, warnings as errors, as `npm run docs`);
 * - plots/: the benchmark's plots (docs/plots/*.svg).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build, preview } from 'vite';
import { EXAMPLES } from '../site/examples.js';

const root = resolve(import.meta.dirname, '..');

const html = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The index page: the cards, then the reference and the plots. */
function indexPage(plots: string[]): string {
  const cards = EXAMPLES.map(
    (e) => `
      <article class="card">
        <a href="${e.page}"><img src="stills/${e.id}.png" alt="${html(e.title)}: ${html(e.line)}" loading="lazy"></a>
        <h2><a href="${e.page}">${html(e.title)}</a></h2>
        <p>${html(e.line)}</p>
        <p class="links"><a href="${e.page}">open</a> · source: ${e.sources
          .map((s) => `<a href="source/${e.id}/${basename(s)}.txt">${html(basename(s))}</a>`)
          .join(', ')}</p>
      </article>`,
  ).join('');
  const plotLinks = plots
    .map((p) => `<a href="plots/${p}"><img src="plots/${p}" alt="${html(p.replace(/\.svg$/, ''))}" loading="lazy"></a>`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>webgpu-collide · examples</title>
    <link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%232b6cd9'/%3E%3C/svg%3E" />
    <style>
      body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; background: #0f1117; color: #e6e8ee; font: 15px/1.5 system-ui, sans-serif; }
      a { color: #8ab4ff; }
      header p { max-width: 48rem; opacity: 0.85; }
      .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 1.25rem; }
      .card { background: #1c2030; border: 1px solid #2c3350; border-radius: 10px; padding: 0.75rem 1rem 1rem; }
      .card img { width: 100%; aspect-ratio: 4 / 3; object-fit: cover; border-radius: 6px; background: #0f1117; }
      .card h2 { margin: 0.5rem 0 0.25rem; font-size: 1.15rem; }
      .card p { margin: 0.25rem 0; }
      .links { font-size: 0.9rem; opacity: 0.85; }
      .plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 0.75rem; }
      .plots img { width: 100%; background: #fff; border-radius: 4px; }
    </style>
  </head>
  <body>
    <header>
      <h1>webgpu-collide</h1>
      <p>Collision detection in WGSL compute shaders: sphere pairs, sphere–box pairs, batched raycasts
      and sphere casts, and a particle world among box colliders, on the GPU in the browser and in
      Node. Every page below sizes itself by the adapter (a software one, such as SwiftShader, gets a
      small scene) and says what it picked.</p>
      <p><a href="api/index.html">API reference</a> · <a href="#plots">benchmark plots</a></p>
    </header>
    <main>
      <section class="cards">${cards}
      </section>
      <h2 id="plots">Benchmark plots</h2>
      <p>Time against size for each query, ours beside the CPU peers (SwiftShader unless the title says otherwise).</p>
      <section class="plots">
      ${plotLinks}
      </section>
    </main>
  </body>
</html>
`;
}

/** Builds the site into `outDir` (relative to the repository's root). */
export async function buildSite(outDir = 'dist-site'): Promise<string> {
  const out = resolve(root, outDir);
  rmSync(out, { recursive: true, force: true });
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    base: './',
    worker: { format: 'es' },
    build: {
      outDir: out,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 2048, // three.js's renderer is one chunk of about 1.5 MB
      rollupOptions: { input: Object.fromEntries(EXAMPLES.map((e) => [e.id, resolve(root, e.page)])) },
    },
  });
  for (const e of EXAMPLES) {
    mkdirSync(join(out, 'source', e.id), { recursive: true });
    for (const s of e.sources) copyFileSync(resolve(root, s), join(out, 'source', e.id, `${basename(s)}.txt`));
    mkdirSync(join(out, 'stills'), { recursive: true });
    copyFileSync(resolve(root, e.still), join(out, 'stills', `${e.id}.png`));
  }
  const plots = readdirSync(resolve(root, 'docs/plots')).filter((f) => f.endsWith('.svg'));
  mkdirSync(join(out, 'plots'), { recursive: true });
  for (const p of plots) copyFileSync(resolve(root, 'docs/plots', p), join(out, 'plots', p));
  writeFileSync(join(out, 'index.html'), indexPage(plots));
  execFileSync(
    process.execPath,
    [
      resolve(root, 'tools/typedoc/node_modules/typedoc/bin/typedoc'),
      '--treatWarningsAsErrors',
      '--out',
      join(out, 'api'),
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const out = await buildSite();
  console.log(`build-site: ${out} (${EXAMPLES.length} examples, the API reference, the plots)`);
  if (process.argv.includes('--serve')) {
    const server = await preview({ root, configFile: false, build: { outDir: out }, preview: { host: '127.0.0.1' } });
    server.printUrls();
  }
}
