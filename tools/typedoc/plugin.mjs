// A TypeDoc plugin for `npm run docs` (typedoc.json's `plugin`).
//
// Icons: TypeDoc's pages draw each icon as `<use href="assets/icons.svg#icon-…">`, a file that a
// page opened from disk (file://) may not load: Chromium logs "Unsafe attempt to load URL
// …icons.svg" for every icon before TypeDoc's assets/icons.js swaps them. icons.js puts the same
// icons into every page (on any protocol), so each page refers to them there (`#icon-…`) instead.
import { PageEvent } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(PageEvent.END, (page) => {
    if (page.contents)
      page.contents = page.contents.replace(/href="[^"]*assets\/icons\.svg(#icon-[^"]*)"/g, 'href="$1"');
  });
}
