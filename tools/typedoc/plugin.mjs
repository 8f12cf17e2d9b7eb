// A TypeDoc plugin for `npm run docs` (typedoc.json's `plugin`).
//
// Icons: TypeDoc's pages draw each icon as `<use href="assets/icons.svg#icon-…">`, a file that a
// page opened from disk (file://) may not load: Chromium logs "Unsafe attempt to load URL
// …icons.svg" for every icon before TypeDoc's assets/icons.js swaps them. icons.js puts the same
// icons into every page (on any protocol), so each page refers to them there (`#icon-…`) instead.
//
// One title: the front page is the README, whose own "# webgpu-collide" repeats the page's title.
//
// Topics: the reference is grouped by topic (typedoc.json's categoryOrder), each export naming
// its own with `@category` in its doc comment; an export of either entry without one fails the
// build (the CPU twins' namespace, `reference`, is "CPU reference").
import { Comment, CommentTag, Converter, PageEvent, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(PageEvent.END, (page) => {
    if (!page.contents) return;
    page.contents = page.contents.replace(/href="[^"]*assets\/icons\.svg(#icon-[^"]*)"/g, 'href="$1"');
    if (page.url === 'index.html')
      page.contents = page.contents.replace(/<h1 id="webgpu-collide"[^>]*>[\s\S]*?<\/h1>/, '');
  });
  // Before TypeDoc's own categorization (priority −200).
  app.converter.on(
    Converter.EVENT_RESOLVE_END,
    (context) => {
      for (const module of context.project.children ?? []) {
        for (const child of module.children ?? []) {
          if (child.kindOf(ReflectionKind.Reference)) continue;
          if (child.kindOf(ReflectionKind.Namespace) && child.name === 'reference') {
            child.comment ??= new Comment();
            child.comment.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: 'CPU reference' }]));
            continue;
          }
          const tagged = [child.comment, ...(child.signatures ?? []).map((s) => s.comment)].some((c) =>
            c?.blockTags.some((t) => t.tag === '@category'),
          );
          if (!tagged)
            app.logger.error(`${module.name}: the export ${child.name} has no @category (tools/typedoc/plugin.mjs)`);
        }
      }
    },
    100,
  );
}
