// wgsl-preprocessor@1.0.1 ships no `main`/`exports` and no types (see PLATFORM.md):
// we import its one file directly and declare the tagged template here.
declare module 'wgsl-preprocessor/wgsl-preprocessor.js' {
  /** Tagged template with `#if ${expr}`, `#elif ${expr}`, `#else`, `#endif`. */
  export function wgsl(strings: TemplateStringsArray, ...values: unknown[]): string;
}
