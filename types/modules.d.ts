// Declarations for package files imported by path (see docs/PLATFORMS.md, "Packages with quirks").
// wgsl-preprocessor@1.0.1 ships no `main`/`exports` and no types:
// we import its one file directly and declare the tagged template here.
declare module 'wgsl-preprocessor/wgsl-preprocessor.js' {
  /** Tagged template with `#if ${expr}`, `#elif ${expr}`, `#else`, `#endif`. */
  export function wgsl(strings: TemplateStringsArray, ...values: unknown[]): string;
}

// wgsl_reflect's `main` is a CommonJS file in a `type: module` package, so Node cannot load it;
// its ES module file works. Same types.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
