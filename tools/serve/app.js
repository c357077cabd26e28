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
const NODE_STATES = { up: "up", no_heartbeat: "attached, no heartbeat", down: "down" };

function showNodes(nodes) {
	const body = document.querySelector("#nodes tbody");
	body.replaceChildren();
	for (const n of nodes) {
		const row = body.insertRow();
		row.dataset.node = n.id;
		cell(row, n.id + (n.self ? " (this server)" : ""));
		cell(row, NODE_STATES[n.state] || n.state, "state " + n.state);
		cell(row, n.incarnation, "num");
		cell(row, n.heartbeat_period_s ? seconds(n.heartbeat_age_s) : "no heartbeat", "num");
		cell(row, n.heartbeat_period_s ? seconds(n.heartbeat_period_s) : "-", "num");
		cell(row, n.pid === null ? "-" : n.pid, "num");
		cell(row, n.host || "-");
		cell(row, linkText(n.link), n.link ? (n.link.up ? "up" : "down") : "");
	}
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
	const rows = [];
	for (const [type, count] of Object.entries(st.received))
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

// What never changes about a variable (type, unit, min, max), by name:
// read once from /api/vars; the snapshots carry name, value, out_of_range.
let varInfo = {};

function showVars(vars) {
	const body = document.querySelector("#vars tbody");
	body.replaceChildren();
	for (const snap of vars) {
		const v = Object.assign({}, varInfo[snap.name] || {}, snap);
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
		const value = Array.isArray(v.value) ? v.value.join(", ") : String(v.value);
		cell(row, value, "num value" + (v.out_of_range ? " out-of-range" : ""));
		cell(row, v.unit || "");
		cell(row, range(v));
		cell(row, v.writer === undefined ? "-" : v.writer, "num writer");
		cell(row, v.state === "stale" ? "stale (writer down)" : "fresh", "freshness");
	}
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

// Bars of the non-empty span of the histogram, scaled to the largest count.
function showHist(bins) {
	let first = bins.findIndex(b => b.count > 0);
	let last = bins.length - 1 - [...bins].reverse().findIndex(b => b.count > 0);
	if (first < 0)
		return;
	const shown = bins.slice(first, last + 1);
	const max = Math.max(...shown.map(b => b.count));
	const W = 600, H = 200, bottom = 20;
	const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
					"data-bins": shown.length });
	const w = W / shown.length;
	shown.forEach((b, i) => {
		const h = b.count / max * (H - bottom - 5);
		const r = svgElement("rect", { x: i * w + 1, y: H - bottom - h, width: Math.max(w - 2, 1),
					       height: h });
		const title = svgElement("title", {});
		title.textContent = `${label(b.low_ns)}..${label(b.high_ns)}: ${b.count}`;
		r.appendChild(title);
		svg.appendChild(r);
	});
	const lo = svgElement("text", { x: 2, y: H - 5 });
	lo.textContent = label(shown[0].low_ns);
	const hi = svgElement("text", { x: W - 2, y: H - 5, "text-anchor": "end" });
	hi.textContent = label(shown[shown.length - 1].high_ns);
	svg.append(lo, hi);
	document.getElementById("hist").replaceChildren(svg);
}

function start() {
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
		const snap = JSON.parse(e.data);
		showNodes(snap.nodes);
		showStats(snap.stats);
		showByNode(snap.stats.by_node);
		showRecords(snap.stats.records);
		showVars(snap.vars);
		showRings(snap.rings);
		status.textContent = "live";
		status.className = "status live";
	});
	events.onerror = () => {
		status.textContent = "connection lost, retrying";
		status.className = "status lost";
		disconnected(true);
	};
}

start();
