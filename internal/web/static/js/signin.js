// Account (subscription) sign-in, pi's /login, from the Settings page: for
// each provider pi 1.6 offers it for, piweb runs pi's own `pi auth login
// <provider> --no-browser` on a terminal (docs/api.md: sign-in). The row
// shows the page pi asks to open (a link, http and https only), a field
// for the code pi asks for (written to pi's terminal), pi's result in its
// own words, and the terminal command for doing it by hand.
import { useState, useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { t } from './i18n.js';

export function SignIns({ cfg, changed }) {
  const ids = cfg.providers.filter((p) => p.signIn).map((p) => p.id);
  const creds = new Map((cfg.auth.credentials || []).map((c) => [c.provider, c]));
  const cmd = cfg.loginCommand || 'pi auth login';
  const [before, after] = t('sign.intro').split('{command}');
  return html`<div class="set-signins"><h3>${t('sign.title')}</h3>
    <p class="muted">${before}<code class="set-login">${cmd + ' <provider>'}</code>${after}</p>
    <ul class="set-prov-list">${ids.map((id) => html`<${SignInRow} key=${id} id=${id} cmd=${cmd}
      signedIn=${(creds.get(id) || {}).type === 'oauth'} changed=${changed} />`)}</ul></div>`;
}

const webURL = (u) => (/^https?:\/\/[^\s]+$/i.test(u || '') ? u : '');

function SignInRow({ id, cmd, signedIn, changed }) {
  const [st, setSt] = useState(null);
  const [err, setErr] = useState('');
  const [code, setCode] = useState('');
  const mounted = useRef(true);
  const follow = async (s) => {
    let cur = s;
    while (mounted.current && cur.running) {
      try {
        cur = await api.signInState(id, cur.seq);
      } catch (e) {
        if (mounted.current) setErr(e.message);
        return;
      }
      if (mounted.current) setSt(cur);
    }
    if (cur.result === 'signed_in') changed();
  };
  useEffect(() => {
    api.signInState(id, 0).then((s) => { if (mounted.current && s.seq) { setSt(s); follow(s); } }, () => {});
    return () => { mounted.current = false; };
  }, [id]);
  const start = async () => {
    setErr(''); setCode('');
    try { const s = await api.startSignIn(id); setSt(s); follow(s); } catch (e) { setErr(e.message); }
  };
  const cancel = async () => {
    try { setSt(await api.cancelSignIn(id)); } catch (e) { setErr(e.message); }
  };
  const send = async (e) => {
    e.preventDefault();
    try { await api.answerSignIn(id, code.trim()); setCode(''); } catch (x) { setErr(x.message); }
  };
  const running = st && st.running;
  return html`<li class="set-prov set-signin" data-provider=${id}>
    <div class="set-prov-main"><strong>${id}</strong>
      ${signedIn && html`<span class="set-test ok">${t('sign.signedIn')}</span>`}</div>
    <div class="set-prov-actions">
      ${running ? html`<button class="btn small danger set-signin-cancel" type="button"
        onClick=${cancel}>${t('common.cancel')}</button>`
        : html`<button class="btn small set-signin-start" type="button" onClick=${start}>
          ${t(signedIn ? 'sign.again' : 'sign.in')}</button>`}</div>
    ${err && html`<div class="stop error set-signin-error">${err}</div>`}
    ${((st && (st.running || st.result)) || err) && html`<${SignInPanel} st=${st || {}} code=${code} setCode=${setCode}
      send=${send}
      command=${cmd + ' ' + id} />`}
  </li>`;
}

const results = {
  signed_in: ['ok', t('sign.ok')],
  cancelled: ['muted', t('sign.cancelled')],
  timed_out: ['bad', t('sign.timedOut')],
};

function SignInPanel({ st, code, setCode, send, command }) {
  const url = st.running ? webURL(st.url) : '';
  const [cls, msg] = st.result === 'failed' ? ['bad', st.error || t('sign.failed')] : results[st.result] || [];
  return html`<div class="set-signin-panel">
    ${url && html`<p class="set-signin-step">1. <a class="set-signin-url" href=${url} target="_blank"
      rel="noopener noreferrer">${t('sign.open')}</a>
      <span class="set-signin-host muted">${new URL(url).host}</span>
        ${st.userCode && html`${t('sign.enterCode')} <code class="set-signin-code">${st.userCode}</code>`}</p>`}
    ${st.running && st.prompt && html`<form class="set-key-form set-signin-form" onSubmit=${send}>
      <label class="set-signin-prompt" for=${'signin-answer-' + st.provider}>${url ? '2. ' : ''}${st.prompt}</label>
      <input id=${'signin-answer-' + st.provider} class="set-key-input set-signin-answer" autocomplete="off"
        spellcheck="false"
        value=${code} onInput=${(e) => setCode(e.currentTarget.value)} />
      <button class="btn small primary" type="submit">${t('sign.send')}</button></form>`}
    ${st.running && !st.prompt && html`<p class="muted set-signin-wait">${t('sign.working')}</p>`}
    ${msg && html`<div class=${'set-signin-result set-test ' + cls}>${msg}</div>`}
    <p class="muted set-signin-fallback">${t('sign.terminal')} <code class="set-login">${command}</code></p>
    ${st.lines && st.lines.length > 0 && html`<details class="set-signin-log"><summary
      class="muted">${t('sign.output')}</summary>
      <pre>${st.lines.join('\n')}</pre></details>`}
  </div>`;
}
