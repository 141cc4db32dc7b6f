// The forge's one script: progressive enhancement only. Security keys (WebAuthn) need it; line
// comments on a diff open their form with it; project board cards are dragged with it (each card's
// "Move to" form does the same without it); every other page works without it.
(() => {
  'use strict';
  const enc = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const dec = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));

  async function post(url, csrf, body) {
    const r = await fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', 'X-Csrf-Token': csrf }, body: JSON.stringify(body) });
    const json = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(json.message || r.statusText);
    return json;
  }

  function fail(box, err) {
    const p = box.querySelector('#webauthn-error');
    p.textContent = err && err.message ? err.message : String(err);
    p.hidden = false;
  }

  function wire(box, buttonId, run) {
    const button = box.querySelector(buttonId);
    if (!button) return;
    if (!window.PublicKeyCredential) {
      fail(box, new Error('This browser does not support security keys.'));
      button.disabled = true;
      return;
    }
    button.addEventListener('click', () => run().catch((e) => fail(box, e)));
  }

  const reg = document.querySelector('[data-webauthn-register]');
  if (reg) {
    const base = reg.dataset.webauthnRegister;
    wire(reg, '#webauthn-register', async () => {
      const name = reg.querySelector('#webauthn-name').value.trim();
      const opts = await post(`${base}/request_register`, reg.dataset.csrf, { name });
      opts.challenge = dec(opts.challenge);
      opts.user.id = dec(opts.user.id);
      opts.excludeCredentials = (opts.excludeCredentials || []).map((c) => ({ ...c, id: dec(c.id) }));
      const cred = await navigator.credentials.create({ publicKey: opts });
      const response = {
        id: cred.id, rawId: enc(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
        response: { clientDataJSON: enc(cred.response.clientDataJSON), attestationObject: enc(cred.response.attestationObject), transports: cred.response.getTransports ? cred.response.getTransports() : [] },
      };
      await post(`${base}/register`, reg.dataset.csrf, { name, response });
      window.location.reload();
    });
  }

  const signin = document.querySelector('[data-webauthn-signin]');
  if (signin) {
    const base = signin.dataset.webauthnSignin;
    wire(signin, '#webauthn-signin', async () => {
      const opts = await post(`${base}/options`, signin.dataset.csrf, {});
      opts.challenge = dec(opts.challenge);
      opts.allowCredentials = (opts.allowCredentials || []).map((c) => ({ ...c, id: dec(c.id) }));
      const cred = await navigator.credentials.get({ publicKey: opts });
      const r = cred.response;
      const response = {
        id: cred.id, rawId: enc(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
        response: { clientDataJSON: enc(r.clientDataJSON), authenticatorData: enc(r.authenticatorData), signature: enc(r.signature), userHandle: r.userHandle ? enc(r.userHandle) : undefined },
      };
      const done = await post(base, signin.dataset.csrf, { response });
      window.location.assign(done.redirect);
    });
  }

  // Files changed: a "+" shows on the line under the pointer and opens the comment form under it.
  // The line's number is read from its number cell (class "num n" for the new side, "num o" for
  // the old), so the table carries nothing per line for it.
  const lineForm = document.getElementById('line-comment-form');
  if (lineForm) {
    const plus = document.createElement('button');
    plus.type = 'button';
    plus.className = 'add-line-comment';
    plus.textContent = '+';
    const lineOf = (cell) => {
      const row = cell.parentElement;
      let num = cell.previousElementSibling;
      if (!num || !num.classList.contains('num')) return null;
      if (row.closest('table.unified')) num = row.querySelector('td.num.n').textContent ? row.querySelector('td.num.n') : row.querySelector('td.num.o');
      if (!num.textContent) return null;
      return { side: num.classList.contains('n') ? 'R' : 'L', line: num.textContent };
    };
    document.addEventListener('mouseover', (ev) => {
      const cell = ev.target.closest('.can-comment table.diff td.line');
      if (!cell || cell.contains(plus)) return;
      const at = lineOf(cell);
      if (!at) return;
      plus.dataset.side = at.side;
      plus.dataset.line = at.line;
      plus.setAttribute('aria-label', `Comment on line ${at.side}${at.line}`);
      cell.prepend(plus);
    });
    document.addEventListener('click', (ev) => {
      const button = ev.target.closest('.add-line-comment');
      if (button) {
        const row = button.closest('tr');
        const next = row.nextElementSibling;
        if (next && next.classList.contains('comment-form-row')) { next.querySelector('textarea').focus(); return; }
        const form = lineForm.content.firstElementChild.cloneNode(true);
        form.elements.path.value = row.closest('table').dataset.path;
        form.elements.side.value = button.dataset.side;
        form.elements.line.value = button.dataset.line;
        const tr = document.createElement('tr');
        tr.className = 'comment-form-row';
        const td = document.createElement('td');
        td.colSpan = row.children.length;
        td.appendChild(form);
        tr.appendChild(td);
        row.after(tr);
        form.querySelector('textarea').focus();
        return;
      }
      const cancel = ev.target.closest('.cancel-line-comment');
      if (cancel) cancel.closest('tr.comment-form-row').remove();
    });
  }

  // Copy buttons: the text of the input they name.
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-copy]');
    if (!b) return;
    const input = document.getElementById(b.dataset.copy);
    if (!input) return;
    navigator.clipboard.writeText(input.value).then(() => { b.dataset.copied = 'true'; window.setTimeout(() => { delete b.dataset.copied; }, 1500); }, () => input.select());
  });

  // A search box that narrows a list: data-filter names the items it hides when they do not match.
  document.addEventListener('input', (ev) => {
    const box = ev.target.closest('input[data-filter]');
    if (!box) return;
    const q = box.value.trim().toLowerCase();
    for (const item of document.querySelectorAll(box.dataset.filter)) item.hidden = q !== '' && !item.textContent.toLowerCase().includes(q);
  });

  // Menus made of <details> close when one clicks elsewhere.
  document.addEventListener('click', (ev) => {
    for (const open of document.querySelectorAll('details.menu-drop[open]')) if (!open.contains(ev.target)) open.open = false;
  });
  // The avatar form: the chosen picture shown with a square crop box (Cropper.js, loaded by that
  // page); the box's pixels go with the upload, so the forge crops what the user chose.
  const avatarInput = document.querySelector('input[type=file][data-avatar-crop]');
  // why: Cropper.js comes after this script (the page loads it), so it is looked for when a file is chosen.
  if (avatarInput) {
    let cropper = null;
    const form = avatarInput.form;
    const img = document.getElementById(avatarInput.dataset.avatarCrop);
    const set = (x, y, size) => { form.elements.crop_x.value = x; form.elements.crop_y.value = y; form.elements.crop_size.value = size; };
    avatarInput.addEventListener('change', () => {
      if (cropper) cropper.destroy();
      cropper = null;
      set('', '', '');
      const file = avatarInput.files[0];
      img.hidden = !file || !window.Cropper;
      if (img.hidden) return;
      const reader = new window.FileReader();
      reader.onload = () => {
        img.src = reader.result;
        cropper = new window.Cropper(img, {
          aspectRatio: 1, viewMode: 1, autoCropArea: 1, rotatable: false, zoomable: false, scalable: false, movable: false,
          crop(ev) {
            const d = ev.detail;
            const data = cropper ? cropper.getImageData() : null;
            const x = Math.max(0, Math.round(d.x));
            const y = Math.max(0, Math.round(d.y));
            let size = Math.max(1, Math.round(Math.min(d.width, d.height)));
            if (data) size = Math.min(size, Math.floor(data.naturalWidth) - x, Math.floor(data.naturalHeight) - y);
            set(x, y, size);
          },
        });
      };
      reader.readAsDataURL(file);
    });
  }
})();

// ---- Actions: a run's live log view (src/web/pages/action-run.ts) ----
// The page carries the open steps' last lines; this asks `POST <data-url>` with a cursor per open
// step ({logCursors: [{step, cursor, limit?}]}) and appends only the lines after each cursor, about
// once a second while the run or job is not done, with no reload. Opening a folded step brings its
// last lines; "Show earlier lines" brings the ones before. Text goes in as text, never as HTML.
(() => {
  'use strict';
  const view = document.querySelector('.run-view[data-url]');
  if (!view) return;
  const icons = view.querySelector('template.action-status-icons');
  const tail = Number(view.dataset.tail) || 200;
  let live = view.dataset.live === 'true';
  let busy = false;
  // The attempt the steps on the page belong to (null while the job has none).
  const attemptEl = view.querySelector('.job-attempt-n');
  let stepsAttempt = view.querySelector('.job-step') && attemptEl ? Number(attemptEl.textContent) : null;

  const setStatus = (holder, status) => {
    if (!holder || !icons) return;
    const icon = icons.content.querySelector(`[data-status="${status}"]`);
    const now = holder.querySelector('.action-status');
    if (!icon || (now && now.dataset.status === status)) return;
    holder.replaceChildren(icon.cloneNode(true));
  };

  const lineEl = (l) => {
    const div = document.createElement('div');
    div.className = 'log-line';
    const num = document.createElement('span');
    num.className = 'log-num';
    num.textContent = String(l.n);
    const time = document.createElement('span');
    time.className = 'log-time';
    time.textContent = l.time;
    const text = document.createElement('span');
    text.className = 'log-text';
    for (const [cls, part] of l.segs) {
      if (!cls) { text.append(part); continue; }
      const s = document.createElement('span');
      s.className = cls;
      s.textContent = part;
      text.append(s);
    }
    div.append(num, time, text);
    return div;
  };

  async function ask(cursors) {
    const r = await fetch(view.dataset.url, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', 'X-Csrf-Token': view.dataset.csrf }, body: JSON.stringify({ logCursors: cursors }),
    });
    if (!r.ok) throw new Error(r.statusText);
    return r.json();
  }

  function applyState(st) {
    // A job run again while its page is open: the steps shown are another attempt's, so the page starts over.
    if (stepsAttempt !== null && st.job.attempt !== stepsAttempt) {
      live = false;
      window.location.reload();
      return false;
    }
    if (st.job.sections.length) stepsAttempt = st.job.attempt;
    setStatus(view.querySelector('.run-status'), st.run.status);
    const dur = view.querySelector('.run-duration');
    if (dur) dur.textContent = st.run.duration;
    for (const j of st.jobs) {
      const li = view.querySelector(`.run-job[data-job="${j.index}"]`);
      if (!li) continue;
      setStatus(li.querySelector('.job-status'), j.status);
      li.querySelector('.job-duration').textContent = j.duration;
    }
    setStatus(view.querySelector('.job-head .job-status'), st.job.status);
    const attempt = view.querySelector('.job-attempt-n');
    if (attempt) attempt.textContent = String(st.job.attempt);
    const box = view.querySelector('.job-steps');
    for (const s of st.job.sections) {
      let el = box.querySelector(`.job-step[data-step="${s.index}"]`);
      if (!el) {
        // A section the page did not have yet (the job started, or ended): drawn like the others.
        el = document.createElement('details');
        el.className = 'job-step';
        el.dataset.step = String(s.index);
        el.dataset.first = el.dataset.next = '0';
        el.dataset.loaded = 'true';
        const sum = document.createElement('summary');
        const status = document.createElement('span');
        status.className = 'step-status';
        const name = document.createElement('span');
        name.className = 'step-name';
        name.textContent = s.name;
        const d = document.createElement('span');
        d.className = 'muted step-duration';
        sum.append(status, ' ', name, ' ', d);
        const earlier = document.createElement('button');
        earlier.type = 'button';
        earlier.className = 'link step-earlier';
        earlier.hidden = true;
        earlier.textContent = 'Show earlier lines';
        const log = document.createElement('div');
        log.className = 'step-log';
        el.append(sum, earlier, log);
        box.append(el);
      }
      el.dataset.total = String(s.total);
      setStatus(el.querySelector('.step-status'), s.status);
      el.querySelector('.step-duration').textContent = s.duration;
      // As Gitea, the running step opens by itself.
      if (s.status === 'running' && !el.open && el.dataset.auto !== 'done') { el.dataset.auto = 'done'; el.dataset.loaded = 'true'; el.open = true; }
    }
    const waiting = view.querySelector('.job-waiting');
    if (waiting && st.job.sections.length) waiting.hidden = true;
    live = !(st.run.done && st.job.done);
    return true;
  }

  function applyLogs(logs) {
    for (const piece of logs) {
      const el = view.querySelector(`.job-step[data-step="${piece.step}"]`);
      if (!el || !piece.lines.length) continue;
      const log = el.querySelector('.step-log');
      const first = Number(el.dataset.first);
      const next = Number(el.dataset.next);
      if (piece.cursor < first) {
        // Earlier lines: put before the ones shown.
        const frag = document.createDocumentFragment();
        const upto = Math.min(piece.lines.length, first - piece.cursor);
        for (const l of piece.lines.slice(0, upto)) frag.append(lineEl(l));
        log.prepend(frag);
        el.dataset.first = String(piece.cursor);
      } else if (piece.cursor === next) {
        const frag = document.createDocumentFragment();
        for (const l of piece.lines) frag.append(lineEl(l));
        log.append(frag);
        el.dataset.next = String(next + piece.lines.length);
      }
      el.querySelector('.step-earlier').hidden = Number(el.dataset.first) === 0;
    }
  }

  async function refresh(extra) {
    if (busy) return;
    busy = true;
    try {
      const cursors = [...view.querySelectorAll('.job-step[open]')].map((el) => ({ step: Number(el.dataset.step), cursor: Number(el.dataset.next) }));
      const res = await ask(extra ? [...cursors.filter((c) => c.step !== extra.step), extra] : cursors);
      if (!applyState(res.state)) return;
      applyLogs(res.logs);
      // A step with more lines than one answer carries asks again at once.
      const more = res.logs.some((l) => l.lines.length) && [...view.querySelectorAll('.job-step[open]')].some((el) => Number(el.dataset.next) < Number(el.dataset.total));
      if (more) window.setTimeout(() => refresh(), 50);
    } catch {
      // why: a failed fetch (the server restarting, the network) is tried again at the next tick.
    } finally {
      busy = false;
    }
  }

  view.addEventListener('toggle', (ev) => {
    const el = ev.target;
    if (!el.matches || !el.matches('.job-step') || !el.open || el.dataset.loaded === 'true') return;
    el.dataset.loaded = 'true';
    const start = Math.max(0, Number(el.dataset.total) - tail);
    el.dataset.first = el.dataset.next = String(start);
    refresh();
  }, true);

  view.addEventListener('click', (ev) => {
    const b = ev.target.closest('.step-earlier');
    if (!b) return;
    const el = b.closest('.job-step');
    const first = Number(el.dataset.first);
    const from = Math.max(0, first - 1000);
    refresh({ step: Number(el.dataset.step), cursor: from, limit: first - from });
  });

  const tick = () => {
    if (!live) return;
    refresh().finally(() => window.setTimeout(tick, 1000));
  };
  if (live) window.setTimeout(tick, 1000);
})();

// ---- Project boards: cards dragged between and within columns (src/web/views/projects/view.eta) ----
// A dropped card's column posts its new order, `{issues: [{issueID, sorting}]}`, to
// `<board>/<column>/move`, as Gitea's board does. Each card's "Move to" menu does the same without
// a pointer or this script, through a plain form (`<board>/cards/<issue>/move`).
(() => {
  'use strict';
  const board = document.querySelector('.project-board[data-movable="true"]');
  if (!board) return;
  let dragged = null;
  let from = null;

  // The card the pointer is above, in a list of cards: the first whose middle lies below it.
  const cardAfter = (list, y) => [...list.querySelectorAll('.project-card:not(.dragging)')].find((c) => {
    const r = c.getBoundingClientRect();
    return y < r.top + r.height / 2;
  }) || null;

  const counts = () => {
    for (const col of board.querySelectorAll('.project-column')) {
      const n = col.querySelectorAll('.project-card').length;
      const badge = col.querySelector('.column-count');
      badge.textContent = String(n);
      badge.setAttribute('aria-label', `${n} cards`);
    }
  };

  const fail = (message) => {
    let p = board.previousElementSibling;
    if (!p || !p.classList.contains('board-error')) {
      p = document.createElement('p');
      p.className = 'flash error board-error';
      p.setAttribute('role', 'alert');
      board.before(p);
    }
    p.textContent = `${message} Reload the page to see the board as it is.`;
  };

  board.addEventListener('dragstart', (ev) => {
    const card = ev.target.closest && ev.target.closest('.project-card');
    if (!card) return;
    dragged = card;
    from = { list: card.parentElement, next: card.nextElementSibling };
    card.classList.add('dragging');
    ev.dataTransfer.effectAllowed = 'move';
    ev.dataTransfer.setData('text/plain', card.dataset.issue);
  });

  board.addEventListener('dragover', (ev) => {
    if (!dragged) return;
    const col = ev.target.closest && ev.target.closest('.project-column');
    if (!col) return;
    ev.preventDefault();
    ev.dataTransfer.dropEffect = 'move';
    const list = col.querySelector('.project-cards');
    const after = cardAfter(list, ev.clientY);
    if (after) { if (after !== dragged.nextElementSibling) list.insertBefore(dragged, after); } else if (list.lastElementChild !== dragged) list.append(dragged);
  });

  board.addEventListener('drop', (ev) => { if (dragged) ev.preventDefault(); });

  board.addEventListener('dragend', () => {
    const card = dragged;
    if (!card) return;
    dragged = null;
    card.classList.remove('dragging');
    const list = card.parentElement;
    if (list === from.list && card.nextElementSibling === from.next) return;
    counts();
    const issues = [...list.querySelectorAll('.project-card')].map((c, i) => ({ issueID: Number(c.dataset.issue), sorting: i }));
    fetch(`${board.dataset.url}/${list.dataset.column}/move`, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', 'X-Csrf-Token': board.dataset.csrf }, body: JSON.stringify({ issues }),
    }).then(async (r) => {
      if (r.ok) {
        // The card's menu now starts from its new column.
        const select = card.querySelector('.card-move select');
        if (select) select.value = list.dataset.column;
        return;
      }
      const json = await r.json().catch(() => ({}));
      fail(json.message || r.statusText);
    }, () => fail('The move could not be sent.'));
  });
})();
