// The script of a share link's page (GET /share/TOKEN, docs/decisions/0042):
// every few seconds it asks whether the session changed and reloads the
// page when it did (staying at the bottom if the reader was there); when
// the link was revoked or expired it takes the page's content away. It
// sends no cookie and reads nothing but its own link's version.
(() => {
  const every = 4000;
  const base = location.pathname.replace(/\/+$/, '');
  const seen = document.documentElement.dataset.version || '';
  const key = 'piweb-share-bottom';
  const atBottom = () => innerHeight + scrollY >= document.documentElement.scrollHeight - 40;
  if (sessionStorage.getItem(key) === '1') {
    sessionStorage.removeItem(key);
    addEventListener('load', () => scrollTo(0, document.documentElement.scrollHeight));
  }
  const gone = () => {
    document.title = 'Link no longer valid';
    document.body.replaceChildren();
    const p = document.createElement('p');
    p.className = 'gone';
    p.textContent = 'This share link was revoked or has expired.';
    document.body.append(p);
  };
  const tick = async () => {
    try {
      const r = await fetch(base + '/version', { cache: 'no-store', credentials: 'omit' });
      if (r.status === 404) return gone();
      if (r.ok) {
        const { version } = await r.json();
        if (version !== seen) {
          if (atBottom()) sessionStorage.setItem(key, '1');
          return location.reload();
        }
      }
    } catch { /* piweb unreachable for now: ask again */ }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
})();
