"""A server that goes away (issue 26, part 5): the page finds out within seconds and says so,
marks the turn left unanswered, and keeps a question asked meanwhile to send again.

The page asks the server for a tiny file every BEAT_S seconds; no answer (a refused connection,
or nothing within a few seconds) shows a banner, "the server went away", over the page, turns
the pinned headline of a question still in flight into "no answer", and from then on holds
every question asked (the box keeps its text; gradio is not given a question it cannot send).
When the server answers again the banner offers "Ask again" with the question, and a click sends
it as Enter would. The page reloads when the server is back, as gradio itself does once it
reconnects (its client does not survive a restart): the thread comes back from the address bar,
an unanswered turn marked by chat.py, and the question in flight, or held, is kept in the tab's
sessionStorage until an answer's headline shows, so the reloaded page offers it."""

from __future__ import annotations

BEAT_S = 2
GONE_JS = """<script>
(() => {
  const S = window.sessionStorage, BEAT = BEAT_S * 1000;
  let down = false, first = true;
  const box = () => document.querySelector('#question textarea');
  const esc = (t) => String(t).replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                                          '"': '&quot;', "'": '&#39;'})[c]);
  function banner() {
    let b = document.getElementById('np-gone');
    if (!b) {
      b = document.createElement('div'); b.id = 'np-gone'; b.setAttribute('role', 'alert');
      b.addEventListener('click', onBanner); document.body.appendChild(b);
    }
    return b;
  }
  function waiting() { return S.getItem('npHeld') || S.getItem('npAsked') || ''; }
  function render() {
    const b = banner(), q = waiting();
    document.body.classList.toggle('np-down', down);  // a step still spinning says "no answer"
    if (down) {
      b.className = 'np-gone-down';
      b.innerHTML = '<b>The server went away</b> — ' + (q ? 'your question is kept: <i>' + esc(q) +
        '</i>. ' : '') + 'This page checks every ' + (BEAT / 1000) + ' s and offers to ask again ' +
        'when the server is back.';
      const h = document.querySelector('#chat-headline .np-head-working');
      if (h) { h.className = 'np-head np-head-gone';
               h.innerHTML = '<div class="np-head-text"><span class="np-head-tag">no answer</span> ' +
                 'the server went away — ask again: ' + esc(q) + '</div>'; }
      const st = document.querySelector('#chat-status');
      if (st && S.getItem('npAsked')) st.textContent = 'the server went away — ask again';
    } else if (q) {
      b.className = 'np-gone-back';
      b.innerHTML = '<b>The server is back.</b> <button id="np-retry" type="button">Ask again</button> ' +
        '<i>' + esc(q) + '</i> <button id="np-dismiss" type="button">Dismiss</button>';
    } else { b.className = ''; b.innerHTML = ''; }
    b.hidden = !b.innerHTML;
  }
  function ready() {  // the page has loaded its thread (the clock shows)
    return /network clock/.test((document.querySelector('#chat-clock') || {}).innerText || '');
  }
  function send(text, tries) {  // as the on-call would: the Chat tab, the question, its button
    const t = box(), go = document.querySelector('#question button.submit-button');
    if (!t || !go || !ready()) { if ((tries || 0) < 50) setTimeout(() => send(text, (tries || 0) + 1), 200);
                                 return; }
    const tab = document.querySelector('button[role=tab][data-tab-id=chat]');
    if (tab && tab.getAttribute('aria-selected') !== 'true') tab.click();
    t.value = text; t.dispatchEvent(new Event('input', {bubbles: true}));
    setTimeout(() => { asked(text); go.click(); }, 150);
  }
  function onBanner(e) {
    if (e.target.id === 'np-retry') { const q = waiting(); S.removeItem('npHeld'); S.removeItem('npAsked');
                                      render(); send(q); }
    if (e.target.id === 'np-dismiss') { S.removeItem('npHeld'); S.removeItem('npAsked'); render(); }
  }
  function asking(e) {
    const t = box(); if (!t || e.target !== t && !(e.type === 'click')) return;
    const q = (t.value || '').trim(); if (!q) return;
    if (down) { e.preventDefault(); e.stopImmediatePropagation(); S.setItem('npHeld', q); render(); return; }
    asked(q);
  }
  function said() {
    return ((document.querySelector('#chat-headline .np-head') || {}).innerText || '').trim(); }
  function asked(q) { S.setItem('npAsked', q); S.setItem('npAskedOver', said()); }
  document.addEventListener('keydown', e => { if (e.key === 'Enter' && !e.shiftKey) asking(e); }, true);
  document.addEventListener('click', e => {
    if (e.target.closest && e.target.closest('#question button')) asking(e); }, true);
  function answered() {  // a new answer's headline (or an error's) ends the question in flight
    const h = document.querySelector('#chat-headline .np-head');
    if (!h || down || !S.getItem('npAsked') || !/np-head-(answer|error)/.test(h.className)) return;
    if (said() === (S.getItem('npAskedOver') || '')) return;  // still the answer before it
    S.removeItem('npAsked'); S.removeItem('npAskedOver'); render();
  }
  async function beat() {
    const ctl = new AbortController(), t = setTimeout(() => ctl.abort(), 3500);
    let ok = true;
    try { await fetch('favicon.ico?beat=' + Date.now(),
                      {method: 'HEAD', cache: 'no-store', signal: ctl.signal}); }
    catch (err) { ok = false; }
    clearTimeout(t);
    if (ok && down && !first) {  // back: a fresh page (gradio's client does not survive a
      location.reload();         // restart); the thread is in the address bar, the question here
      return;
    }
    if (first || ok === down) { first = false; down = !ok; render(); }  // first: after a reload
  }
  setInterval(beat, BEAT);
  setInterval(answered, 500);
})();
</script>""".replace("BEAT_S", str(BEAT_S))
