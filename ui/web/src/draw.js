// Drawing on canvases: the time-space diagram and the conflict graph.

export const colors = {
  wait: '#ffb74d', hold: '#43a047', crash: '#6a1b9a', failure: 'rgba(198,40,40,0.16)',
  cursor: '#1565c0', violation: '#c62828', arrow: 'rgba(84,110,122,0.55)', fork: 'rgba(46,125,50,0.8)',
  lane: '#eceff1', text: '#37474f',
};

const LEFT = 44, BOTTOM = 22;

function fit(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

// Geometry maps ticks and processes to pixels for one drawing.
export function geometry(canvas, model, view) {
  const w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
  const laneH = Math.max(0.5, Math.min(22, (h - BOTTOM - 4) / Math.max(1, model.procs)));
  const x = (t) => LEFT + ((t - view.t0) / Math.max(1, view.t1 - view.t0)) * (w - LEFT - 8);
  const tOf = (px) => view.t0 + ((px - LEFT) / (w - LEFT - 8)) * Math.max(1, view.t1 - view.t0);
  const y = (p) => 2 + p * laneH;
  return { w, h, laneH, x, tOf, y, left: LEFT };
}

export function drawDiagram(canvas, model, view, cursorT, violation, failureSet) {
  const { ctx, w, h } = fit(canvas);
  const g = geometry(canvas, model, view);
  const r = model.run;
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  const stats = { intervals: 0, arrows: 0, crashes: 0, markers: 0 };
  // Lanes, the failure set shaded.
  const fail = new Set(failureSet || []);
  for (let p = 0; p < model.procs; p++) {
    ctx.fillStyle = fail.has(p) ? colors.failure : (p % 2 ? '#fff' : '#f7f9fa');
    ctx.fillRect(LEFT, g.y(p), w - LEFT, g.laneH);
  }
  const bar = Math.max(0.5, g.laneH * 0.7), off = (g.laneH - bar) / 2;
  for (const iv of model.intervals) {
    if (iv.to < view.t0 || iv.from > view.t1) continue;
    const a = Math.max(LEFT, g.x(iv.from)), b = iv.open ? w : Math.min(w, g.x(iv.to));
    ctx.fillStyle = colors[iv.s];
    ctx.fillRect(a, g.y(iv.p) + off, Math.max(1, b - a), bar);
    stats.intervals++;
  }
  // Messages, when few enough to read.
  const visible = model.arrows.filter(([s, d]) => r.t[d] >= view.t0 && r.t[s] <= view.t1);
  if (visible.length <= 3000) {
    ctx.lineWidth = 1;
    for (const [s, d] of visible) {
      const fork = r.msgs[r.m[s]].endsWith('fork');
      ctx.strokeStyle = fork ? colors.fork : colors.arrow;
      const x0 = g.x(r.t[s]), y0 = g.y(r.p[s]) + g.laneH / 2, x1 = g.x(r.t[d]), y1 = g.y(r.p[d]) + g.laneH / 2;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0);
      ctx.beginPath(); ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
      ctx.closePath(); ctx.fillStyle = ctx.strokeStyle; ctx.fill();
      stats.arrows++;
    }
  }
  // Crashes: a cross, then the lane struck through until a restart.
  for (const c of model.crashes) {
    if (c.t > view.t1 || c.until < view.t0) continue;
    const yc = g.y(c.p) + g.laneH / 2;
    ctx.strokeStyle = colors.crash; ctx.lineWidth = Math.max(1.5, Math.min(3, g.laneH / 4));
    ctx.beginPath(); ctx.moveTo(Math.max(LEFT, g.x(c.t)), yc); ctx.lineTo(Math.min(w, g.x(c.until)), yc); ctx.stroke();
    const xc = g.x(c.t), s = Math.max(4, Math.min(8, g.laneH / 2));
    if (xc >= LEFT) {
      ctx.lineWidth = 2.5;
      ctx.beginPath(); ctx.moveTo(xc - s, yc - s); ctx.lineTo(xc + s, yc + s); ctx.moveTo(xc - s, yc + s); ctx.lineTo(xc + s, yc - s); ctx.stroke();
      ctx.fillStyle = colors.crash; ctx.fillText('crash p' + c.p, xc + s + 2, Math.max(10, yc - 2));
    }
    stats.crashes++;
  }
  // Markers: view and fence as flags, restart as an up arrow, moves as dots.
  for (const mk of model.markers) {
    if (mk.t < view.t0 || mk.t > view.t1) continue;
    const xm = g.x(mk.t), ym = g.y(mk.p);
    ctx.fillStyle = { view: '#1e88e5', fence: '#e53935', restart: '#00897b', move: '#8d6e63', exhausted: '#000', name: '#5e35b1' }[mk.ev];
    ctx.beginPath();
    if (mk.ev === 'view' || mk.ev === 'fence') {
      ctx.fillRect(xm, ym, 1.5, g.laneH);
      ctx.moveTo(xm + 1.5, ym); ctx.lineTo(xm + 8, ym + Math.min(4, g.laneH / 3)); ctx.lineTo(xm + 1.5, ym + Math.min(8, g.laneH * 0.66));
      ctx.fill();
      if (g.laneH >= 12) ctx.fillText((mk.ev === 'view' ? 'view ' : 'fence ') + mk.a, xm + 9, ym + 10);
    } else if (mk.ev === 'restart') {
      ctx.moveTo(xm, ym); ctx.lineTo(xm + 5, ym + g.laneH); ctx.lineTo(xm - 5, ym + g.laneH); ctx.fill();
      if (g.laneH >= 12) ctx.fillText('restart', xm + 6, ym + 10);
    } else {
      ctx.arc(xm, ym + g.laneH / 2, Math.max(1.5, Math.min(3, g.laneH / 4)), 0, 7); ctx.fill();
    }
    stats.markers++;
  }
  // The violation and the cursor.
  if (violation && violation.t >= view.t0 && violation.t <= view.t1) {
    const xv = g.x(violation.t);
    ctx.strokeStyle = colors.violation; ctx.lineWidth = 2; ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(xv, 0); ctx.lineTo(xv, h - BOTTOM); ctx.stroke(); ctx.setLineDash([]);
    ctx.fillStyle = colors.violation; ctx.fillText(violation.kind === 'stuck' ? 'stuck' : 'violation', xv + 3, h - BOTTOM - 4);
  }
  const xcur = g.x(cursorT);
  if (xcur >= LEFT && xcur <= w) {
    ctx.strokeStyle = colors.cursor; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(xcur, 0); ctx.lineTo(xcur, h - BOTTOM); ctx.stroke();
  }
  // Axis and lane names.
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, LEFT, h); ctx.fillRect(0, h - BOTTOM, w, BOTTOM);
  ctx.fillStyle = colors.text;
  const every = Math.ceil(12 / g.laneH);
  for (let p = 0; p < model.procs; p += every) {
    ctx.fillStyle = fail.has(p) ? colors.violation : colors.text;
    ctx.font = fail.has(p) ? 'bold 11px system-ui, sans-serif' : '11px system-ui, sans-serif';
    ctx.fillText('p' + p, 4, g.y(p) + Math.min(g.laneH, 12) - 1);
  }
  ctx.fillStyle = colors.text; ctx.font = '11px system-ui, sans-serif';
  const step = niceStep((view.t1 - view.t0) / 8);
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    const xt = g.x(t);
    ctx.fillRect(xt, h - BOTTOM, 1, 4);
    ctx.fillText(String(t), xt + 2, h - 6);
  }
  return stats;
}

function niceStep(x) {
  const e = Math.pow(10, Math.floor(Math.log10(Math.max(1, x))));
  for (const m of [1, 2, 5, 10]) if (m * e >= x) return m * e;
  return 10 * e;
}

// layout places the processes of the conflict graph: a grid for grid:RxC,
// a circle otherwise.
export function layout(header, procs, w, h) {
  const spec = header && header.scenario && header.scenario.graph || '';
  const m = /^grid:(\d+)x(\d+)$/.exec(spec);
  const pos = [];
  if (m && +m[1] * +m[2] === procs) {
    const R = +m[1], C = +m[2];
    for (let p = 0; p < procs; p++) pos.push([30 + (p % C) * (w - 60) / Math.max(1, C - 1), 30 + Math.floor(p / C) * (h - 60) / Math.max(1, R - 1)]);
    return pos;
  }
  const rad = Math.min(w, h) / 2 - 28;
  for (let p = 0; p < procs; p++) {
    const a = -Math.PI / 2 + (2 * Math.PI * p) / Math.max(1, procs);
    pos.push([w / 2 + rad * Math.cos(a), h / 2 + rad * Math.sin(a)]);
  }
  return pos;
}

// drawGraph draws processes (coloured by state) and forks (a dot on the
// holder's side: filled clean, hollow dirty; in transit: at the middle).
export function drawGraph(canvas, model, state, pos, failureSet) {
  const { ctx, w, h } = fit(canvas);
  ctx.clearRect(0, 0, w, h);
  const lanes = state.lanes();
  const fail = new Set(failureSet || []);
  ctx.font = '10px system-ui, sans-serif';
  ctx.lineWidth = 1.5;
  for (const f of state.forks()) {
    const [a, b] = f.ends, pa = pos[a], pb = pos[b];
    ctx.strokeStyle = f.conflict ? colors.violation : f.eating ? colors.hold : '#b0bec5';
    ctx.lineWidth = f.conflict ? 4 : 1.5;
    ctx.beginPath(); ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); ctx.stroke();
    ctx.lineWidth = 1.5;
    if (f.at < 0) continue;
    const near = f.at === a ? 0.28 : 0.72, k = f.transit ? 0.5 : near;
    const fx = pa[0] + (pb[0] - pa[0]) * k, fy = pa[1] + (pb[1] - pa[1]) * k;
    ctx.beginPath(); ctx.arc(fx, fy, 4, 0, 7);
    ctx.fillStyle = '#3e2723'; ctx.strokeStyle = '#3e2723';
    if (f.dirty) { ctx.fillStyle = '#fff'; ctx.fill(); ctx.stroke(); } else ctx.fill();
  }
  const rad = Math.max(5, Math.min(13, 150 / Math.sqrt(Math.max(1, model.procs))));
  for (const l of lanes) {
    const [x, y] = pos[l.p];
    ctx.beginPath(); ctx.arc(x, y, rad, 0, 7);
    ctx.fillStyle = { idle: '#fff', wait: colors.wait, hold: colors.hold, crashed: colors.crash }[l.state];
    ctx.fill();
    ctx.strokeStyle = fail.has(l.p) ? colors.violation : '#546e7a';
    ctx.lineWidth = fail.has(l.p) ? 3 : 1; ctx.stroke();
    ctx.fillStyle = l.state === 'idle' || l.state === 'wait' ? '#000' : '#fff';
    ctx.fillText(String(l.p), x - (l.p > 9 ? 6 : 3), y + 3);
  }
}
