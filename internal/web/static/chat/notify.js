// Turn-end alerts: a short sound and/or a browser notification when pi
// finishes, fails or waits in a session the user is not looking at
// (js/attention.js calls alertUser on the index stream's attention
// events, so it covers every session pi runs). The choice is kept in
// localStorage; notifications ask the browser's permission when chosen.
import { signal } from '@preact/signals';
import { navigate, sessionURL, toast } from '../js/state.js';
import { t } from '../js/i18n.js';

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
    if (p !== 'granted') toast(t('notify.denied'), { kind: 'error' });
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

// alertUser plays the chosen alert for an attention event of session id
// (js/attention.js decides when: not muted, not in view).
export function alertUser(title, body, id) {
  const mode = alertMode.value;
  if (mode === 'off') return;
  if (mode === 'sound' || mode === 'both') beep();
  if ((mode === 'notify' || mode === 'both') && window.Notification && Notification.permission === 'granted') {
    const n = new Notification(title, { body, tag: 'piweb-' + id });
    n.onclick = () => { window.focus(); navigate(sessionURL(id)); n.close(); };
  }
}
