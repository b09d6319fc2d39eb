// Turn-end alerts: when pi finishes in a session, a short sound and/or a
// browser notification, unless the user is looking at that session. It
// follows the sidebar's running flags (the index stream's "running"
// events), so it covers every session pi runs, not only the open one. The
// choice is kept in localStorage; notifications ask the browser's
// permission when chosen.
import { effect, signal } from '@preact/signals';
import { sessions, navigate, sessionURL, toast } from '../js/state.js';
import { current } from '../js/view.js';

export const ALERTS = { off: 'no alert', sound: 'sound', notify: 'notification', both: 'sound + notification' };
export const alertMode = signal(localStorage.getItem('piweb.alert') || 'off');

let audio = null; // created on the user's choice: browsers start audio only after a gesture

// setAlertMode stores the choice; it runs in the user's gesture, so it can
// ask for notification permission and unlock audio.
export async function setAlertMode(mode) {
  alertMode.value = mode;
  localStorage.setItem('piweb.alert', mode);
  if (mode === 'sound' || mode === 'both') unlockAudio();
  if ((mode === 'notify' || mode === 'both') && window.Notification && Notification.permission !== 'granted') {
    const p = await Notification.requestPermission();
    if (p !== 'granted') toast('The browser did not allow notifications', { kind: 'error' });
  }
}

function unlockAudio() {
  const C = window.AudioContext || window.webkitAudioContext;
  if (!C) return;
  if (!audio) audio = new C();
  if (audio.state === 'suspended') audio.resume();
}

function beep() {
  if (!audio) unlockAudio();
  if (!audio) return;
  const o = audio.createOscillator();
  const g = audio.createGain();
  o.frequency.value = 880;
  g.gain.value = 0.06;
  o.connect(g);
  g.connect(audio.destination);
  o.start();
  o.stop(audio.currentTime + 0.15);
}

// finished alerts that pi stopped running in session s.
function finished(s) {
  const mode = alertMode.value;
  if (mode === 'off') return;
  const v = current.value;
  if (!document.hidden && v && v.id === s.id) return; // the user sees it end
  if (mode === 'sound' || mode === 'both') beep();
  if ((mode === 'notify' || mode === 'both') && window.Notification && Notification.permission === 'granted') {
    const n = new Notification('pi finished', { body: s.name || s.firstMessage || s.cwd || '', tag: 'piweb-' + s.id });
    n.onclick = () => { window.focus(); navigate(sessionURL(s.id)); n.close(); };
  }
}

const was = new Map(); // session id -> running when last seen
effect(() => {
  for (const s of sessions.value) {
    if (was.get(s.id) && !s.running) finished(s);
    was.set(s.id, !!s.running);
  }
});
