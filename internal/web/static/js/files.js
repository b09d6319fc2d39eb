// The files panel: the session's cwd as a lazy tree, and a viewer with
// highlighting, Markdown preview and images, reloaded when the file changes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { PanelButtons } from './panelsize.js';
import * as api from './api.js';
import { fileRequest, toast, confirm, closePanel } from './state.js';
import { atPath } from '../chat/complete.js';
import { highlight, langOf } from './highlight.js';
import { markdown, capped } from './markdown.js';
import { fmtBytes } from './util.js';
import { glyph } from './icons.js';
import { t } from './i18n.js';

const imageRE = /\.(png|jpe?g|gif|webp|svg)$/i;
const pdfRE = /\.pdf$/i;
const audioRE = /\.(mp3|wav|ogg|oga|m4a|flac)$/i;
const videoRE = /\.(mp4|m4v|webm|ogv|mov)$/i;
const maxUpload = 32 << 20;

// relPath makes a path from a message relative to the cwd; null when it
// is outside.
function relPath(p, cwd) {
  p = p.replace(/^\.\//, '');
  if (!p.startsWith('/')) return p;
  const root = (cwd || '').replace(/\/+$/, '') + '/';
  return cwd && p.startsWith(root) ? p.slice(root.length) : null;
}

// upload sends a dropped or picked file into the cwd, asking before it
// replaces a file of the same name; it returns the uploaded path.
async function upload(id, file) {
  if (file.size > maxUpload) throw new Error(t('files.tooBig', { name: file.name, size: fmtBytes(maxUpload) }));
  const ask = () => confirm(t('files.replaceTitle', { name: file.name }), t('files.replaceText'),
    { ok: t('set.replace'), danger: true });
  // Ask first when the folder has the name; the server refuses it anyway
  // (409 exists) when it appeared meanwhile, and then we ask.
  const listed = ((await api.listFiles(id, '')).entries || []).some((e) => e.name === file.name);
  if (listed && !(await ask())) return null;
  try {
    return (await api.uploadFile(id, '', file.name, file, listed)).path;
  } catch (e) {
    if (e.code !== 'exists' || !(await ask())) throw e;
    return (await api.uploadFile(id, '', file.name, file, true)).path;
  }
}

export function FilesPanel({ view }) {
  const [file, setFileState] = useState('');
  // choices counts the files chosen, so an upload that ends after the
  // user chose another file does not take the viewer from it.
  const choices = useRef(0);
  const setFile = (p) => { choices.current++; setFileState(p); };
  const [missing, setMissing] = useState('');
  const [drag, setDrag] = useState(false);
  const cwd = view.detail.value?.session?.cwd;
  const req = fileRequest.value;
  useEffect(() => {
    if (!req) return;
    const rel = relPath(req.path, cwd);
    if (rel == null) toast(t('files.outside', { path: req.path }), { kind: 'error' });
    else setFile(rel);
  }, [req && req.n]);
  const send = async (files) => {
    for (const f of files) {
      const chosen = choices.current;
      try {
        const p = await upload(view.id, f);
        if (p) { toast(t('files.uploaded', { path: p })); if (choices.current === chosen) setFile(p); }
      } catch (e) {
        toast(t('files.uploadFailed', { why: e.message }), { kind: 'error' });
      }
    }
  };
  return html`<div class=${'files-panel' + (drag ? ' dragging' : '')}
      onDragOver=${(e) => { if (e.dataTransfer
        && [...e.dataTransfer.types].includes('Files')) { e.preventDefault(); setDrag(true); } }}
      onDragLeave=${(e) => { if (e.currentTarget === e.target) setDrag(false); }}
      onDrop=${(e) => { e.preventDefault(); setDrag(false); if (!missing) send([...e.dataTransfer.files]); }}>
    <div class="panel-head"><strong>${t('panel.files')}</strong><span class="muted path-ell" title=${cwd}>${cwd}</span>
      ${!missing && html`<label class="btn ghost small upload-btn"
        title=${t('files.uploadTitle')}>${t('files.upload')}<input type="file" multiple hidden
        onChange=${(e) => { send([...e.target.files]); e.target.value = ''; }} /></label>`}
      <${PanelButtons} />
        </div>
    ${missing ? html`<div class="muted pad files-missing">${missing}</div>` : html`<div class="files-split">
      <div class="files-tree"><${Dir} id=${view.id} path="" depth=${0} sel=${file} onOpen=${setFile}
        onError=${setMissing} /></div>
      ${file ? html`<${Viewer} key=${file} view=${view} path=${file} />` : html`<div
        class="viewer muted pad">${t('files.choose')}</div>`}
    </div>`}
  </div>`;
}

// Dir lists a folder and follows its changes once it could be listed. The
// root of a session whose folder is gone (the server says missing) and a
// root that cannot be listed are reported once, through onError, and never
// followed.
function Dir({ id, path, depth, sel, onOpen, onError }) {
  const [list, setList] = useState(null);
  const [open, setOpen] = useState({});
  useEffect(() => {
    let live = true;
    let stop = null;
    let loads = 0; // the latest load's answer wins
    const load = () => { const n = ++loads; return api.listFiles(id, path).then((d) => {
      if (!live || n !== loads) return;
      if (d.missing) {
        setList({ error: 'folder not found' });
        if (onError) onError("This session's folder does not exist on this machine (moved or deleted).");
        return;
      }
      setList(d.entries || []);
      // Listed again once followed (hello): a change between this
      // listing and the subscription would otherwise be missed.
      stop = stop || api.follow(api.filesTopic(id, path), (ev) => { if (ev.type === 'file_changed'
        || ev.type === 'hello') load(); });
    }, (e) => {
      if (!live || n !== loads) return;
      setList({ error: e.message });
      if (onError) onError(e.message);
    }); };
    load();
    return () => { live = false; if (stop) stop(); };
  }, [id, path]);
  if (!list) return html`<div class="muted small pad-s">…</div>`;
  if (list.error) return html`<div class="muted small pad-s">${list.error}</div>`;
  if (!list.length) return html`<div class="muted small pad-s files-empty">${t('files.emptyFolder')}</div>`;
  return html`<ul class="ftree">${list.map((e) => {
    const p = path ? path + '/' + e.name : e.name;
    const pad = { paddingLeft: 6 + depth * 12 + 'px' };
    if (e.type === 'dir') {
      return html`<li key=${p}><button type="button" class="fnode dir" style=${pad}
        onClick=${() => setOpen({ ...open, [p]: !open[p] })}>
        <span class=${'chev' + (open[p] ? ' open' : '')}>${glyph.chevron}</span>${e.name}</button>
        ${open[p] && html`<${Dir} id=${id} path=${p} depth=${depth + 1} sel=${sel} onOpen=${onOpen} />`}</li>`;
    }
    return html`<li key=${p}><button type="button" class=${'fnode' + (sel === p ? ' sel' : '')} style=${pad}
      title=${fmtBytes(e.size)} onClick=${() => onOpen(p)}>${e.name}</button></li>`;
  })}</ul>`;
}

// insertPath writes @path (as pi's editor would) into the composer; on a
// phone the panel closes, to show it.
function insertPath(view, path) {
  if (!view.insertText) return;
  view.insertText(atPath(path));
  if (matchMedia('(max-width: 760px)').matches) closePanel();
}

function Viewer({ view, path }) {
  const id = view.id;
  const [text, setText] = useState(null);
  const [rev, setRev] = useState(0);
  const [preview, setPreview] = useState(true);
  const isImage = imageRE.test(path);
  const media = pdfRE.test(path) ? 'pdf' : audioRE.test(path) ? 'audio' : videoRE.test(path) ? 'video' : '';
  const isMd = /\.(md|markdown)$/i.test(path);
  useEffect(() => {
    let live = true;
    if (!isImage && !media) {
      fetch(api.fileURL(id, path)).then(async (r) => {
        const body = await r.text();
        if (!live) return;
        if (!r.ok) {
          let msg = body;
          try { msg = JSON.parse(body).error.message; } catch { /* not JSON */ }
          setText({ error: msg });
        } else setText({ body });
      }, (e) => live && setText({ error: e.message }));
    }
    return () => { live = false; };
  }, [id, path, rev]);
  // A text file is read again once followed (hello), for a change made
  // before the subscription; media are not (that would restart them).
  useEffect(() => api.follow(api.filesTopic(id, path), (ev) => {
    if (ev.type === 'file_changed' || (ev.type === 'hello' && !isImage && !media)) setRev((n) => n + 1);
  }), [id, path]);
  return html`<div class="viewer">
    <div class="viewer-head"><span class="path">${path}</span>
      <button class="btn ghost small insert-path" type="button" disabled=${!view.insertText}
        title=${t('files.insertTitle')}
        onClick=${() => insertPath(view, path)}>${t('files.insert')}</button>
      ${isMd && html`<button class="btn ghost small" type="button" onClick=${() => setPreview(!preview)}>
        ${t(preview ? 'files.source' : 'files.preview')}</button>`}</div>
    <div class="viewer-body">
      ${isImage ? html`<img class="file-img" alt=${path} src=${api.fileURL(id, path) + '&r=' + rev} />`
        : media === 'pdf' ? html`<iframe class="file-pdf" title=${path} src=${api.fileURL(id, path) + '&r=' + rev}>
          </iframe>`
        : media === 'audio' ? html`<audio class="file-media" controls src=${api.fileURL(id, path) + '&r=' + rev}>
          </audio>`
        : media === 'video' ? html`<video class="file-media" controls src=${api.fileURL(id, path) + '&r=' + rev}>
          </video>`
        : !text ? html`<div class="muted pad">${t('common.loading')}</div>`
        : text.error ? html`<div class="stop error">${text.error}</div>`
        : isMd && preview ? html`<div class="md pad">${markdown(text.body)}</div>`
        : capped(text.body, (s) => html`<${Lines} code=${s} lang=${langOf(path)} />`)}
    </div></div>`;
}

function Lines({ code, lang }) {
  const n = code.replace(/\n$/, '').split('\n').length; // a final newline ends the last line
  const nums = Array.from({ length: n }, (_, i) => i + 1).join('\n');
  return html`<div class="lines"><pre class="gutter" aria-hidden="true">${nums}</pre><pre class="src"><code>
    ${highlight(code, lang)}</code></pre></div>`;
}
