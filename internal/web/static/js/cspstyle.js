// The page's Content-Security-Policy allows no inline styles (style-src
// 'self'), which keeps CSS in a session's content from ever applying. A
// library that draws with <style> elements and style attributes (xterm.js
// writes its theme and cell sizes that way) is given the same styles
// through the CSSOM instead, which the policy does not govern: a <style>
// element becomes an inert placeholder whose text feeds a constructed
// stylesheet adopted by the document, and setAttribute('style', s)
// becomes style.cssText = s. installed once, by terminal.js, before
// xterm.js runs.

let installed = false;

export function adoptInlineStyles() {
  if (installed) return;
  installed = true;
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, opts) {
    if (String(tag).toLowerCase() !== 'style') return create.call(this, tag, opts);
    return styleStandIn(this, create.call(this, 'piweb-style', opts));
  };
  const setAttr = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === 'style' && this.style) {
      this.style.cssText = String(value);
      return;
    }
    setAttr.call(this, name, value);
  };
}

// styleStandIn makes el behave as a <style> element of doc for the code
// that writes its textContent and removes it.
function styleStandIn(doc, el) {
  const sheet = new CSSStyleSheet();
  let text = '';
  let adopted = false;
  el.hidden = true;
  Object.defineProperty(el, 'textContent', {
    get: () => text,
    set: (v) => {
      text = v == null ? '' : String(v);
      sheet.replaceSync(text);
      if (!adopted) { doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet]; adopted = true; }
    },
  });
  const remove = el.remove.bind(el);
  el.remove = () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
    adopted = false;
    remove();
  };
  return el;
}
