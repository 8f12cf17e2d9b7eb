/**
 * The gallery's pages (`npm run build:site`, scripts/build-site.ts): each example's page (a Vite
 * entry, built as it is), its one line on the index, its still and the source files shown beside
 * it. The site test (test/e2e/site.test.ts) opens every page listed here.
 */
export interface ExamplePage {
  /** Its name: the sources go to source/<id>/, the still to stills/<id>.png. */
  id: string;
  title: string;
  /** One line on its card. */
  line: string;
  /** The page's index.html, from the repository's root. */
  page: string;
  /** Its source files, from the repository's root, shown beside it (as text). */
  sources: string[];
  /** Its still (PNG), from the repository's root. */
  still: string;
  /**
   * A JavaScript expression that is true once the page has done its work at least once: drawn
   * frames, or an answer printed (the site test waits for it).
   */
  ready: string;
  /** When to take its still (`npm run site:stills`), if later than `ready`. */
  stillWhen?: string;
  /** Where the page reports its numbers (a CSS selector), and what the report looks like once it has them. */
  report: { selector: string; pattern: RegExp };
}

export const EXAMPLES: ExamplePage[] = [
  {
    id: 'demo',
    title: 'Hourglass',
    line: 'Particles pour out of a hopper of box colliders and pile up; drag the paddle through the pile, hover and drag particles (GPU raycasts), and rain rays on it.',
    page: 'demo/index.html',
    sources: ['demo/main.ts', 'demo/scene.ts', 'demo/renderer.ts', 'demo/camera.ts', 'demo/selftest.ts'],
    still: 'docs/demo.png',
    ready: 'window.__demo?.frames > 5',
    report: { selector: '#stats', pattern: /\d+ fps · frame \d+(\.\d)? ms · [\d,]+ particles/ },
  },
  {
    id: 'three',
    title: 'three.js',
    line: "three.js's WebGPURenderer draws a particle world straight from its GPU buffer, on the library's device; click a particle or the turning torus knot (a triangle mesh, its BVH built on the GPU) to pick it with a GPU raycast.",
    page: 'examples/three/index.html',
    sources: ['examples/three/main.ts'],
    still: 'site/stills/three.png',
    ready: 'window.__three?.frames > 5',
    stillWhen: 'window.__three?.time > 6',
    report: { selector: '#status', pattern: /[\d,]+ particles · \d+ fps/ },
  },
  {
    id: 'raycasts',
    title: 'Raycast batches',
    line: 'Every frame a fan of rays (100,000 on a GPU) from a scanner circling a field of spheres; each hit is drawn straight from the GPU buffer encodeRaycast writes, with the rays per second.',
    page: 'examples/raycasts/index.html',
    sources: ['examples/raycasts/main.ts', 'examples/common/stage.ts'],
    still: 'site/stills/raycasts.png',
    ready: 'window.__raycasts?.frames > 3',
    report: { selector: '#status', pattern: /rays a frame against [\d,]+ spheres · \d+ fps · \d+\.\d+ M rays\/s/ },
  },
  {
    id: 'spherecasts',
    title: 'Sphere casts',
    line: "Spheres swept along straight paths through a field: each cast's first contact, the swept sphere's centre C and the touching point E, drawn from the GPU buffer encodeSphereCast writes.",
    page: 'examples/spherecasts/index.html',
    sources: ['examples/spherecasts/main.ts', 'examples/common/stage.ts'],
    still: 'site/stills/spherecasts.png',
    ready: 'window.__spherecasts?.frames > 3',
    report: { selector: '#status', pattern: /[\d,]+ sphere casts of radius [\d.]+ through [\d,]+ spheres · \d+ fps/ },
  },
  {
    id: 'drum',
    title: 'A turning drum',
    line: 'Balls tumble in a drum of 12 box colliders turning at 1.5 rad/s, posed every frame with setColliders; the status line says how deep the deepest ball lies in a plank.',
    page: 'examples/drum/index.html',
    sources: ['examples/drum/main.ts', 'examples/common/stage.ts'],
    still: 'site/stills/drum.png',
    ready: 'window.__drum?.frames > 3',
    stillWhen: 'window.__drum?.frames > 90',
    report: { selector: '#status', pattern: /the deepest ball in a plank: -?\d+\.\d% of its radius/ },
  },
  {
    id: 'terrain',
    title: 'A pour onto a terrain mesh',
    line: 'Balls poured onto a generated terrain of triangles and stirred by a turning mesh paddle: two mesh colliders (setMeshes), one static and one kinematic, in the same solve as the balls.',
    page: 'examples/terrain/index.html',
    sources: ['examples/terrain/main.ts', 'examples/common/stage.ts'],
    still: 'site/stills/terrain.png',
    ready: 'window.__terrain?.frames > 3',
    stillWhen: 'window.__terrain?.frames > 240',
    report: { selector: '#status', pattern: /[\d,]+ balls touching the meshes/ },
  },
  {
    id: 'chaining',
    title: 'GPU-resident chaining',
    line: 'Your kernel moves 100,000 spheres, encodeSpherePairs finds the overlaps on the GPU, and your second kernel marks them through indirect dispatch: one submission a frame, nothing read back.',
    page: 'examples/chaining/index.html',
    sources: ['examples/chaining/main.ts', 'examples/common/stage.ts'],
    still: 'site/stills/chaining.png',
    ready: 'window.__chaining?.frames > 3',
    stillWhen: 'window.__chaining?.pairs > 0',
    report: { selector: '#status', pattern: /[\d,]+ spheres · \d+ fps · [\d,]+ overlapping pairs/ },
  },
  {
    id: 'worker',
    title: 'In a Worker',
    line: 'A collider and a particle world in a dedicated Web Worker, sized by its adapter: the main thread keeps drawing frames while the GPU answers.',
    page: 'examples/worker/index.html',
    sources: ['examples/worker/main.ts', 'examples/worker/worker.ts', 'examples/worker/shared.ts'],
    still: 'site/stills/worker.png',
    ready: "document.querySelector('#out')?.textContent.includes('a step')",
    report: {
      selector: '#out',
      pattern: /spherePairs: \d+ overlapping pairs in [\d.]+ ms\nworld: \d+ particles, [\d.]+ ms a step/,
    },
  },
];
