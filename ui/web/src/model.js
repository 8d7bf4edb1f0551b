// The run as the page reads it: the events column by column (see ui.Run),
// the lanes' intervals, and the state at any event, from the events alone.

export function isFork(msg) {
  return msg === 'fork' || msg.endsWith('.fork');
}

// build derives what the diagram draws: per process, the intervals waiting
// (hungry) and holding (eating), crashes (with the restart that ends one),
// markers (view, fence, restart, move) and the message pairs.
export function build(run) {
  const n = run.t.length;
  const kind = run.k.map((k) => run.kinds[k]);
  let procs = run.processes || 0;
  for (let i = 0; i < n; i++) if (run.p[i] >= procs) procs = run.p[i] + 1;
  const end = run.end ? Math.max(run.end.t, n ? run.t[n - 1] : 0) : (n ? run.t[n - 1] : 0);
  const intervals = []; // {p, s: 'wait'|'hold', from, to, i}
  const open = new Array(procs).fill(null);
  const crashes = []; // {p, t, until}
  const crashOpen = new Array(procs).fill(null);
  const markers = []; // {p, t, ev, i, epoch}
  const arrows = []; // [send index, deliver index]
  const close = (p, t) => { if (open[p]) { open[p].to = t; intervals.push(open[p]); open[p] = null; } };
  for (let i = 0; i < n; i++) {
    const p = run.p[i], t = run.t[i];
    switch (kind[i]) {
      case 'request': case 'acquire':
        close(p, t); open[p] = { p, s: 'wait', from: t, to: end, i }; break;
      case 'enter': case 'grant':
        close(p, t); open[p] = { p, s: 'hold', from: t, to: end, i }; break;
      case 'exit': case 'release': case 'permit': case 'reject': case 'deposit': case 'withdraw':
        close(p, t); break;
      case 'crash':
        close(p, t);
        crashOpen[p] = { p, t, until: end, i }; crashes.push(crashOpen[p]); break;
      case 'restart':
        if (crashOpen[p]) { crashOpen[p].until = t; crashOpen[p] = null; }
        markers.push({ p, t, ev: 'restart', i }); break;
      case 'view': case 'fence': case 'move': case 'exhausted': case 'name':
        markers.push({ p, t, ev: kind[i], i, a: run.a[i] }); break;
      case 'deliver':
        if (run.send[i] >= 0) arrows.push([run.send[i], i]);
        break;
    }
  }
  // Still open when the run stopped: drawn to the diagram's right edge.
  for (let p = 0; p < procs; p++) if (open[p]) { open[p].open = true; close(p, end); }
  intervals.sort((a, b) => a.from - b.from);
  const byProc = Array.from({ length: procs }, () => []);
  for (const iv of intervals) byProc[iv.p].push(iv);
  return { run, n, kind, procs, end, intervals, byProc, crashes, markers, arrows, forkInit: forkInit(run, kind) };
}

// forkInit: where each fork (dining edge) starts, from the events alone:
// the sender of its first fork message, or the first process to eat with
// it before any was sent (-1: not known).
function forkInit(run, kind) {
  const edges = run.edges || [];
  const init = new Array(edges.length).fill(-1);
  if (!edges.length) return init;
  const byPair = edgeIndex(edges);
  const done = new Array(edges.length).fill(false);
  for (let i = 0; i < run.t.length; i++) {
    const p = run.p[i];
    if (kind[i] === 'send' && isFork(run.msgs[run.m[i]])) {
      const e = byPair.get(pairKey(p, run.a[i]));
      if (e !== undefined && !done[e]) { init[e] = p; done[e] = true; }
    } else if (kind[i] === 'enter' && run.res[i]) {
      for (const e of run.res[i]) if (e < edges.length && !done[e]) { init[e] = p; done[e] = true; }
    }
  }
  return init;
}

export function pairKey(a, b) { return a < b ? a * 1e7 + b : b * 1e7 + a; }

export function edgeIndex(edges) {
  const m = new Map();
  edges.forEach(([a, b], e) => m.set(pairKey(a, b), e));
  return m;
}

// State is what holds at one event (after it): each process's state, the
// forks, the resources' queues, the pool's units, the quota's permits.
export class State {
  constructor(model) {
    this.m = model;
    this.byPair = edgeIndex(model.run.edges || []);
    this.reset();
  }

  reset() {
    const { procs } = this.m;
    const edges = this.m.run.edges || [];
    this.at = -1; // the last event applied
    this.ps = new Array(procs).fill('idle'); // idle | wait | hold
    this.crashed = new Array(procs).fill(false);
    this.res = new Array(procs).fill(null); // asked or held resources
    this.since = new Array(procs).fill(0);
    this.forkAt = this.m.forkInit.slice(); // holder, -1 unknown
    this.transit = new Array(edges.length).fill(false);
    this.used = new Array(edges.length).fill(false); // eaten with since it arrived
    this.queue = new Map(); // resource -> [p...] in request order
    this.unitHolder = new Map(); // unit -> p
    this.unitAt = new Map(); // unit -> p (moves and grants)
    this.permits = new Array(procs).fill(0);
    this.rejects = new Array(procs).fill(0);
    this.exhausted = false;
    this.views = new Map(); // p -> {epoch, serving}
  }

  // seek applies events up to index i (inclusive); -1 is before the first.
  seek(i) {
    if (i < this.at) this.reset();
    while (this.at < i) this.apply(++this.at);
  }

  apply(i) {
    const r = this.m.run, p = r.p[i], t = r.t[i];
    switch (this.m.kind[i]) {
      case 'request': case 'acquire':
        this.ps[p] = 'wait'; this.since[p] = t; this.res[p] = r.res[i];
        for (const x of r.res[i] || []) { if (!this.queue.has(x)) this.queue.set(x, []); this.queue.get(x).push(p); }
        break;
      case 'enter':
        this.ps[p] = 'hold'; this.since[p] = t; this.res[p] = r.res[i];
        for (const e of r.res[i] || []) {
          if (e < this.forkAt.length) { this.forkAt[e] = p; this.transit[e] = false; this.used[e] = true; }
        }
        break;
      case 'grant':
        this.ps[p] = 'hold'; this.since[p] = t; this.unitHolder.set(r.a[i], p); this.unitAt.set(r.a[i], p); break;
      case 'exit':
        for (const x of this.res[p] || []) this.dequeue(x, p);
        this.ps[p] = 'idle'; this.since[p] = t; this.res[p] = null; break;
      case 'release':
        if (this.unitHolder.get(r.a[i]) === p) this.unitHolder.delete(r.a[i]);
        this.ps[p] = 'idle'; this.since[p] = t; break;
      case 'permit': this.permits[p]++; this.ps[p] = 'idle'; break;
      case 'reject': this.rejects[p]++; this.ps[p] = 'idle'; break;
      case 'deposit': case 'withdraw': this.ps[p] = 'idle'; break;
      case 'exhausted': this.exhausted = true; break;
      case 'move': this.unitAt.set(r.a[i], p); break;
      case 'crash': this.crashed[p] = true; break;
      case 'restart':
        // Back with its volatile state lost: no longer in any queue.
        for (const x of this.res[p] || []) this.dequeue(x, p);
        this.crashed[p] = false; this.ps[p] = 'idle'; this.res[p] = null; break;
      case 'view': this.views.set(p, { epoch: r.a[i], serving: true, members: r.res[i] || [] }); break;
      case 'fence': this.views.set(p, { epoch: r.a[i], serving: false, members: [] }); break;
      case 'send': case 'deliver': {
        const msg = r.msgs[r.m[i]];
        if (!isFork(msg)) break;
        const e = this.byPair.get(pairKey(p, r.a[i]));
        if (e === undefined) break;
        if (this.m.kind[i] === 'send') { this.transit[e] = true; this.forkAt[e] = r.a[i]; }
        else { this.transit[e] = false; this.forkAt[e] = p; this.used[e] = false; }
        break;
      }
    }
  }

  dequeue(x, p) {
    const q = this.queue.get(x);
    if (!q) return;
    const k = q.indexOf(p);
    if (k >= 0) q.splice(k, 1);
    if (!q.length) this.queue.delete(x);
  }

  lanes() {
    return this.ps.map((s, p) => ({ p, state: this.crashed[p] ? 'crashed' : s, res: this.res[p] ? this.res[p].slice() : null }));
  }

  forks() {
    return (this.m.run.edges || []).map(([a, b], e) => ({
      fork: e, ends: [a, b], at: this.forkAt[e], transit: this.transit[e],
      dirty: this.used[e], eating: this.forkAt[e] >= 0 && this.ps[this.forkAt[e]] === 'hold' && !this.transit[e] && (this.res[this.forkAt[e]] || []).includes(e),
      // Both ends eat with it: exclusion is broken on this fork.
      conflict: [a, b].every((p) => this.ps[p] === 'hold' && !this.crashed[p] && (this.res[p] || []).includes(e)),
    }));
  }

  queues() {
    return [...this.queue.entries()].sort((a, b) => a[0] - b[0]).map(([res, q]) => ({
      res, queue: q.slice(), holding: q.filter((p) => this.ps[p] === 'hold'),
    }));
  }

  units() {
    const us = new Set([...this.unitAt.keys(), ...this.unitHolder.keys()]);
    return [...us].sort((a, b) => a - b).map((u) => ({ unit: u, at: this.unitAt.get(u), holder: this.unitHolder.has(u) ? this.unitHolder.get(u) : null }));
  }
}

// figures measures the events whose tick is in [t0, t1]: responses of the
// answers in it, messages sent in it by kind, and the mean number of
// processes holding over it.
export function figures(model, t0, t1) {
  const r = model.run, kind = model.kind;
  const asked = new Map();
  const resp = [];
  const msgs = new Map();
  let served = 0;
  for (let i = 0; i < model.n; i++) {
    const t = r.t[i];
    if (t > t1) break;
    switch (kind[i]) {
      case 'request': case 'acquire': asked.set(r.p[i], t); break;
      case 'enter': case 'grant': case 'permit': case 'reject': case 'deposit': case 'withdraw':
        if (t >= t0) {
          served++;
          if (asked.has(r.p[i])) resp.push(t - asked.get(r.p[i]));
        }
        asked.delete(r.p[i]);
        break;
      case 'send':
        if (t >= t0) { const k = r.msgs[r.m[i]]; msgs.set(k, (msgs.get(k) || 0) + 1); }
        break;
    }
  }
  resp.sort((a, b) => a - b);
  const q = (f) => (resp.length ? resp[Math.min(resp.length - 1, Math.floor(f * resp.length))] : 0);
  let holdTime = 0;
  for (const iv of model.intervals) {
    if (iv.s !== 'hold') continue;
    const a = Math.max(iv.from, t0), b = Math.min(iv.to, t1);
    if (b > a) holdTime += b - a;
  }
  const span = Math.max(1, t1 - t0);
  return {
    from: t0, to: t1, served,
    response: { count: resp.length, mean: resp.length ? resp.reduce((x, y) => x + y, 0) / resp.length : 0, p50: q(0.5), p99: q(0.99), max: resp.length ? resp[resp.length - 1] : 0 },
    messages: Object.fromEntries([...msgs.entries()].sort((a, b) => b[1] - a[1])),
    concurrency: holdTime / span,
  };
}

// eventAt is the last event at or before tick t (-1: none).
export function eventAt(run, t) {
  let lo = 0, hi = run.t.length - 1, ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (run.t[mid] <= t) { ans = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return ans;
}

// at says what process p is doing at tick t, for the hover readout.
export function doing(model, p, t) {
  if (p < 0 || p >= model.procs) return null;
  for (const c of model.crashes) if (c.p === p && c.t <= t && t < c.until) return { state: 'crashed', from: c.t };
  const ivs = model.byProc[p];
  let lo = 0, hi = ivs.length - 1, found = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ivs[mid].from <= t) { found = ivs[mid]; lo = mid + 1; } else hi = mid - 1;
  }
  if (found && t < found.to + (found.open ? Infinity : 0)) {
    return { state: found.s, from: found.from, res: model.run.res[found.i] };
  }
  return { state: 'idle' };
}
