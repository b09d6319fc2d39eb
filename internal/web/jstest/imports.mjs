// A module-resolution hook for node: the bare names the page's modules
// import ('preact', 'markdown-it', …) resolve through the import map of
// static/index.html to the vendored files, as in the browser, so that the
// modules run in node as they are, without a build step.
import { readFileSync } from 'node:fs';

const static_ = new URL('../static/', import.meta.url);

// importMap reads the "imports" of index.html's import map.
function importMap() {
  const html = readFileSync(new URL('index.html', static_), 'utf8');
  const m = html.match(/<script type="importmap">([\s\S]*?)<\/script>/);
  if (!m) throw new Error('jstest: no import map in static/index.html');
  return JSON.parse(m[1]).imports;
}

const map = importMap();

export async function resolve(specifier, context, next) {
  const to = map[specifier];
  if (to) return next(new URL('.' + to, static_).href, context);
  return next(specifier, context);
}

