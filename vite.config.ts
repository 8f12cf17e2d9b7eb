import { defineConfig } from 'vite';

// The demo page (demo/). `npm run demo` serves it; `npm run build:demo` builds it to dist-demo/.
export default defineConfig({
  root: 'demo',
  build: { outDir: '../dist-demo', emptyOutDir: true, target: 'es2022' },
  server: { host: '127.0.0.1' },
});
