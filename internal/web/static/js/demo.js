// The demo banner: piweb runs on sample sessions in a throwaway folder
// with a built-in model (serve --demo, or no sessions yet), which the page
// must say plainly. It watches the server's status and, once the user's
// own pi sessions exist, offers to switch to them; the demo can be left
// at any time (POST /api/demo/leave: piweb serve switches to the user's
// own agent dir on the same address, keeping sessions started in real
// folders), after which the page starts again from the home page.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { t } from './i18n.js';

const POLL = 5000; // ms between status checks while in the demo
const SWITCH_POLL = 300; // ms between checks while piweb switches

export function DemoBanner() {
  const [st, setSt] = useState(null);
  const [ask, setAsk] = useState(false); // the confirmation is open
  const [leaving, setLeaving] = useState(null); // null, 'switching' or an error message
  useEffect(() => {
    let live = true;
    let timer;
    let was = false; // this page has seen the demo
    const poll = () => api.getStatus().then((s) => {
      if (!live) return;
      if (was && !s.demo) return location.assign('/'); // left from another tab: its sessions are gone
      was = was || s.demo;
      setSt(s);
      if (s.demo) timer = setTimeout(poll, POLL);
    }, () => { if (live) timer = setTimeout(poll, POLL); });
    poll();
    return () => { live = false; clearTimeout(timer); };
  }, []);
  if (!st || !st.demo) return null;
  const real = st.realSessions > 0;
  const leave = async () => {
    setLeaving('switching');
    try {
      api.closeStream(); // the page starts afresh below
      await api.leaveDemo();
      await switched();
      location.assign('/'); // every view, stream and cache starts afresh
    } catch (e) {
      api.resumeStream();
      setLeaving(t('demo.leaveFailed', { why: e.message }));
    }
  };
  const what = real
    ? html`<span
      class="demo-switch">${t('demo.real', { count: st.realSessions, dir: st.realAgentDir })}</span>`
    : html`<span>${t('demo.samples')}</span>`;
  return html`<div class=${'demo-banner' + (real ? ' real' : '')} role="status">
    <strong>${t('demo.demo')}</strong>
    ${leaving === 'switching' ? html`<span class="demo-leaving">${t('demo.switching')}</span>`
      : ask ? html`<span class="demo-confirm">${t('demo.confirm', { dir: st.realAgentDir || t('demo.yourPi') })}</span>
          <span class="demo-actions"><button class="btn small primary demo-leave-go" type="button"
            onClick=${leave}>${t('demo.leave')}</button>
          <button class="btn-link small" type="button" onClick=${() => setAsk(false)}>${t('demo.stay')}</button></span>`
      : html`${what}${st.canLeave && html`<span class="demo-actions"><button class="btn small demo-leave" type="button"
        onClick=${() => setAsk(true)}>
          ${t(real ? 'demo.switch' : 'demo.leave')}</button></span>`}`}
    ${leaving && leaving !== 'switching' && html`<span class="error demo-error" role="alert">${leaving}</span>`}
  </div>`;
}

// switched waits until piweb serves the user's own sessions (the demo's
// server is stopped meanwhile, so requests may fail for a moment).
async function switched() {
  for (let i = 0; i < 200; i++) {
    try {
      if (!(await api.getStatus()).demo) return;
    } catch { /* between the two servers */ }
    await new Promise((r) => setTimeout(r, SWITCH_POLL));
  }
  throw new Error('piweb did not switch within a minute');
}
