// SPDX-License-Identifier: LGPL-2.1-or-later
// The rfm serve page: a snapshot from /api/events (Server-Sent Events)
// redraws the tables; the histogram comes once from /api/hist.
"use strict";

function cell(row, text, cls) {
	const td = row.insertCell();
	td.textContent = text;
	if (cls)
		td.className = cls;
	return td;
}

function seconds(s) {
	if (s === null || s === undefined)
		return "never";
	return s < 1 ? (s * 1000).toFixed(1) + " ms" : s.toFixed(2) + " s";
}

// A node that runs no health monitor is attached, but nothing says it works.
// Leaving is not dying: a node that closed has left; one whose process died
// without closing has crashed; one whose beats stopped without a word is silent.
const NODE_STATES = { up: "up", no_heartbeat: "attached, no heartbeat", silent: "silent",
		      left: "left", crashed: "crashed" };

function showNodes(nodes) {
	const body = document.querySelector("#nodes tbody");
	body.replaceChildren();
	for (const n of nodes) {
		const row = body.insertRow();
		row.dataset.node = n.id;
		const id = cell(row, n.id + (n.self ? " (this server)" : ""), "node-id");
		// Its role on this rig: the layout's regions it writes.
		if (n.role) {
			const role = document.createElement("span");
			role.className = "role";
			role.textContent = n.role;
			id.appendChild(role);
		}
		cell(row, NODE_STATES[n.state] || n.state, "state " + n.state);
		cell(row, sinceText(n), "since");
		cell(row, n.down_count === null ? "-" : n.down_count, "num downs");
		cell(row, n.up_count === null ? "-" : n.up_count, "num ups");
		cell(row, n.incarnation, "num");
		cell(row, n.heartbeat_period_s ? seconds(n.heartbeat_age_s) : "no heartbeat", "num");
		cell(row, n.heartbeat_period_s ? seconds(n.heartbeat_period_s) : "-", "num");
		cell(row, n.pid === null ? "-" : n.pid, "num");
		cell(row, n.host || "-");
		cell(row, linkText(n.link), n.link ? (n.link.up ? "up" : "down") : "");
	}
}

// The last change the server's health monitor reported: "down since
// 17:03:05"; a node already up when the server started was seen then.
function sinceText(n) {
	if (!n.change)
		return n.down_count === null ? "no monitor" : "-";
	return (n.change_reason || n.change) + " since " + clock(n.since_s * 1000) +
		(n.since_start ? " (server start)" : "");
}

// The totals of every node's changes under the table ("-" without the monitor).
function showNodeTotals(st) {
	const el = document.getElementById("node-changes");
	el.textContent = st.monitor
		? `node changes since the server started: ${st.node_downs} down, ${st.node_ups} up`
		: "node changes: not watched (rfm serve --no-monitor)";
}

// One line per "node" event of the stream, newest first, the last 20.
function logNodeChange(c) {
	const list = document.getElementById("node-log");
	const li = document.createElement("li");
	li.dataset.node = c.id;
	li.dataset.change = c.change;
	li.className = c.change;
	li.textContent = `${clock(c.since_s * 1000)} node ${c.id} ${c.change}` +
		(c.change_reason ? ` (${c.change_reason})` : "") +
		(c.since_start ? " (up when the server started)" : "");
	list.prepend(li);
	while (list.children.length > 20)
		list.lastChild.remove();
}

// A card's status: "-" where the node has none (shm:), else up/down and
// what else its card says (5565 LCSR through the driver).
function linkText(l) {
	if (!l)
		return "-";
	const notes = [];
	if (l.own_data)
		notes.push("ring closed");
	if (l.sync_lost)
		notes.push("sync lost");
	if (l.bad_data)
		notes.push("bad data");
	if (l.rxfifo_full)
		notes.push("FIFO full");
	return (l.up ? "up" : "down") + (notes.length ? " (" + notes.join(", ") + ")" : "");
}

// Records taken, by sending node and type, with the server's rate.
function showByNode(rows) {
	const body = document.querySelector("#by-node tbody");
	body.replaceChildren();
	for (const r of rows) {
		const row = body.insertRow();
		row.dataset.node = r.node;
		row.dataset.type = r.type;
		cell(row, r.node, "num");
		cell(row, r.type);
		cell(row, r.count, "num count");
		cell(row, r.rate_per_s.toFixed(1) + " /s", "num rate");
	}
}

function showRecords(records) {
	const body = document.querySelector("#records tbody");
	body.replaceChildren();
	for (const r of records) {
		const row = body.insertRow();
		row.dataset.name = r.name;
		cell(row, r.name);
		cell(row, r.seq + (r.seq % 2 ? " (publishing)" : ""), "num seq");
	}
}

function showStats(st) {
	const body = document.querySelector("#stats tbody");
	body.replaceChildren();
	// An observer holds no node id: nothing is sent to it, and zeros would
	// say the network is quiet.
	document.getElementById("stats-note").textContent = st.observer
		? "(this server observes: it holds no node id and receives no events; start it with node=N in its URI to count them)"
		: "(records this server received since it started; nodes going down or up: the Nodes table)";
	if (st.observer)
		return;
	const rows = [];
	// Node changes are the Nodes table's (per node and in total); the
	// server takes no link records, so a row counting 0 of them would
	// say a card never lost its link.
	for (const [type, count] of Object.entries(st.received))
		if (!["node_up", "node_down", "link"].includes(type))
			rows.push(["received " + type, count]);
	for (const key of ["delivered", "dropped", "overflows", "queued", "events_sent",
			   "ring_lost", "record_retries"])
		rows.push([key.replace("_", " "), st[key]]);
	for (const [name, value] of rows) {
		const row = body.insertRow();
		cell(row, name);
		cell(row, value, "num");
	}
}

// One row per ring consumer (a ring without any: one row with its head).
function showRings(regions) {
	const body = document.querySelector("#rings tbody");
	body.replaceChildren();
	document.getElementById("rings-none").hidden = regions.some(r => r.ring);
	for (const reg of regions) {
		if (!reg.ring)
			continue;
		const consumers = reg.ring.consumers.length ? reg.ring.consumers : [null];
		for (const c of consumers) {
			const row = body.insertRow();
			row.dataset.region = reg.region;
			cell(row, reg.region);
			cell(row, reg.ring.head, "num");
			if (!c) {
				cell(row, "no consumer registered");
				continue;
			}
			row.dataset.node = c.node;
			if (c.holding || c.dead)
				row.className = "out-of-range";
			cell(row, c.node, "num");
			cell(row, c.entry, "num");
			cell(row, c.pid, "num");
			cell(row, c.lag, "num lag");
			cell(row, c.laps, "num laps");
			cell(row, c.backpressure ? (c.holding ? "holding the producer" : "yes") : "no");
			cell(row, c.dead ? "dead" : c.sleeping ? "sleeping" : "running");
		}
	}
}

function range(v) {
	if (v.min === undefined && v.max === undefined)
		return "";
	return (v.min === undefined ? "" : v.min) + " .. " + (v.max === undefined ? "" : v.max);
}

// What never changes about a variable (type, unit, min, max, writer), by
// name: read once from /api/vars; the snapshots carry name, value,
// out_of_range and state.
let varInfo = {};

// A float with the layout's significant digits (digits:), 4 by default
// (69.21959654547298 -> 69.22), so that values do not jitter in their
// last digits at 10 Hz; integers as they are.
function formatNumber(x, type, digits) {
	if (typeof x !== "number")
		return String(x);
	if (type !== "f32" && type !== "f64")
		return String(x);
	const d = digits || 4;
	const a = Math.abs(x);
	if (a !== 0 && (a >= 1e9 || a < 1e-4))
		return x.toExponential(d - 1);
	if (a >= 10 ** d)
		return x.toFixed(0);
	return String(Number(x.toPrecision(d)));
}

function formatValue(v, type, digits) {
	if (v === null || v === undefined)
		return "-";
	return formatNumber(v, type, digits);
}

// A small line of @values in an SVG of @cls (sparkline or trend).
function polyline(values, cls, w, h) {
	const svg = svgElement("svg", { viewBox: `0 0 ${w} ${h}`, class: cls,
					preserveAspectRatio: "none" });
	const nums = values.filter(x => typeof x === "number");
	if (nums.length < 1)
		return svg;
	const lo = Math.min(...nums), hi = Math.max(...nums), span = hi - lo || 1;
	const step = values.length > 1 ? w / (values.length - 1) : 0;
	const pts = values.map((x, i) => typeof x === "number" ?
		`${(i * step).toFixed(1)},${(h - 2 - (x - lo) / span * (h - 4)).toFixed(1)}` : null)
		.filter(p => p);
	svg.appendChild(svgElement("polyline", { points: pts.join(" ") }));
	return svg;
}

// Arrays longer than this are shown collapsed: count, range and a sparkline.
const ARRAY_SHOWN = 8;
const openArrays = new Set();

function arrayCell(td, v) {
	if (v.value.length <= ARRAY_SHOWN) {
		td.textContent = v.value.map(x => formatValue(x, v.type, v.digits)).join(", ");
		return;
	}
	const nums = v.value.filter(x => typeof x === "number");
	const open = openArrays.has(v.name);
	const summary = document.createElement("span");
	summary.className = "array-summary";
	const range = nums.length ? ", " + formatValue(Math.min(...nums), v.type, v.digits) + " .. " +
		formatValue(Math.max(...nums), v.type, v.digits) : "";
	summary.append(`${open ? "\u25be" : "\u25b8"} ${v.value.length} values${range} `,
		       polyline(v.value, "spark", 120, 20));
	td.appendChild(summary);
	if (open) {
		const full = document.createElement("div");
		full.className = "array-values";
		full.textContent = v.value.map(x => formatValue(x, v.type, v.digits)).join(", ");
		td.appendChild(full);
	}
}

// The last minute of every numeric scalar, for its trend (click its value).
const TREND_MS = 60000;
const trendHistory = {};
const openTrends = new Set();

function remember(name, value, now) {
	if (typeof value !== "number")
		return;
	const h = trendHistory[name] || (trendHistory[name] = []);
	h.push([now, value]);
	while (h.length && h[0][0] < now - TREND_MS)
		h.shift();
}

// The last minute of @v: time along x (-60 s .. now), its value and unit
// along y (min, middle, max), with the caption below.
function trendRow(body, v) {
	const row = body.insertRow();
	row.className = "trend";
	row.dataset.trend = v.name;
	const td = row.insertCell();
	td.colSpan = 6;
	const h = trendHistory[v.name] || [];
	const W = 600, H = 140, left = 64, right = 8, top = 10, bottom = 30;
	const plotW = W - left - right, plotH = H - top - bottom;
	const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, class: "trend", role: "img" });
	const nums = h.map(p => p[1]);
	let lo = nums.length ? Math.min(...nums) : 0, hi = nums.length ? Math.max(...nums) : 0;
	// A value that did not move: a flat line mid-plot, its value on the axis.
	if (hi === lo) {
		const d = Math.max(Math.abs(lo) * 0.01, 1);
		lo -= d;
		hi += d;
	}
	const span = hi - lo;
	const now = h.length ? h[h.length - 1][0] : Date.now();
	const x = t => left + plotW * (1 - Math.min(TREND_MS, now - t) / TREND_MS);
	const y = val => top + plotH - (val - lo) / span * plotH;
	const unit = v.unit ? " " + v.unit : "";
	const text = (tx, ty, s, attrs) => {
		const e = svgElement("text", Object.assign({ x: tx, y: ty }, attrs || {}));
		e.textContent = s;
		svg.appendChild(e);
	};
	for (const val of [lo, (lo + hi) / 2, hi]) {
		svg.appendChild(svgElement("line", { class: "grid", x1: left, y1: y(val), x2: W - right, y2: y(val) }));
		text(left - 4, y(val) + 3, formatValue(val, v.type, v.digits) + unit,
		     { "text-anchor": "end", class: "y-tick" });
	}
	for (const s of [60, 45, 30, 15, 0]) {
		const tx = left + plotW * (1 - s / 60);
		text(tx, H - bottom + 14, s ? `-${s} s` : "now", { "text-anchor": "middle", class: "x-tick" });
	}
	svg.appendChild(svgElement("line", { class: "axis", x1: left, y1: top, x2: left, y2: top + plotH }));
	svg.appendChild(svgElement("line", { class: "axis", x1: left, y1: top + plotH, x2: W - right, y2: top + plotH }));
	text(left + plotW / 2, H - 2, "time (s)", { "text-anchor": "middle", class: "x-title" });
	if (h.length)
		svg.appendChild(svgElement("polyline", {
			points: h.map(p => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" ") }));
	td.appendChild(svg);
	const vals = nums.length ? nums : [0];
	const caption = document.createElement("div");
	caption.className = "trend-caption";
	caption.textContent = `last ${Math.round((h.length ? h[h.length - 1][0] - h[0][0] : 0) / 1000)} s: ` +
		`${nums.length} samples, min ${formatValue(Math.min(...vals), v.type, v.digits)}, ` +
		`max ${formatValue(Math.max(...vals), v.type, v.digits)}` + (v.unit ? ` (${v.unit})` : "");
	td.appendChild(caption);
}

// The table is redrawn with every snapshot, so a click is taken on the
// pointer going down (a click's down and up may land on two redraws), on
// the table body, which stays.
let lastVars = [];

function toggleVar(e) {
	const td = e.target.closest("td.value");
	const row = td && td.closest("tr[data-name]");
	if (!row)
		return;
	const name = row.dataset.name;
	const set = Array.isArray((lastVars.find(v => v.name === name) || {}).value) ? openArrays
										      : openTrends;
	if (set.has(name))
		set.delete(name);
	else
		set.add(name);
	showVars(lastVars, false);
}

function showVars(vars, fresh = true) {
	const body = document.querySelector("#vars tbody");
	lastVars = vars;
	const now = Date.now();
	body.replaceChildren();
	for (const snap of vars) {
		const v = Object.assign({}, varInfo[snap.name] || {}, snap);
		if (fresh)
			remember(v.name, v.value, now);
		const row = body.insertRow();
		row.dataset.name = v.name;
		row.dataset.state = v.state;
		const classes = [];
		if (v.out_of_range)
			classes.push("out-of-range");
		if (v.state === "stale")
			classes.push("stale");
		row.className = classes.join(" ");
		cell(row, v.name);
		const td = cell(row, "", "num value" + (v.out_of_range ? " out-of-range" : ""));
		if (Array.isArray(v.value)) {
			arrayCell(td, v);
			td.title = "click: all values";
		} else {
			td.textContent = formatValue(v.value, v.type, v.digits);
			td.title = "click: the last minute";
		}
		cell(row, v.unit || "");
		cell(row, range(v));
		cell(row, v.writer === undefined ? "-" : v.writer, "num writer");
		cell(row, v.state === "stale" ? `stale (${v.stale_reason || "writer down"})` : "fresh",
		     "freshness");
		if (openTrends.has(v.name) && !Array.isArray(v.value))
			trendRow(body, v);
	}
}

// The alarm line at the top: what needs an operator, or that nothing does.
// A node that left is not one: only crashed and silent nodes are down.
function showAlarms(snap) {
	const strip = document.getElementById("alarms");
	const alarms = [];
	const down = snap.nodes.filter(n => n.down).map(n => `${n.id}${n.role ? " " + n.role : ""} (${n.state})`);
	if (down.length)
		alarms.push(["nodes-down", "bad", `${down.length} node${down.length > 1 ? "s" : ""} down: ${down.join(", ")}`]);
	const out = snap.vars.filter(v => v.out_of_range).map(v => v.name);
	if (out.length)
		alarms.push(["out-of-range", "bad", `${out.length} out of range: ${out.join(", ")}`]);
	const stale = snap.vars.filter(v => v.state === "stale").map(v => v.name);
	if (stale.length)
		alarms.push(["stale", "warn", `${stale.length} stale: ${stale.join(", ")}`]);
	const st = snap.stats;
	if (st.overflows || st.dropped)
		alarms.push(["overflows", "warn", `event records lost: ${st.overflows} overflows, ${st.dropped} dropped`]);
	const holding = (snap.rings || []).filter(r => r.ring && r.ring.consumers.some(c => c.holding || c.dead));
	if (holding.length)
		alarms.push(["rings", "warn", `ring consumers holding or dead: ${holding.map(r => r.region).join(", ")}`]);
	if (!alarms.length)
		alarms.push(["none", "ok", "no alarms"]);
	// One line, as bad as its worst part.
	strip.className = "alarms " + (alarms.some(a => a[1] === "bad") ? "bad" : alarms[0][1]);
	strip.replaceChildren(...alarms.map(([key, cls, text]) => {
		const span = document.createElement("span");
		span.className = "alarm " + cls;
		span.dataset.alarm = key;
		span.textContent = text;
		return span;
	}));
}

const SVG = "http://www.w3.org/2000/svg";

function svgElement(name, attrs) {
	const e = document.createElementNS(SVG, name);
	for (const [k, v] of Object.entries(attrs))
		e.setAttribute(k, v);
	return e;
}

function label(ns) {
	return ns >= 1e6 ? (ns / 1e6).toFixed(1) + " ms" : ns >= 1e3 ? (ns / 1e3).toFixed(1) + " us" : ns + " ns";
}

// The value at quantile @q: the upper edge of the bin holding that rank
// (what the file says to within one bin).
function quantile(bins, total, q) {
	let seen = 0;
	const rank = Math.max(1, Math.ceil(q * total));
	for (let i = 0; i < bins.length; i++) {
		seen += bins[i].count;
		if (seen >= rank)
			return i;
	}
	return bins.length - 1;
}

const PERCENTILES = [["P50", 0.5], ["P99", 0.99], ["P99.9", 0.999]];

// Bars of the non-empty span of the histogram, scaled to the largest count,
// with a count axis, latency labels and the P50/P99/P99.9 lines.
function showHist(bins) {
	let first = bins.findIndex(b => b.count > 0);
	let last = bins.length - 1 - [...bins].reverse().findIndex(b => b.count > 0);
	if (first < 0)
		return;
	const shown = bins.slice(first, last + 1);
	const max = Math.max(...shown.map(b => b.count));
	const total = shown.reduce((a, b) => a + b.count, 0);
	const W = 600, H = 220, left = 50, bottom = 34, top = 16;
	const plotW = W - left - 5, plotH = H - bottom - top;
	const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
					"data-bins": shown.length });
	const w = plotW / shown.length;
	shown.forEach((b, i) => {
		const h = b.count / max * plotH;
		const r = svgElement("rect", { x: left + i * w + 1, y: top + plotH - h,
					       width: Math.max(w - 2, 1), height: h });
		const title = svgElement("title", {});
		title.textContent = `${label(b.low_ns)}..${label(b.high_ns)}: ${b.count}`;
		r.appendChild(title);
		svg.appendChild(r);
	});
	const text = (x, y, s, attrs) => {
		const e = svgElement("text", Object.assign({ x, y }, attrs || {}));
		e.textContent = s;
		svg.appendChild(e);
		return e;
	};
	// The count axis: 0, half and the largest count.
	svg.appendChild(svgElement("line", { class: "axis", x1: left, y1: top, x2: left, y2: top + plotH }));
	svg.appendChild(svgElement("line", { class: "axis", x1: left, y1: top + plotH, x2: W - 5, y2: top + plotH }));
	for (const c of [0, Math.round(max / 2), max])
		text(left - 4, top + plotH - c / max * plotH + 3, String(c),
		     { "text-anchor": "end", class: "y-tick" });
	text(2, top - 4, "count", { class: "y-title" });
	text(left, H - bottom + 14, label(shown[0].low_ns), { class: "x-tick" });
	text(W - 5, H - bottom + 14, label(shown[shown.length - 1].high_ns),
	     { "text-anchor": "end", class: "x-tick" });
	text(left + plotW / 2, H - 4, "round-trip latency", { "text-anchor": "middle", class: "x-title" });
	const said = [];
	PERCENTILES.forEach(([name, q], k) => {
		const i = quantile(shown, total, q);
		const x = left + (i + 0.5) * w;
		svg.appendChild(svgElement("line", { class: "pct", "data-pct": name, x1: x, y1: top,
						     x2: x, y2: top + plotH }));
		text(x + 3, top + 10 + k * 11, `${name} ${label(shown[i].high_ns)}`, { class: "pct" });
		said.push(`${name} <= ${label(shown[i].high_ns)}`);
	});
	document.getElementById("hist").replaceChildren(svg);
	const p = document.getElementById("percentiles");
	p.className = "";
	p.textContent = `${said.join(", ")} (${total} round trips)`;
}

function showServer(info) {
	document.getElementById("info-network").textContent = info.network;
	document.getElementById("info-layout").textContent = info.layout === null ? "none" : info.layout;
	document.getElementById("info-host").textContent = info.host;
	document.title = "rfm serve: " + info.host + " " + info.network;
}

function start() {
	document.querySelector("#vars tbody").addEventListener("pointerdown", toggleVar);
	fetch("/api/server").then(r => r.json()).then(showServer);
	fetch("/api/vars").then(r => r.json()).then(r => {
		for (const v of r.vars)
			varInfo[v.name] = v;
		listen();
	});
	fetch("/api/hist").then(r => r.json()).then(h => showHist(h.bins));
}

function clock(ms) {
	return new Date(ms).toLocaleTimeString("en-GB", { hour12: false });
}

// When the stream stops, everything on the page is as old as the last
// snapshot: say so over all of it rather than leave nodes green.
let lastSnapshotMs = null;

function disconnected(yes) {
	const banner = document.getElementById("disconnected");
	document.body.classList.toggle("disconnected", yes);
	banner.hidden = !yes;
	banner.textContent = yes ? "disconnected, data from " +
		(lastSnapshotMs === null ? "no snapshot yet" : clock(lastSnapshotMs)) : "";
}

function listen() {
	const status = document.getElementById("status");
	const events = new EventSource("/api/events");
	events.addEventListener("snapshot", e => {
		lastSnapshotMs = Date.now();
		disconnected(false);
		document.getElementById("info-updated").textContent = clock(lastSnapshotMs);
		const snap = JSON.parse(e.data);
		showNodes(snap.nodes);
		showStats(snap.stats);
		showNodeTotals(snap.stats);
		showByNode(snap.stats.by_node);
		showRecords(snap.stats.records);
		showVars(snap.vars);
		showRings(snap.rings);
		showAlarms(snap);
		status.textContent = "live";
		status.className = "status live";
	});
	events.addEventListener("node", e => logNodeChange(JSON.parse(e.data)));
	events.onerror = () => {
		status.textContent = "connection lost, retrying";
		status.className = "status lost";
		disconnected(true);
	};
}

start();
