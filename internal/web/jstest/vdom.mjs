// html writes Preact children (what markdown.js and highlight.js return)
// as HTML, so that a test can compare them with a string. Function
// components are called with their props; hooks are not supported.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

export function html(v) {
  if (v == null || typeof v === 'boolean') return '';
  if (Array.isArray(v)) return v.map(html).join('');
  if (typeof v !== 'object') return esc(v);
  const { children, ...props } = v.props || {};
  if (typeof v.type === 'function') return html(v.type(v.props));
  const attrs = Object.entries(props)
    .filter(([, val]) => typeof val !== 'function' && val != null)
    .map(([k, val]) => ` ${k}="${esc(val)}"`).join('');
  return `<${v.type}${attrs}>${html(children)}</${v.type}>`;
}
