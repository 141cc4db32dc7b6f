// The forge's one script: progressive enhancement only. Security keys (WebAuthn) need it; line
// comments on a diff open their form with it; every other page works without it.
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
