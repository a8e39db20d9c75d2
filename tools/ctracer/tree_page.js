/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ctracer's page (--html): its script, built into the program (tree_page.c).
 * The overview strip, the key, then one <details> per bio, its table built
 * when first opened. Text is set with textContent, never as HTML: a task
 * name cannot inject markup.
 */
'use strict';
/* The bios as tree_view.c wrote them (tree_page.h) */
const bios = JSON.parse(document.getElementById('ct-data').textContent);
/* btt's marks in a bio's life: what each means, the colour of the phase it begins */
const MARKS = {
	Q: ['queued', '#e08cc0'],
	G: ['got a request', '#f0c24b'],
	I: ['inserted in the scheduler', '#5fbfb2'],
	D: ['issued to the driver', '#86c16a'],
	C: ['completed', '#999'],
};
const OPEN = 20;	/* details open at first; the rest are built when opened */
const LANES = 24, LANE_PX = 7;	/* the overview's rows of bars */

function el(tag, cls, text) {
	const e = document.createElement(tag);
	if (cls)
		e.className = cls;
	if (text !== undefined)
		e.textContent = text;
	return e;
}
const us = (v) => v.toFixed(3) + ' us';
/* v us in the unit a tick step of step us calls for: 250 us, 1.5 ms, 2 s */
function unit(v, step) {
	if (step >= 1e6)
		return +(v / 1e6).toFixed(6) + ' s';
	if (step >= 1e3)
		return +(v / 1e3).toFixed(3) + ' ms';
	return +v.toFixed(3) + ' \u00b5s';
}
/* An axis over len us: a tick at every 1, 2 or 5 times a power of ten, about n */
function axis(len, n) {
	const a = el('div', 'axis');
	const raw = len / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
	const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw * 0.999);
	/* i * step: no error adds up */
	for (let i = 0; i * step <= len * 1.000001; i++) {
		const at = 100 * i * step / len, late = at > 80;
		const t = el('span', late ? 'tick late' : 'tick', unit(i * step, step));
		/* the last labels end at their tick: they stay on the page */
		if (late)
			t.style.right = (100 - at) + '%';
		else
			t.style.left = at + '%';
		a.appendChild(t);
	}
	return a;
}
function op_of(b) {
	const w = b.op.split(' ')[0];
	return w === 'READ' ? 'read' : w === 'WRITE' ? 'write' : 'other';
}
/* Between each two marks the door saw, in order: the phases of the bio */
function phases(b) {
	const seen = Object.keys(MARKS).filter((m) => m in b.marks), out = [];
	for (let i = 1; i < seen.length; i++) {
		const from = seen[i - 1], to = seen[i], name = from + '2' + to;
		const at = b.marks[from], len = b.marks[to] - at;
		if (len >= 0)
			out.push({ name, from, to, at, len: name in b.btt ? b.btt[name] : len });
	}
	return out;
}

/* The run's time: 0 at its first event, whichever bio was printed first */
const base = bios.reduce((m, b) => Math.min(m, b.t0), Infinity);
const run = Math.max(bios.reduce((m, b) => Math.max(m, b.t0 - base + b.span), 0),
	0.001);
/* Every bio's timeline at one scale, the longest bio's: lengths compare */
const scale = Math.max(bios.reduce((m, b) => Math.max(m, b.span), 0), 0.001);
const fills = [];	/* per bio: build its table, once */

document.getElementById('count').textContent = bios.length +
	(bios.length === 1 ? ' bio' : ' bios') + ' in ' + unit(run, run) +
	' from the run\u2019s first event';

/* Every bio as a thin bar on the run's axis, in the first row where it fits */
function overview() {
	const box = document.getElementById('ov'), lanes = el('div', 'lanes'), ends = [];
	const room = run / 200;	/* the least room a bar takes: it stays clickable */
	bios.map((b, k) => k).sort((x, y) => bios[x].t0 - bios[y].t0).forEach((k) => {
		const b = bios[k], at = b.t0 - base;
		let lane = ends.findIndex((e) => e <= at);
		if (lane < 0 && ends.length < LANES)
			lane = ends.push(0) - 1;
		if (lane < 0)	/* every row taken: the one that frees first */
			lane = ends.indexOf(Math.min(...ends));
		ends[lane] = at + Math.max(b.span, room);
		const a = el('a', 'ov-bar op-' + op_of(b) + (b.ended ? '' : ' no-end'));
		a.id = 'ov-' + k;
		a.href = '#bio-' + k;
		a.dataset.sector = b.sector;
		a.style.left = 100 * at / run + '%';
		a.style.width = 100 * b.span / run + '%';
		a.style.top = 1 + lane * LANE_PX + 'px';
		a.title = b.hdr + '; sector ' + b.sector + ', ' + b.op + ', at ' + us(at);
		/* its hash already set: no hashchange, so select here */
		a.addEventListener('click', (e) => {
			if (location.hash === a.hash) {
				e.preventDefault();
				select();
			}
		});
		lanes.appendChild(a);
	});
	lanes.style.height = 2 + Math.max(ends.length, 1) * LANE_PX + 'px';
	box.appendChild(lanes);
	box.appendChild(axis(run, 8));
}

/* What the colours mean: ops, the phases this run saw, contexts */
function key() {
	const k = document.getElementById('key');
	const group = (title, items) => {
		const g = el('div', 'group');
		g.appendChild(el('b', '', title));
		items.forEach(([name, cls, colour, text]) => {
			const i = el('span', 'item');
			const sw = el('span', 'sw ' + cls);
			i.dataset.key = name;
			if (colour)
				sw.style.background = colour;
			i.appendChild(sw);
			i.appendChild(el('span', '', text));
			g.appendChild(i);
		});
		k.appendChild(g);
	};
	const ph = new Map(), ctx = new Set(), order = Object.keys(MARKS).join('');
	bios.forEach((b) => {
		phases(b).forEach((p) => ph.set(p.name, p));
		b.rows.forEach((r) => ctx.add(r.ctx));
	});
	group('Overview, by op:',
		['read', 'write', 'other'].map((o) => [o, 'op-' + o, '', o]));
	group('btt phases:', [...ph.values()]
		.sort((x, y) => order.indexOf(x.from) - order.indexOf(y.from) ||
			order.indexOf(x.to) - order.indexOf(y.to))
		.map((p) => [p.name, '', MARKS[p.from][1],
			p.name + ' ' + MARKS[p.from][0] + ' \u2192 ' + MARKS[p.to][0]]));
	if (!ph.size)
		k.lastChild.appendChild(el('span', 'meta', 'none seen'));
	group('Rows, by context:', [...ctx].map((c) => [c, c, '', c])
		.concat([['gap', 'task gap', '', 'to the next event (no return seen)']]));
}

/* A bio's rows: time, duration, where it ran, its timeline bar, the call tree */
function table(b) {
	const t = el('table'), h = el('tr'), ph = phases(b);
	['time', 'duration', 'cpu', 'context', 'task', 'timeline', 'function', 'data']
		.forEach((c) => {
			const th = el('th', c === 'timeline' ? 'line' : '', c);
			if (c === 'timeline')
				th.appendChild(axis(scale, 4));
			h.appendChild(th);
		});
	t.appendChild(h);

	/* the phases: a band of their own, and a shade behind each row's bar */
	const tr = el('tr', 'btt'), line = el('td', 'line'), band = el('div', 'band');
	const span = el('div', 'span');
	span.style.width = 100 * b.span / scale + '%';
	band.appendChild(span);
	const shade = [];
	ph.forEach((p) => {
		const s = el('div', 'seg', p.name), from = 100 * p.at / scale;
		const to = 100 * (p.at + p.len) / scale, c = MARKS[p.from][1];
		s.dataset.phase = p.name;
		s.style.left = from + '%';
		s.style.width = to - from + '%';
		s.style.background = c;
		s.title = p.name + ' ' + us(p.len) + ': ' + MARKS[p.from][0] + ' \u2192 ' +
			MARKS[p.to][0];
		band.appendChild(s);
		shade.push('transparent ' + from + '%', c + '55 ' + from + '%',
			c + '55 ' + to + '%', 'transparent ' + to + '%');
	});
	const bg = shade.length ?
		'linear-gradient(to right,' + shade.join(',') + '),#eee' : '';
	const cell = el('td', 'meta', 'btt phases');
	cell.colSpan = 5;
	tr.appendChild(cell);
	line.appendChild(band);
	tr.appendChild(line);
	const sum = Object.entries(b.btt).map(([k, v]) => k + ' ' + us(v)).join(', ');
	const words = el('td', 'meta', sum ? 'btt: ' + sum : 'btt: no phase seen');
	words.colSpan = 2;
	tr.appendChild(words);
	t.appendChild(tr);

	/* a row without its return: the time to the bio's next event (integer ns) */
	const gap = [];
	for (let i = b.rows.length - 1, next = -1; i >= 0; i--) {
		const r = b.rows[i];
		if (r.close)
			continue;
		gap[i] = next >= 0 ? (Math.round(next * 1000) - Math.round(r.t * 1000)) / 1000 : -1;
		next = r.t;
	}
	b.rows.forEach((r, i) => {
		const tr = el('tr'), fill = !r.close && r.d < 0 && gap[i] >= 0;
		const d = r.close ? -1 : fill ? gap[i] : r.d;
		tr.appendChild(el('td', 'num', us(r.t)));
		const dur = el('td', 'num dur' + (fill ? ' gap' : ''), d >= 0 ? us(d) : '');
		if (fill)
			dur.title = 'no return seen: the time to the bio\u2019s next event';
		tr.appendChild(dur);
		tr.appendChild(el('td', 'num', 'cpu' + r.cpu));
		tr.appendChild(el('td', '', r.ctx));
		tr.appendChild(el('td', '', r.task));
		const line = el('td', 'line'), track = el('div', 'track');
		if (bg)
			track.style.background = bg;
		if (!r.close) {
			const bar = el('div', 'bar ' + r.ctx + (fill ? ' gap' : ''));
			/* the last event's mark stays inside its track */
			bar.style.left = 'calc(min(' + 100 * r.t / scale + '%, 100% - 2px))';
			bar.style.width = (d > 0 ? 100 * d / scale : 0) + '%';
			bar.title = r.fn + (d >= 0 ? ' ' + us(d) : '') +
				(fill ? ' to the next event' : '');
			track.appendChild(bar);
		}
		line.appendChild(track);
		tr.appendChild(line);
		const fn = el('td', 'fn', r.fn);
		fn.style.paddingLeft = 6 + 14 * r.depth + 'px';
		tr.appendChild(fn);
		tr.appendChild(el('td', 'data', r.data));
		t.appendChild(tr);
	});
	return t;
}

/* One <details> per bio; its table built when first opened */
function detail(b, k) {
	const d = el('details', 'bio');
	let built = false;
	d.id = 'bio-' + k;
	d.dataset.bio = b.bio;
	d.dataset.sector = b.sector;
	d.appendChild(el('summary', '', b.hdr + ' \u2014 sector ' + b.sector + ', ' +
		b.size + ' bytes, ' + b.op + ', at ' + unit(b.t0 - base, b.t0 - base) +
		' in the run'));
	fills[k] = () => {
		if (!built)
			d.appendChild(table(b));
		built = true;
	};
	d.addEventListener('toggle', () => d.open && fills[k]());
	if (k < OPEN) {
		d.open = true;
		fills[k]();
	}
	return d;
}

/* #bio-K: that bio opened, marked in the overview, scrolled to */
let sel = -1;
function select() {
	const m = /^#bio-(\d+)$/.exec(location.hash), k = m ? +m[1] : -1;
	if (!fills[k])
		return;
	if (sel >= 0) {
		document.getElementById('bio-' + sel).classList.remove('sel');
		document.getElementById('ov-' + sel).classList.remove('sel');
	}
	sel = k;
	const d = document.getElementById('bio-' + k);
	d.classList.add('sel');
	document.getElementById('ov-' + k).classList.add('sel');
	fills[k]();
	d.open = true;
	d.scrollIntoView();
}

overview();
key();
const root = document.getElementById('bios');
bios.forEach((b, k) => root.appendChild(detail(b, k)));
window.addEventListener('hashchange', select);
select();
