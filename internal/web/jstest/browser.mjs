// The little of a browser that the page's modules touch when they load
// (state.js reads localStorage and matchMedia, live.js listens for
// pageshow): enough for node to import them. A test imports this module
// before the module under test.
class Storage {
  #m = new Map();
  getItem(k) { return this.#m.has(k) ? this.#m.get(k) : null; }
  setItem(k, v) { this.#m.set(k, String(v)); }
  removeItem(k) { this.#m.delete(k); }
  clear() { this.#m.clear(); }
}

const noop = () => {};
Object.assign(globalThis, {
  window: globalThis,
  location: new URL('http://piweb.test/'),
  localStorage: new Storage(),
  sessionStorage: new Storage(),
  matchMedia: () => ({ matches: false, addEventListener: noop, removeEventListener: noop }),
  addEventListener: noop,
  removeEventListener: noop,
  document: { hidden: false, title: '', addEventListener: noop, removeEventListener: noop, querySelector: () => null, querySelectorAll: () => [] },
});
