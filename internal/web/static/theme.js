// theme.js: the colour theme, set before the first paint. A classic script
// loaded synchronously in <head> (index.html, offline.html), so the page is
// never drawn in the wrong theme: it sets <html data-theme="light|dark">
// from the choice kept in localStorage (piweb.theme: system, light or dark;
// system follows the OS), and follows a change of either, in this tab
// (js/theme.js sends 'piweb-theme') or another (the storage event).
(function () {
  var KEY = 'piweb.theme';
  var dark = window.matchMedia('(prefers-color-scheme: dark)');
  function choice() {
    try {
      var v = window.localStorage.getItem(KEY);
      return v === 'light' || v === 'dark' ? v : 'system';
    } catch (e) {
      return 'system';
    }
  }
  function apply() {
    var c = choice();
    document.documentElement.setAttribute('data-theme', c === 'system' ? (dark.matches ? 'dark' : 'light') : c);
  }
  apply();
  dark.addEventListener('change', apply);
  window.addEventListener('storage', function (e) { if (e.key === KEY) apply(); });
  document.addEventListener('piweb-theme', apply);
})();
