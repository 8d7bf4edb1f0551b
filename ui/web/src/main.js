// allot ui: the page. It asks the server what to show (/api/info), then
// shows a run (/api/run) or polls a cluster (/api/cluster). Everything it
// shows is also exported, for tests and scripts, as window.allotUI.state().
import { build, State, figures, eventAt, doing, isFork } from './model.js';
import { drawDiagram, drawGraph, geometry, layout, colors } from './draw.js';

const $ = (id) => document.getElementById(id);
const ui = { ready: false, mode: 'loading', error: null };
window.allotUI = {
  state: () => snapshot(),
  // where process p's lane is at tick t, in client coordinates (for
  // scripts that point at the diagram).
  point: (p, t) => {
    const c = $('diagram'), g = geometry(c, M, view), r = c.getBoundingClientRect();
    return { x: r.left + c.clientLeft + g.x(t), y: r.top + c.clientTop + g.y(p) + g.laneH / 2 };
  },
};

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

function table(head, rows, cls) {
  return '<table><tr>' + head.map((x) => '<th>' + esc(x) + '</th>').join('') + '</tr>' +
    rows.map((r, i) => '<tr' + (cls && cls[i] ? ' class="' + cls[i] + '"' : '') + '>' + r.map((x) => (typeof x === 'number' ? '<td class="num">' + x + '</td>' : '<td>' + x + '</td>')).join('') + '</tr>').join('') + '</table>';
}

function fail(msg) {
  ui.mode = 'error'; ui.error = msg; ui.ready = true;
  $('message').textContent = msg; $('message').hidden = false;
  $('hint').hidden = false;
  $('title').textContent = 'nothing to show';
  $('run').hidden = true; $('cluster').hidden = true;
}

async function getJSON(url) {
  const resp = await fetch(url, { cache: 'no-store' });
  if (!resp.ok) throw new Error(url + ': ' + resp.status + ' ' + (await resp.text()).trim());
  return resp.json();
}

async function boot() {
  try {
    const info = await getJSON('/api/info');
    if (info.mode === 'error') return fail(info.error);
    if (info.mode === 'cluster') return startCluster();
    startRun(await getJSON('/api/run'));
  } catch (e) {
    fail('allot ui: ' + e.message);
  }
}

// ---- a run ----

let M, S, view, cursor = -1, playing = false, pos = null, header = null, violation = null, failure = null, lastFig = null, drawn = null;

function startRun(run) {
  ui.mode = 'run';
  M = build(run);
  S = new State(M);
  header = run.header || null;
  violation = run.violation || null;
  failure = run.failure || null;
  view = whole();
  $('run').hidden = false;
  // Lanes of at most 22 px: a small run gets a short diagram.
  $('diagram').style.height = Math.min(520, Math.max(160, M.procs * 22 + 30)) + 'px';
  const h = header || {};
  $('title').textContent = (run.source || 'trace') + ' — ' + (h.algorithm || 'unknown algorithm') + ', ' + (run.kind || 'unknown kind') +
    ', ' + M.procs + ' processes, ' + M.n + ' events' + (h.seed !== undefined ? ', seed ' + h.seed : '');
  $('legend').innerHTML = [['wait', 'waiting (hungry)'], ['hold', 'holding (eating)'], ['crash', 'crashed'], ['failure', 'failure set'], ['cursor', 'cursor'], ['violation', 'violation']]
    .map(([k, t]) => '<span><i style="background:' + colors[k] + '"></i>' + t + '</span>').join('') +
    '<span>arrows: messages (green: forks)</span><span>flags: view / fence; ▲ restart</span>' +
    (run.notes || []).map((n) => '<span class="note">' + esc(n) + '</span>').join('');
  const banner = [];
  if (violation) banner.push('<b>' + (violation.kind === 'stuck' ? 'stuck' : 'violation') + '</b> at step ' + (violation.index + 1) + ' (tick ' + violation.t + '): ' + esc(violation.what));
  if (failure) banner.push('<b>crash</b> of ' + failure.crashed.map((p) => 'p' + p).join(', ') + ': failure set ' + failure.set.map((p) => 'p' + p).join(', ') + ' — at most ' + failure.locality + ' hop' + (failure.locality === 1 ? '' : 's') + ' from a crash');
  if (run.end && run.end.open.length && !violation && !failure) banner.push('the run ended with ' + run.end.open.map((p) => 'p' + p).join(', ') + ' waiting');
  if (banner.length) { $('banner').innerHTML = banner.join('<br>'); $('banner').hidden = false; $('banner').className = violation ? '' : 'crash'; }
  if (violation) { $('goto-violation').hidden = false; $('goto-violation').textContent = violation.kind === 'stuck' ? 'the step it is stuck at' : 'the violating step'; $('goto-violation').onclick = () => setCursor(violation.index, true); }
  pos = run.edges && run.edges.length && M.procs <= 400 ? layout(header, M.procs, 380, 380) : null;
  $('graph').hidden = !pos;
  $('statehead').textContent = { exclusive: run.edges && run.edges.length ? 'at the cursor: the conflict graph and its forks' : 'at the cursor: each resource\'s queue', pool: 'at the cursor: where each unit is', quota: 'at the cursor: permits by process' }[run.kind] || 'at the cursor';
  wire();
  setCursor(-1, false);
  ui.loadMs = performance.now(); // since the navigation began: fetch, parse, build, first drawing
  ui.ready = true;
}

function wire() {
  $('first').onclick = () => { stop(); setCursor(-1, true); };
  $('back').onclick = () => { stop(); setCursor(Math.max(-1, cursor - 1), true); };
  $('next').onclick = () => { stop(); setCursor(Math.min(M.n - 1, cursor + 1), true); };
  $('play').onclick = () => (playing ? stop() : play());
  $('fit').onclick = () => { view = whole(); redraw(); };
  $('zoomin').onclick = () => zoom(0.5);
  $('zoomout').onclick = () => zoom(2);
  $('jump').onsubmit = (e) => { e.preventDefault(); stop(); const t = Number($('jumpt').value); if (Number.isFinite(t)) jumpTo(t); };
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
    if (e.key === 'ArrowRight') $('next').click();
    else if (e.key === 'ArrowLeft') $('back').click();
    else if (e.key === ' ') { e.preventDefault(); $('play').click(); } else if (e.key === 'Home') $('first').click();
  });
  const c = $('diagram');
  let drag = null;
  c.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, v: { ...view }, moved: false }; });
  c.addEventListener('mousemove', (e) => {
    if (!drag) { hover(e); return; }
    const dx = e.offsetX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (!drag.moved) return;
    const g = geometry(c, M, drag.v);
    const dt = g.tOf(drag.x) - g.tOf(e.offsetX);
    view = { t0: drag.v.t0 + dt, t1: drag.v.t1 + dt };
    redraw();
  });
  c.addEventListener('mouseup', (e) => {
    if (drag && !drag.moved) { stop(); jumpTo(geometry(c, M, view).tOf(e.offsetX)); }
    drag = null;
  });
  c.addEventListener('mouseleave', () => { drag = null; });
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    const g = geometry(c, M, view), at = g.tOf(e.offsetX), f = Math.exp(e.deltaY * 0.0015);
    const span = Math.max(4, (view.t1 - view.t0) * f);
    const k = (at - view.t0) / Math.max(1, view.t1 - view.t0);
    view = { t0: at - k * span, t1: at - k * span + span };
    redraw();
  }, { passive: false });
  window.addEventListener('resize', redraw);
}

// whole is the view of the whole run, with a margin so that the first
// and last events are not on the edges.
function whole() {
  const pad = Math.max(1, M.end * 0.03);
  return { t0: -pad, t1: Math.max(1, M.end) + pad };
}

// zoom scales the view by f, centred on the cursor (the mouse wheel
// zooms around the mouse).
function zoom(f) {
  const span = Math.max(4, (view.t1 - view.t0) * f);
  view = { t0: cursorT - span / 2, t1: cursorT + span / 2 };
  redraw();
}

// hover says, under the diagram, what the process under the mouse does
// at the tick under the mouse.
function hover(e) {
  const g = geometry($('diagram'), M, view);
  const p = Math.floor((e.offsetY - 2) / g.laneH), t = Math.round(g.tOf(e.offsetX));
  const d = e.offsetX >= g.left ? doing(M, p, t) : null;
  $('hover').textContent = d ? 'p' + p + ' at tick ' + t + ': ' + { idle: 'idle (thinking)', wait: 'waiting', hold: 'holding', crashed: 'crashed' }[d.state] +
    (d.from !== undefined ? ' since tick ' + d.from : '') + (d.res && d.res.length ? ', resources ' + d.res.join(' ') : '') : '';
}

function jumpTo(t) { setCursor(eventAt(M.run, t), true, t); }

function play() {
  playing = true; $('play').textContent = '⏸ pause';
  let last = performance.now(), acc = 0;
  const tick = (now) => {
    if (!playing) return;
    acc += ((now - last) / 1000) * Number($('speed').value); last = now;
    const k = Math.floor(acc);
    if (k > 0) { acc -= k; setCursor(Math.min(M.n - 1, cursor + k), true); }
    if (cursor >= M.n - 1) return stop();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

function stop() { playing = false; $('play').textContent = '▶ play'; }

let cursorT = 0;
function setCursor(i, follow, t) {
  cursor = i;
  cursorT = t !== undefined ? Math.max(t, i >= 0 ? M.run.t[i] : 0) : (i >= 0 ? M.run.t[i] : 0);
  S.seek(i);
  if (follow && (cursorT < view.t0 || cursorT > view.t1)) {
    const span = view.t1 - view.t0;
    view = { t0: cursorT - span / 2, t1: cursorT + span / 2 };
  }
  const ev = i >= 0 ? describe(i) : 'before the first event';
  $('cursor').textContent = 'tick ' + Math.round(cursorT) + ' · event ' + (i + 1) + ' of ' + M.n + ' · ' + ev;
  redraw();
  panel();
}

function describe(i) {
  const r = M.run, k = M.kind[i];
  let s = 'p' + r.p[i] + ' ' + k;
  if (r.res[i] && r.res[i].length) s += ' ' + (k === 'view' ? 'members ' : 'res ') + JSON.stringify(r.res[i]);
  if (k === 'send') s += ' ' + r.msgs[r.m[i]] + ' → p' + r.a[i];
  if (k === 'deliver') s += ' ' + r.msgs[r.m[i]] + ' from p' + r.a[i];
  if (k === 'grant' || k === 'release' || k === 'move') s += ' unit ' + r.a[i];
  if (k === 'view' || k === 'fence') s += ' epoch ' + r.a[i];
  return s;
}

function redraw() {
  drawn = drawDiagram($('diagram'), M, view, cursorT, violation, failure && failure.set);
  showFigures();
}

function showFigures() {
  const a = Math.max(0, Math.floor(view.t0)), b = Math.ceil(view.t1);
  const f = figures(M, a, b);
  lastFig = f;
  $('span').textContent = '(ticks ' + a + ' to ' + b + ')';
  const msgs = Object.entries(f.messages);
  $('figures').innerHTML = table(['answered', 'response mean', 'p50', 'p99', 'max', 'concurrency (mean holding)'],
    [[f.served, +f.response.mean.toFixed(1), f.response.p50, f.response.p99, f.response.max, +f.concurrency.toFixed(2)]]) +
    (msgs.length ? '<p>' + table(['messages sent', ...msgs.map((m) => m[0])], [['by kind', ...msgs.map((m) => m[1])]]) + '</p>' : '<p class="note">no message events in view (trace with --trace-messages to see them)</p>');
}

function panel() {
  const run = M.run, lanes = S.lanes();
  if (pos) drawGraph($('graph'), M, S, pos, failure && failure.set);
  let html = '';
  if (run.kind === 'exclusive' && run.edges && run.edges.length) {
    html += run.msgs.some(isFork)
      ? '<p class="note">Each edge is a fork, the dot on its holder\'s side (from the fork messages; the middle: in transit). Filled: clean, hollow: dirty — eaten with since it arrived.</p>'
      : '<p class="note">Each edge is a fork. This trace has no fork messages (allot sim --trace-messages adds them): a fork is shown with the last process that ate with it.</p>';
    const fs = S.forks();
    if (fs.length <= 200) {
      html += table(['fork', 'between', 'at', 'clean / dirty'], fs.map((f) => [f.fork, 'p' + f.ends[0] + ' – p' + f.ends[1], f.conflict ? '<b>both eat with it</b>' : f.transit ? 'in transit to p' + f.at : f.at >= 0 ? 'p' + f.at + (f.eating ? ' (eating)' : '') : '?', f.at < 0 ? '' : f.dirty ? 'dirty' : 'clean']), fs.map((f) => (f.conflict ? 'violation' : '')));
    }
  } else if (run.kind === 'exclusive' || !run.kind) {
    const qs = S.queues();
    html += '<p class="note">Who asked for each resource, in request order, and who holds it.</p>';
    html += qs.length ? table(['resource', 'holding', 'waiting, in request order'], qs.map((q) => [q.res, q.holding.map((p) => 'p' + p).join(' '), q.queue.filter((p) => !q.holding.includes(p)).map((p) => 'p' + p).join(' ← ')])) : '<p>every resource free</p>';
  } else if (run.kind === 'pool') {
    const us = S.units();
    html += us.length ? table(['unit', 'at', 'held by'], us.map((u) => [u.unit, u.at !== undefined ? 'p' + u.at : '?', u.holder !== null ? 'p' + u.holder : ''])) : '<p>no unit seen yet</p>';
  } else if (run.kind === 'quota') {
    const tot = S.permits.reduce((x, y) => x + y, 0), rej = S.rejects.reduce((x, y) => x + y, 0);
    const budget = header && header.scenario && header.scenario.budget;
    html += '<p>' + tot + ' permits issued' + (budget ? ' of ' + budget + ' (' + (budget - tot) + ' left)' : '') + ', ' + rej + ' rejected' + (S.exhausted ? ', exhausted signalled' : '') + '</p>';
    const rows = [];
    S.permits.forEach((k, p) => { if (k || S.rejects[p]) rows.push(['p' + p, k, S.rejects[p]]); });
    html += table(['process', 'permits', 'rejects'], rows.slice(0, 300));
  }
  const busy = lanes.filter((l) => l.state !== 'idle');
  html += '<h2>processes not idle</h2>' + (busy.length ? table(['process', 'state', 'resources'], busy.slice(0, 300).map((l) => ['p' + l.p, '<span class="' + (l.state === 'crashed' ? 'crashed' : l.state) + '">' + { wait: 'waiting', hold: 'holding', crashed: 'crashed' }[l.state] + '</span>', l.res ? l.res.join(' ') : ''])) : '<p>all idle</p>');
  if (S.views.size) html += '<h2>views</h2>' + table(['process', 'epoch', 'serving'], [...S.views.entries()].map(([p, v]) => ['p' + p, v.epoch, v.serving ? 'yes' : 'fenced']));
  $('state').innerHTML = html;
  if (M.n <= 600) eventList();
}

function eventList() {
  const rows = [], cls = [];
  for (let i = 0; i < M.n; i++) {
    rows.push([i + 1, M.run.t[i], esc(describe(i))]);
    cls.push(violation && violation.index === i ? 'violation' : i === cursor ? 'current' : '');
  }
  $('events').innerHTML = '<h2>events (step through with ← →)</h2>' + table(['step', 'tick', 'event'], rows, cls);
  // Keep the current step in sight, scrolling the list alone.
  const el = cursor >= 0 && $('events').querySelectorAll('tr')[cursor + 1];
  if (el) {
    const box = $('events');
    if (el.offsetTop < box.scrollTop + 40 || el.offsetTop > box.scrollTop + box.clientHeight - 20) box.scrollTop = el.offsetTop - box.clientHeight / 2;
  }
}

// ---- a cluster ----

let clusterState = null;

async function startCluster() {
  ui.mode = 'cluster';
  $('cluster').hidden = false;
  $('title').textContent = 'a live cluster';
  for (;;) {
    try {
      clusterState = await getJSON('/api/cluster');
      showCluster(clusterState);
      ui.ready = true;
    } catch (e) {
      $('message').textContent = 'allot ui: the page lost its server: ' + e.message; $('message').hidden = false;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function clusterView(cs) {
  const nodes = [], holders = [], waiting = [], units = [], quotas = new Map();
  for (const n of cs.nodes) {
    const s = n.status;
    nodes.push({ addr: n.addr, error: n.error || null, node: s ? s.node : null, epoch: s ? s.epoch : null, live: s ? s.live || [] : [], fenced: s ? s.fenced : null, sessions: s ? s.sessions.length : 0 });
    if (!s) continue;
    for (const ss of s.sessions) {
      for (const g of ss.grants) {
        const where = { node: s.node, session: ss.id, grant: g.id };
        if (!g.held) { waiting.push({ ...where, key: g.key, resources: g.resources || [] }); continue; }
        if (g.key === 'lock') for (const r of g.resources || []) holders.push({ ...where, resource: r, epoch: g.epoch, counter: g.counter });
        else units.push({ ...where, semaphore: g.key, unit: g.unit, epoch: g.epoch, counter: g.counter });
      }
    }
    for (const q of s.quotas) {
      const issued = (q.issued || []).reduce((x, y) => Math.max(x, y), 0) > 0 ? q.issued : [];
      const prev = quotas.get(q.name);
      // Each node knows the counts it has heard of: the largest count per node wins.
      const merged = prev ? prev.issued.map((x, i) => Math.max(x, issued[i] || 0)) : issued.slice();
      for (let i = merged.length; i < issued.length; i++) merged[i] = issued[i];
      quotas.set(q.name, { name: q.name, budget: q.budget, waste: q.waste, issued: merged });
    }
  }
  holders.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  const qs = [...quotas.values()].map((q) => ({ ...q, total: q.issued.reduce((x, y) => x + y, 0) })).map((q) => ({ ...q, left: q.budget - q.total }));
  return { at: cs.at, nodes, holders, waiting, units, quotas: qs };
}

function showCluster(cs) {
  const v = clusterView(cs);
  const down = v.nodes.filter((n) => n.error);
  $('message').hidden = !down.length;
  $('message').textContent = down.map((n) => n.addr + ': ' + n.error).join('\n');
  $('polled').textContent = 'polled at ' + v.at + ' (every second)';
  $('nodes').innerHTML = table(['address', 'node', 'view epoch', 'members', 'fenced', 'sessions', 'status'],
    v.nodes.map((n) => [esc(n.addr), n.node ?? '', n.epoch ?? '', n.live.join(' '), n.fenced === null ? '' : n.fenced ? 'yes' : 'no', n.sessions, n.error ? 'unreachable' : 'up']), v.nodes.map((n) => (n.error ? 'down' : '')));
  $('holders').innerHTML = v.holders.length ? table(['resource', 'held by session', 'grant', 'at node', 'token (epoch, counter)'],
    v.holders.map((h) => [esc(h.resource), h.session, h.grant, h.node, '(' + h.epoch + ', ' + h.counter + ')'])) : '<p>no lock held</p>';
  $('waiting').innerHTML = v.waiting.length ? table(['what', 'session', 'grant', 'at node'], v.waiting.map((w) => [esc(w.key + (w.resources.length ? ' ' + w.resources.join(' ') : '')), w.session, w.grant, w.node])) : '<p>nobody waits</p>';
  $('units').innerHTML = v.units.length ? table(['semaphore', 'unit', 'session', 'at node', 'token (epoch, counter)'], v.units.map((u) => [esc(u.semaphore), u.unit, u.session, u.node, '(' + u.epoch + ', ' + u.counter + ')'])) : '<p>no unit held</p>';
  $('quotas').innerHTML = v.quotas.length ? table(['quota', 'budget', 'waste', 'issued', 'left'], v.quotas.map((q) => [esc(q.name), q.budget, q.waste, q.total, q.left])) : '<p>no quota declared</p>';
}

// ---- the exported state ----

function snapshot() {
  const out = { ready: ui.ready, mode: ui.mode, error: ui.error, loadMs: ui.loadMs };
  if (ui.mode === 'run' && M) {
    Object.assign(out, {
      events: M.n, processes: M.procs, kind: M.run.kind,
      cursor: { index: cursor, t: cursorT, event: cursor >= 0 ? describe(cursor) : null },
      view: { ...view }, lanes: S.lanes(), forks: S.forks(), queues: S.queues(), units: S.units(),
      permits: S.permits.slice(), rejects: S.rejects.slice(),
      violation, failure, figures: lastFig, drawn,
      crashes: M.crashes.map((c) => ({ p: c.p, t: c.t, until: c.until })),
      markers: M.markers.map((m) => ({ p: m.p, t: m.t, ev: m.ev })),
    });
  }
  if (ui.mode === 'cluster' && clusterState) Object.assign(out, clusterView(clusterState));
  return out;
}

boot();
