// piweb's service worker: it keeps the app shell (pages, scripts, styles,
// icons; never /api, so never a session) so that piweb installs as an app
// and, when piweb is not running, opens to offline.html instead of the
// browser's error page. Every request goes to the network first, so an
// upgraded piweb is used at once; the cache only answers when the network
// fails. The app's modules and the API never pass through the worker
// (its static routes): offline.html needs none of them, and a page load's
// ~100 requests each took a trip through the worker.
const CACHE = 'piweb-shell-v1';
const DIRECT = ['/js/*', '/chat/*', '/vendor/*', '/api/*'];
const SHELL = ['/offline.html', '/style.css', '/theme.js',
  '/favicon.svg', '/manifest.webmanifest', '/icons/icon-192.png'];

self.addEventListener('install', (e) => {
  if (e.addRoutes) {
    e.addRoutes(DIRECT.map((pathname) => ({ condition: { urlPattern: new URLPattern({ pathname }) },
      source: 'network' })));
  }
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// shell says whether a request is part of the app shell: same origin, GET,
// and not the API (session data is never cached) nor a share link's page
// (its token is a secret: never kept in a cache).
function shell(req) {
  const u = new URL(req.url);
  return req.method === 'GET' && u.origin === self.location.origin && !u.pathname.startsWith('/api/')
    && u.pathname !== '/api' && u.pathname !== '/auth' && !u.pathname.startsWith('/share/');
}

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (!shell(req)) return; // the browser fetches it as if there were no worker
  e.respondWith(Promise.all([fetch(req), kept(req)]).then(([res, old]) => {
    if (res.ok && res.type === 'basic' && req.mode !== 'navigate' && !new URL(req.url).search
      && !sameTag(res, old)) {
      const copy = res.clone();
      caches.open(CACHE).then((c) => c.put(req, copy));
    }
    return res;
  }, async () => {
    if (req.mode === 'navigate') return (await caches.match('/offline.html')) || Response.error();
    return (await caches.match(req)) || Response.error();
  }));
});

// kept is the cache's copy of what req fetches, if any (none is looked up
// for a page, which is never kept).
function kept(req) {
  return req.mode === 'navigate' ? undefined : caches.match(req).catch(() => undefined);
}

// sameTag says whether the cache's copy is the response already (the same
// ETag): a page load fetches some 80 files, nearly always unchanged, and
// writing each into the cache again on every load took a fifth of the
// load's CPU.
function sameTag(res, old) {
  const tag = res.headers.get('etag');
  return Boolean(tag && old && old.headers.get('etag') === tag);
}

// Web Push (piweb's VAPID keys): show what piweb sent, open the session on
// click.
self.addEventListener('push', (e) => {
  let d = {};
  try { d = e.data ? e.data.json() : {}; } catch { d = { title: 'piweb', body: e.data ? e.data.text() : '' }; }
  e.waitUntil(self.registration.showNotification(d.title || 'piweb', { body: d.body || '', tag: d.tag || 'piweb',
    data: { url: d.url || '/' }, icon: '/icons/icon-192.png' }));
});

self.addEventListener('notificationclick', (e) => {
  e.notification.close();
  const url = (e.notification.data && e.notification.data.url) || '/';
  e.waitUntil(self.clients.matchAll({ type: 'window' }).then((ws) => {
    for (const w of ws) if ('focus' in w) { w.navigate(url); return w.focus(); }
    return self.clients.openWindow(url);
  }));
});
