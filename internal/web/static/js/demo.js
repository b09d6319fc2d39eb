// The demo banner: piweb runs on sample sessions in a throwaway folder
// with a built-in model (serve --demo, or no sessions yet), which the page
// must say plainly. It watches the server's status and, once the user's
// own pi sessions exist, offers to switch to them.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';

const POLL = 5000; // ms between status checks while in the demo

export function DemoBanner() {
  const [st, setSt] = useState(null);
  useEffect(() => {
    let live = true;
    let timer;
    const poll = () => api.getStatus().then((s) => {
      if (!live) return;
      setSt(s);
      if (s.demo) timer = setTimeout(poll, POLL);
    }, () => { if (live) timer = setTimeout(poll, POLL); });
    poll();
    return () => { live = false; clearTimeout(timer); };
  }, []);
  if (!st || !st.demo) return null;
  const real = st.realSessions > 0;
  return html`<div class=${'demo-banner' + (real ? ' real' : '')} role="status">
    <strong>Demo</strong>
    ${real ? html`<span class="demo-switch">Your own pi sessions are here now (${st.realSessions} in ${st.realAgentDir}). To switch to them, stop piweb and start it again without --demo.</span>`
      : html`<span>Sample sessions in a throwaway folder and a built-in demo model, no real answers. The samples are deleted when piweb stops; a session you start in a real folder is kept.</span>`}
  </div>`;
}
