// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The C++ layer <rfm/rfm.hpp>: every class, its error paths (bad URI,
 * out-of-range offset and index, wrong type, wrong owner, timeouts), the
 * non-throwing overloads, moves, double closes and destructor order.
 *
 * A small program of its own (not CMocka: failures here are C++
 * exceptions and values). Networks come from the shared harness, so the
 * suite runs on the backend of $RFM_TEST_BACKEND; waits for a callback's
 * thread use a condition variable whose timeout only catches a hang.
 */
#include <endian.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <unistd.h>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <rfm/rfm.hpp>

extern "C" {
#include "harness.h"
}

namespace {

int failures, checks;

void check(bool ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		std::fprintf(stderr, "test-cxx-api:%d: FAIL: %s\n", line, what);
		failures++;
	}
}
#define CHECK(cond) check(static_cast<bool>(cond), #cond, __LINE__)

/* Runs @fn, which must throw rfm::Error with @code; returns the error's what(). */
std::string expect_error(int code, const std::function<void()> &fn, int line)
{
	try {
		fn();
	} catch (const rfm::Error &e) {
		check(e.rfm_code() == code, "rfm::Error with the expected code", line);
		check(e.code().category() == rfm::category(), "code in rfm::category()", line);
		if (e.rfm_code() != code)
			std::fprintf(stderr, "  got %d (%s), wanted %d\n", e.rfm_code(), e.what(), code);
		return e.what();
	}
	check(false, "an rfm::Error was thrown", line);
	return "";
}
#define EXPECT_ERROR(code, ...) expect_error((code), [&] { __VA_ARGS__; }, __LINE__)

bool contains(const std::string &s, const char *part)
{
	return s.find(part) != std::string::npos;
}

/* A fresh network for each test; node URIs from the harness. */
struct Net {
	harness_network net;
	explicit Net(uint64_t size = 1u << 20) { harness_network_new(&net, size); }
	~Net() { harness_network_destroy(&net); }
	std::string node(int id) { return harness_node_uri(&net, id); }
	std::string with(const char *query) { return harness_network_uri(&net, "%s", query); }
};

/* Collects what a dispatcher thread hands over, and waits for it. */
template <class T> struct Inbox {
	std::mutex mutex;
	std::condition_variable cond;
	std::vector<T> items;

	void push(const T &item)
	{
		std::lock_guard<std::mutex> lock(mutex);
		items.push_back(item);
		cond.notify_all();
	}
	/* True once @n items are in; the timeout only stops a hang. */
	bool wait_for(size_t n)
	{
		std::unique_lock<std::mutex> lock(mutex);
		return cond.wait_for(lock, std::chrono::seconds(30), [&] { return items.size() >= n; });
	}
	size_t size()
	{
		std::lock_guard<std::mutex> lock(mutex);
		return items.size();
	}
	/* A copy, taken under the lock: the dispatcher may push again later. */
	std::vector<T> snapshot()
	{
		std::lock_guard<std::mutex> lock(mutex);
		return items;
	}
};

const char *const LAYOUT = R"(
version: 1
window: 1M
regions:
  - name: sim
    offset: 0x1000
    size: 0x1000
    writer: 0
    variables:
      - { name: speed, type: f32 }
      - { name: gain, type: f64, min: -10, max: 10 }
      - { name: count, type: u32 }
      - { name: offset, type: i64 }
      - { name: mode, type: u8 }
      - { name: temp, type: i16, byte_order: big }
      - { name: armed, type: bool }
      - { name: pos, type: f64, count: 4 }
    records:
      - name: state
        variables:
          - { name: cycle, type: u64 }
          - { name: x, type: f64 }
)";

struct State {
	uint64_t cycle;
	double x;
};

/* The record is little-endian: its raw image holds State in that order
 * (an identity on little-endian hosts). */
static State wire(State s)
{
	uint64_t bits;

	s.cycle = htole64(s.cycle);
	std::memcpy(&bits, &s.x, sizeof(bits));
	bits = htole64(bits);
	std::memcpy(&s.x, &bits, sizeof(bits));
	return s;
}

static State host(State s)
{
	return wire(s); /* a byte swap is its own inverse */
}

/* ---- errors ---- */

void test_errors()
{
	std::string what = EXPECT_ERROR(RFM_ESCHEME, rfm::Node node("nope:x"));
	CHECK(contains(what, "nope:x"));
	CHECK(contains(what, rfm_strerror(RFM_ESCHEME)));
	EXPECT_ERROR(RFM_EURI, rfm::Node node(std::string("shm:")));

	try {
		rfm::Node node("nope:y");
	} catch (const rfm::Error &e) {
		CHECK(contains(e.detail(), "nope:y"));
		CHECK(e.code() == rfm::make_error_code(RFM_ESCHEME));
		const std::system_error &base = e;
		CHECK(base.code().value() == RFM_ESCHEME);
	}

	std::error_code ec = rfm::make_error_code(RFM_OK);
	rfm::Node node = rfm::Node::open("nope:z", ec);
	CHECK(!node);
	CHECK(ec.value() == RFM_ESCHEME);
	CHECK(ec.message() == rfm_strerror(RFM_ESCHEME));
	CHECK(std::string(ec.category().name()) == "rfm");
	CHECK(contains(rfm_last_error(), "nope:z"));
}

/* ---- nodes and memory ---- */

void test_node_memory()
{
	Net net;
	rfm::Node node(net.node(0));
	CHECK(node);
	CHECK(node.id() == 0);
	CHECK(node.size() == 1u << 20);
	CHECK(std::strcmp(node.backend(), harness_backend()) == 0);
	CHECK(contains(node.uri(), net.net.name));
	CHECK(node.info().node_id == 0);

	const char text[] = "reflective";
	char back[sizeof(text)] = {};
	node.write(0x100, text, sizeof(text));
	node.read(0x100, back, sizeof(back));
	CHECK(std::memcmp(text, back, sizeof(text)) == 0);

	node.poke<uint8_t>(0x200, 0xab);
	node.poke<uint16_t>(0x202, 0xabcd);
	node.poke<uint32_t>(0x204, 0xdeadbeef);
	node.poke<uint64_t>(0x208, 0x0102030405060708ull);
	node.poke<double>(0x210, 2.5);
	node.poke<int32_t>(0x218, -7);
	CHECK(node.peek<uint8_t>(0x200) == 0xab);
	CHECK(node.peek<uint16_t>(0x202) == 0xabcd);
	CHECK(node.peek<uint32_t>(0x204) == 0xdeadbeef);
	CHECK(node.peek<uint64_t>(0x208) == 0x0102030405060708ull);
	CHECK(node.peek<double>(0x210) == 2.5);
	CHECK(node.peek<int32_t>(0x218) == -7);

	/* Out of range and misaligned: an error, and nothing written. */
	std::string what = EXPECT_ERROR(RFM_ERANGE, node.poke<uint32_t>(1u << 20, 1));
	CHECK(contains(what, "window"));
	EXPECT_ERROR(RFM_ERANGE, node.read(0xffffc, back, 8));
	EXPECT_ERROR(RFM_ERANGE, node.write(uint64_t(1) << 40, text, 1));
	EXPECT_ERROR(RFM_EALIGN, node.peek<uint32_t>(0x202));
	CHECK(node.peek<uint32_t>(0x204) == 0xdeadbeef);

	std::error_code ec;
	CHECK(node.peek<uint32_t>(1u << 20, ec) == 0);
	CHECK(ec.value() == RFM_ERANGE);
	node.poke<uint16_t>(0x201, 1, ec);
	CHECK(ec.value() == RFM_EALIGN);
	node.poke<uint16_t>(0x202, 0x1234, ec);
	CHECK(!ec);
	CHECK(node.peek<uint16_t>(0x202, ec) == 0x1234 && !ec);
	node.read(0xfffff, back, 2, ec);
	CHECK(ec.value() == RFM_ERANGE);
	node.write(0x300, text, 4, ec);
	CHECK(!ec);

	/* The window: the inline accessors see what peek/poke see. */
	std::error_code wec;
	rfm::Window w = node.window(wec);
	if (wec.value() == RFM_ENOTSUP)
		return; /* a backend that cannot map */
	CHECK(!wec);
	CHECK(w.size() == node.size());
	CHECK(w.bytes().size() == node.size());
	CHECK(w.contains(0, w.size()) && !w.contains(1, w.size()) && !w.contains(w.size() + 1, 0));
	CHECK(w.load<uint32_t>(0x204) == 0xdeadbeef);
	CHECK(w.load_acquire<uint64_t>(0x208) == 0x0102030405060708ull);
	w.store<float>(0x220, 1.25f);
	w.store_release<uint16_t>(0x224, 0x5a5a);
	CHECK(node.peek<float>(0x220) == 1.25f);
	CHECK(node.peek<uint16_t>(0x224) == 0x5a5a);
	CHECK(w.bytes()[0x100] == std::byte{ 'r' });
}

void test_node_ownership()
{
	Net net;
	std::string uri = net.node(0);
	rfm::Node a(uri);
	rfm::Node b(std::move(a));
	CHECK(!a && b);
	CHECK(b.id() == 0);
	a.close(); /* closing an empty owner does nothing */
	EXPECT_ERROR(RFM_EINVAL, a.id());

	rfm::Node c;
	c = std::move(b);
	CHECK(!b && c && c.id() == 0);

	/* release() hands the C handle over; adopt() takes one. */
	rfm_node *raw = c.release();
	CHECK(!c && raw != nullptr);
	rfm::Node d = rfm::Node::adopt(raw);
	CHECK(d.get() == raw && d.id() == 0);

	/* Close twice: the second does nothing; the id is free again. */
	d.close();
	d.close();
	CHECK(!d);
	rfm::Node e(uri);
	CHECK(e.id() == 0);

	/* Move-assigning over an open node closes it first. */
	e = rfm::Node(net.node(1));
	CHECK(e.id() == 1);
	rfm::Node f(uri); /* node 0 was freed by the assignment */
	CHECK(f.id() == 0);
}

/* ---- layouts and typed variables ---- */

void test_layout()
{
	rfm::Layout good = rfm::Layout::load_string(LAYOUT, "test.yaml");
	CHECK(good);

	const std::string bad = "version: 1\nwindow: 1M\nregions:\n  - name: r\n    offset: 0x0\n"
				"    size: 0x10\n    writer: 0\n    variables:\n"
				"      - { name: v, type: f33 }\n";
	try {
		rfm::Layout::load_string(bad, "bad.yaml");
		CHECK(false);
	} catch (const rfm::LayoutError &e) {
		CHECK(e.rfm_code() == RFM_ELAYOUT);
		CHECK(!e.diagnostics().empty());
		CHECK(contains(e.diagnostics().at(0), "bad.yaml:9:"));
		CHECK(contains(e.what(), "f33"));
	}
	std::error_code ec;
	rfm::Layout none = rfm::Layout::load_string(bad, "bad.yaml", ec);
	CHECK(!none && ec.value() == RFM_ELAYOUT);
	rfm::Layout missing = rfm::Layout::load_file("/nonexistent/x.yaml", ec);
	CHECK(!missing && ec.value() == RFM_ENOENT);
	EXPECT_ERROR(RFM_ENOENT, rfm::Layout::load_file("/nonexistent/x.yaml"));

	/* Built in code. */
	rfm::Layout built = rfm::Layout::create("built", 1u << 20);
	built.add_region(rfm::region_spec("r", 0, 0x0, 0x100))
		.add_var("r", rfm::var_spec("v", RFM_TYPE_U16))
		.add_record("r", rfm::record_spec("rec"))
		.add_var("r.rec", rfm::var_spec("w", RFM_TYPE_U32));
	EXPECT_ERROR(RFM_ENOTFOUND, built.add_var("nope", rfm::var_spec("x", RFM_TYPE_U8)));
	built.finish();
	CHECK(built);
	EXPECT_ERROR(RFM_EBUSY, built.finish());
	EXPECT_ERROR(RFM_EBUSY, built.add_var("r", rfm::var_spec("x", RFM_TYPE_U8)));
	rfm::Layout overlap = rfm::Layout::create("overlap", 1u << 20);
	overlap.add_region(rfm::region_spec("a", 0, 0x0, 0x100))
		.add_region(rfm::region_spec("b", 1, 0x80, 0x100));
	try {
		overlap.finish();
		CHECK(false);
	} catch (const rfm::LayoutError &e) {
		CHECK(e.diagnostics().size() >= 1);
	}
	built.close();
	built.close();
	CHECK(!built);
}

void test_vars()
{
	Net net;
	rfm::Node node(net.node(0));
	rfm::Node other(net.node(1));
	rfm::Layout layout = rfm::Layout::load_string(LAYOUT);

	/* Before use_layout(): a clear error, not a crash. */
	std::string what = EXPECT_ERROR(RFM_EINVAL, node.var<float>("sim.speed"));
	CHECK(contains(what, "use_layout"));
	std::error_code early;
	CHECK(!node.var<float>("sim.speed", early) && early.value() == RFM_EINVAL);
	node.use_layout(layout);
	CHECK(node.var<float>("sim.speed", early) && !early);
	CHECK(!node.var<float>("sim.nope", early) && early.value() == RFM_ENOTFOUND);

	rfm::Var<float> speed = node.var<float>("sim.speed");
	speed.set(12.5f);
	CHECK(speed.get() == 12.5f);
	CHECK(std::string(speed.name()) == "sim.speed");
	CHECK(speed.size() == 1);
	CHECK(speed.info().offset == 0x1000);

	/* The value is in the window, seen by the other node too. */
	rfm::Var<float> seen = other.var<float>(layout, "sim.speed");
	CHECK(seen.get() == 12.5f);

	rfm::Var<double> gain = node.var<double>("sim.gain");
	gain.set(-2.0);
	CHECK(gain.get() == -2.0);
	EXPECT_ERROR(RFM_ERANGE, gain.set(11.0)); /* above max: nothing written */
	CHECK(gain.get() == -2.0);

	rfm::Var<uint32_t> count = node.var<uint32_t>("sim.count");
	count.set(4000000000u);
	CHECK(count.get() == 4000000000u);
	rfm::Var<long long> off = node.var<long long>("sim.offset"); /* = i64 */
	off.set(-5000000000ll);
	CHECK(off.get() == -5000000000ll);
	rfm::Var<uint8_t> mode = node.var<uint8_t>("sim.mode");
	mode.set(200);
	CHECK(mode.get() == 200);
	rfm::Var<bool> armed = node.var<bool>("sim.armed");
	armed.set(true);
	CHECK(armed.get() == true);

	/* Big-endian: the host value round-trips; the window holds it big-endian
	 * (swapped on a little-endian host). */
	rfm::Var<int16_t> temp = node.var<int16_t>("sim.temp");
	temp.set(0x0102);
	CHECK(temp.get() == 0x0102);
	CHECK(node.peek<uint16_t>(temp.info().offset) ==
	      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0x0201 : 0x0102));

	/* Arrays: every element; an index past the end is ERANGE. */
	rfm::Var<double> pos = node.var<double>("sim.pos");
	CHECK(pos.size() == 4);
	for (uint32_t i = 0; i < 4; i++)
		pos.set(i, i * 1.5);
	for (uint32_t i = 0; i < 4; i++)
		CHECK(pos.get(i) == i * 1.5);
	EXPECT_ERROR(RFM_ERANGE, pos.get(4));
	EXPECT_ERROR(RFM_ERANGE, pos.set(4, 1.0));
	std::error_code ec;
	CHECK(pos.get(4, ec) == 0.0 && ec.value() == RFM_ERANGE);
	pos.set(9, 1.0, ec);
	CHECK(ec.value() == RFM_ERANGE);
	CHECK(pos.get(3, ec) == 4.5 && !ec);
	pos.set(3, 6.0, ec);
	CHECK(!ec && pos.get(3) == 6.0);

	/* Wrong type: refused at open, naming both types. */
	what = EXPECT_ERROR(RFM_EINVAL, node.var<double>("sim.speed"));
	CHECK(contains(what, "sim.speed") && contains(what, "f32") && contains(what, "f64"));
	EXPECT_ERROR(RFM_EINVAL, node.var<int32_t>("sim.count"));
	rfm::Var<uint16_t> wrong = node.var<uint16_t>(layout, "sim.count", ec);
	CHECK(!wrong && ec.value() == RFM_EINVAL);
	rfm::Var<uint32_t> right = node.var<uint32_t>(layout, "sim.count", ec);
	CHECK(right && !ec && right.get() == 4000000000u);

	/* Unknown names. */
	EXPECT_ERROR(RFM_ENOTFOUND, node.var<float>("sim.nope"));
	EXPECT_ERROR(RFM_ENOTFOUND, node.var<double>("sim.pos[4]"));
	rfm::Var<double> elem = node.var<double>("sim.pos[2]");
	CHECK(elem.size() == 1 && elem.get() == 3.0);

	/* One writer per region: node 1 may read but not write. */
	EXPECT_ERROR(RFM_EOWNER, seen.set(1.0f));
	seen.set(0, 2.0f, ec);
	CHECK(ec.value() == RFM_EOWNER);
	CHECK(speed.get() == 12.5f);
	seen.set_owner_check(false);
	seen.set(3.0f);
	CHECK(speed.get() == 3.0f);

	/* Moves and double closes. */
	rfm::Var<float> moved(std::move(speed));
	CHECK(moved && !speed && speed.size() == 0 && moved.size() == 1);
	rfm::Var<float> assigned = node.var<float>("sim.speed");
	assigned = std::move(moved); /* closes its own handle first */
	CHECK(assigned && !moved && assigned.get() == 3.0f);
	moved = std::move(assigned);
	CHECK(moved.get() == 3.0f);
	moved.close();
	moved.close();
	CHECK(!moved);

	/* A layout may go before its handles: they keep the C layout. */
	layout.close();
	CHECK(count.get() == 4000000000u);
}

void test_records()
{
	Net net;
	rfm::Node node(net.node(0));
	rfm::Layout layout = rfm::Layout::load_string(LAYOUT);
	rfm::Record rec = node.record(layout, "sim.state");
	CHECK(rec.size() == sizeof(State));
	std::error_code oec;
	CHECK(!node.record(layout, "sim.nope", oec) && oec.value() == RFM_ENOTFOUND);
	CHECK(node.record(layout, "sim.state", oec) && !oec);

	uint32_t before = rec.sequence();
	CHECK(before % 2 == 0);
	rec.write(wire(State{ 7, 0.5 }));
	uint32_t seq = 0;
	State s = host(rec.read<State>(&seq));
	CHECK(s.cycle == 7 && s.x == 0.5);
	CHECK(seq == before + 2 && rec.sequence() == seq);

	/* Wrong sizes: an error, nothing published. */
	char small[4] = {};
	EXPECT_ERROR(RFM_EINVAL, rec.write(small, sizeof(small)));
	EXPECT_ERROR(RFM_EINVAL, rec.read(small, sizeof(small)));
	std::error_code ec;
	CHECK(rec.read(small, sizeof(small), nullptr, ec) == -1 && ec.value() == RFM_EINVAL);
	rec.write(small, sizeof(small), ec);
	CHECK(ec.value() == RFM_EINVAL && rec.sequence() == seq);

	/* Nothing new: a look returns EAGAIN. */
	EXPECT_ERROR(RFM_EAGAIN, rec.wait(seq, rfm::no_wait));
	CHECK(rec.wait(seq, rfm::no_wait, ec) == seq && ec.value() == RFM_EAGAIN);

	/* Variables on the record's image: fetch, set, publish. */
	{
		rfm::Var<uint64_t> cycle = rec.var<uint64_t>("cycle");
		rfm::Var<double> x = rec.var<double>("x");
		CHECK(rec.fetch() >= 0);
		CHECK(cycle.get() == 7 && x.get() == 0.5);
		cycle.set(8);
		x.set(1.5);
		rec.publish();
		EXPECT_ERROR(RFM_EINVAL, rec.var<float>("x"));
		EXPECT_ERROR(RFM_ENOTFOUND, rec.var<float>("nope"));
	} /* the record's variables go before the record */
	CHECK(rec.wait(seq, rfm::no_wait) == seq + 2);
	s = host(rec.read<State>());
	CHECK(s.cycle == 8 && s.x == 1.5);

	/* Through the table, as a variable of the record. */
	node.use_layout(layout);
	rfm::Var<double> x = node.var<double>("sim.state.x");
	CHECK(x.get() == 1.5);

	/* Owner check on publish. */
	rfm::Node other(net.node(1));
	rfm::Record theirs = other.record(layout, "sim.state");
	EXPECT_ERROR(RFM_EOWNER, theirs.write(State{ 1, 1 }));
	theirs.set_owner_check(false);
	theirs.write(State{ 9, 9 });
	CHECK(rec.read<State>().cycle == 9);
	theirs.set_max_tries(1);
	EXPECT_ERROR(RFM_EINVAL, theirs.set_max_tries(0));
	theirs.close();
	theirs.close();
	CHECK(!theirs);
}

/* ---- events ---- */

void test_events()
{
	Net net;
	rfm::Node a(net.node(0));
	rfm::Node b(net.node(1));
	b.enable();
	CHECK(b.enabled() == RFM_EVENT_MASK_NETWORK);

	CHECK(a.send(uint32_t(b.id()), RFM_EVENT_INTR1, 42) == 1);
	rfm::Event ev = b.wait(std::chrono::seconds(30));
	CHECK(ev.type == RFM_EVENT_INTR1 && ev.data == 42 && ev.sender == 0 && ev.seq == 1);

	/* Nothing queued: EAGAIN, thrown or as a code. */
	EXPECT_ERROR(RFM_EAGAIN, b.wait(rfm::no_wait));
	std::error_code ec;
	rfm::Event none{};
	CHECK(!b.wait(none, rfm::no_wait, ec) && ec.value() == RFM_EAGAIN);
	EXPECT_ERROR(RFM_ETIMEDOUT, b.wait(std::chrono::microseconds(1)));

	/* Errors of sending. */
	EXPECT_ERROR(RFM_ESELF, a.send(0, RFM_EVENT_INTR1, 1));
	EXPECT_ERROR(RFM_ENODEID, a.send(300, RFM_EVENT_INTR1, 1));
	EXPECT_ERROR(RFM_EINVAL, a.send(1, RFM_EVENT_OVERFLOW, 1));
	CHECK(a.send(7, RFM_EVENT_INTR1, 1, ec) == -1 && ec.value() == RFM_ENODE);
	EXPECT_ERROR(RFM_EBUSY, b.enable(RFM_EVENT_BIT(RFM_EVENT_INTR1)));

	/* A batch, and a publish (data, sequence word, event). */
	for (uint32_t i = 0; i < 3; i++)
		a.send(RFM_NODE_ALL, RFM_EVENT_INTR2, i);
	rfm::Event evs[8];
	CHECK(b.fetch(rfm::Span<rfm::Event>(evs, 8), std::chrono::seconds(30)) == 3);
	CHECK(evs[0].data == 0 && evs[2].data == 2 && evs[2].type == RFM_EVENT_INTR2);
	const uint32_t word = 0xfeedf00d;
	uint32_t seq = a.publish(0x400, rfm::as_bytes(word), 0x3f0, 1, RFM_EVENT_INTR3);
	CHECK(seq == 1);
	ev = b.wait(std::chrono::seconds(30));
	CHECK(ev.type == RFM_EVENT_INTR3 && ev.data == seq);
	/* The sequence word is little-endian in the window (the wire order). */
	CHECK(b.peek<uint32_t>(0x400) == word && le32toh(b.peek<uint32_t>(0x3f0)) == 1);
	CHECK(b.event_stats().delivered == 5);

	/* Loopback, spin, cancel, fd. */
	a.set_loopback(true);
	a.enable(RFM_EVENT_BIT(RFM_EVENT_INTR4));
	CHECK(a.send(0, RFM_EVENT_INTR4, 5) == 1);
	CHECK(a.wait(std::chrono::seconds(30)).data == 5);
	a.set_spin(rfm::Duration(0));
	a.cancel();
	EXPECT_ERROR(RFM_ECANCELED, a.wait(std::chrono::seconds(30)));
	CHECK(a.fd() >= 0);
	b.disable();
	CHECK(b.enabled() == 0);
}

void test_callbacks()
{
	Net net;
	rfm::Node a(net.node(0));
	rfm::Node b(net.node(1));
	b.enable();

	Inbox<uint32_t> got;
	{
		rfm::EventCallback cb =
			b.on_event(RFM_EVENT_INTR1, [&](const rfm::Event &ev) { got.push(ev.data); });
		CHECK(cb && cb.type() == RFM_EVENT_INTR1);
		/* Callbacks own the node's records: waits are refused. */
		EXPECT_ERROR(RFM_EBUSY, b.wait(rfm::no_wait));
		EXPECT_ERROR(RFM_EBUSY, (void)b.on_event(RFM_EVENT_INTR1, [](const rfm::Event &) {}));
		for (uint32_t i = 1; i <= 3; i++)
			a.send(1, RFM_EVENT_INTR1, i);
		CHECK(got.wait_for(3));
		CHECK(got.snapshot() == (std::vector<uint32_t>{ 1, 2, 3 }));

		/* Moved, it stays registered; the moved-from one closes nothing. */
		rfm::EventCallback moved(std::move(cb));
		CHECK(moved && !cb);
		cb.close();
		a.send(1, RFM_EVENT_INTR1, 4);
		CHECK(got.wait_for(4));
	} /* the destructor unregistered it: waits work again */
	a.send(1, RFM_EVENT_INTR1, 5);
	rfm::Event ev = b.wait(std::chrono::seconds(30));
	CHECK(ev.data == 5 && got.size() == 4);

	/* An exception cannot cross the C dispatcher: counted, and it goes on. */
	Inbox<uint32_t> after;
	{
		rfm::EventCallback thrower = b.on_event(RFM_EVENT_INTR2, [&](const rfm::Event &e) {
			if (e.data == 1)
				throw std::runtime_error("from a callback");
			after.push(e.data);
		});
		a.send(1, RFM_EVENT_INTR2, 1);
		a.send(1, RFM_EVENT_INTR2, 2);
		CHECK(after.wait_for(1));
		CHECK(after.snapshot().at(0) == 2 && thrower.errors() == 1);
	}

	/* A callback that closes its own owner: unregistered at once, freed after it returns. */
	Inbox<uint32_t> once;
	rfm::EventCallback self;
	std::mutex handover; /* orders the assignment before the callback's use (for TSan) */
	{
		std::lock_guard<std::mutex> lock(handover);
		self = b.on_event(RFM_EVENT_INTR3, [&](const rfm::Event &e) {
			std::lock_guard<std::mutex> inner(handover);
			self.close();
			once.push(e.data);
		});
	}
	a.send(1, RFM_EVENT_INTR3, 10);
	CHECK(once.wait_for(1));
	CHECK(!self);
	self.close(); /* again: nothing */
	a.send(1, RFM_EVENT_INTR3, 11); /* no callback now: the node's queue has it */
	ev = b.wait(std::chrono::seconds(30));
	CHECK(ev.type == RFM_EVENT_INTR3 && ev.data == 11 && once.size() == 1);
}

/* ---- rings ---- */

void test_rings()
{
	Net net;
	rfm::Node node(net.node(0));
	rfm::Ring ring = node.ring_create(0x10000, 0x10000, 64, 16);
	rfm::RingConsumer cons = node.ring_consumer(0x10000);
	CHECK(ring.info().slot_size == 64 && cons.info().slot_count == 16);

	const char hello[] = "hello";
	ring.publish(hello, sizeof(hello));
	char buf[64] = {};
	rfm::RingMsg msg = cons.consume(buf, sizeof(buf));
	CHECK(msg.seq == 0 && msg.len == sizeof(hello) && msg.lost == 0);
	CHECK(std::strcmp(buf, hello) == 0);

	/* Nothing new: EAGAIN; too big a message: EINVAL. */
	EXPECT_ERROR(RFM_EAGAIN, cons.consume(buf, sizeof(buf)));
	std::error_code ec;
	CHECK(!cons.consume(buf, sizeof(buf), msg, rfm::no_wait, ec) && ec.value() == RFM_EAGAIN);
	char big[65] = {};
	EXPECT_ERROR(RFM_EINVAL, ring.publish(big, sizeof(big)));
	ring.publish(big, sizeof(big), rfm::no_wait, ec);
	CHECK(ec.value() == RFM_EINVAL);

	/* Zero copy on both sides: claim/commit, peek/release. */
	rfm::Bytes slot = ring.claim();
	CHECK(slot.size() == 64);
	std::memcpy(slot.data(), "zero", 5);
	ring.commit(5);
	rfm::RingPeek peek = cons.peek();
	CHECK(peek.msg.seq == 1 && peek.data.size() == 5);
	CHECK(std::memcmp(peek.data.data(), "zero", 5) == 0);
	CHECK(cons.release());
	EXPECT_ERROR(RFM_EINVAL, cons.release()); /* no peek open */

	ring.publish(rfm::as_bytes(uint64_t(99)));
	uint64_t value = 0;
	CHECK(cons.consume(rfm::Bytes(reinterpret_cast<std::byte *>(&value), 8)).len == 8);
	CHECK(value == 99);
	CHECK(cons.stats().taken == 3 && ring.info().head == 3);

	/* The non-throwing claim and commit. */
	slot = ring.claim(rfm::no_wait, ec);
	CHECK(!ec && slot.size() == 64);
	CHECK(ring.claim(rfm::no_wait, ec).empty() && ec.value() == RFM_EBUSY);
	ring.commit(65, ec);
	CHECK(ec.value() == RFM_EINVAL);
	ring.commit(1, ec);
	CHECK(!ec);
	ring.commit(1, ec);
	CHECK(ec.value() == RFM_EINVAL); /* no claim open */
	CHECK(cons.consume(buf, sizeof(buf)).len == 1);

	/* Errors: no ring there, misaligned. */
	EXPECT_ERROR(RFM_ECORRUPT, node.ring_consumer(0x40000));
	CHECK(!node.ring_consumer(0x40000, 0, ec) && ec.value() == RFM_ECORRUPT);
	rfm_ring_config bad{};
	bad.slot_size = 64;
	bad.slot_count = 3;
	CHECK(!node.ring_create(0x20000, 0x10000, bad, ec) && ec.value() == RFM_EINVAL);
	bad.slot_count = 4;
	rfm::Ring fine = node.ring_create(0x20000, 0x10000, bad, ec);
	CHECK(fine && !ec && fine.claim().size() == 64);
	EXPECT_ERROR(RFM_EALIGN, node.ring_create(0x10001, 0x10000, 64, 16));
	EXPECT_ERROR(RFM_EINVAL, node.ring_create(0x20000, 0x10000, 64, 15));

	/* A restarted producer takes over. */
	ring.close();
	ring.close();
	CHECK(!ring);
	rfm::Ring again = node.ring_attach(0x10000);
	again.publish(hello, 2);
	CHECK(cons.consume(buf, sizeof(buf)).seq == 4);
}

void test_ring_callback()
{
	Net net;
	rfm::Node producer(net.node(0));
	rfm::Node node(net.node(1));
	rfm::Ring ring = producer.ring_create(0x10000, 0x10000, 64, 16, RFM_RING_F_NOTIFY);
	Inbox<std::string> got;
	{
		rfm::RingConsumer cons = node.ring_consumer(0x10000, RFM_RING_CONSUMER_NEWEST);
		cons.on_message([&](rfm::ConstBytes data, const rfm::RingMsg &m) {
			if (m.seq == 1)
				throw std::runtime_error("counted, not lost");
			got.push(std::string(reinterpret_cast<const char *>(data.data()), data.size()));
		});
		for (const char *text : { "one", "two", "three" })
			ring.publish(text, std::strlen(text));
		CHECK(got.wait_for(2));
		CHECK(got.snapshot() == (std::vector<std::string>{ "one", "three" }));
		CHECK(cons.errors() == 1);
		EXPECT_ERROR(RFM_EBUSY, node.wait(rfm::no_wait));
		/* Moved, the callable goes along (it is on the heap). */
		rfm::RingConsumer moved = std::move(cons);
		ring.publish("four", 4);
		CHECK(got.wait_for(3));
	} /* the consumer and its callable are gone: waits are not refused any more */
	std::error_code ec;
	rfm::Event ev{};
	node.wait(ev, rfm::no_wait, ec);
	CHECK(ec.value() != RFM_EBUSY);

	/* A ring without notify has no callbacks. */
	rfm::Ring quiet = producer.ring_create(0x30000, 0x10000, 64, 16);
	rfm::RingConsumer plain = node.ring_consumer(0x30000);
	EXPECT_ERROR(RFM_ENOTSUP, plain.on_message([](rfm::ConstBytes, const rfm::RingMsg &) {}));
}

/* ---- destructor order ---- */

void test_destructor_order()
{
	Net net;
	std::string network = net.net.uri;
	const bool shm = harness_can(HARNESS_CAP_SEGMENT);
	{
		/* Declared in the order they depend on each other; C++ destroys
		 * them in reverse: callback, consumer, ring, record var, record,
		 * var, layout, nodes. */
		rfm::Node a(net.node(0));
		rfm::Node b(net.node(1));
		rfm::Layout layout = rfm::Layout::load_string(LAYOUT);
		a.use_layout(layout);
		rfm::Var<float> speed = a.var<float>("sim.speed");
		rfm::Record rec = a.record("sim.state");
		rfm::Var<uint64_t> cycle = rec.var<uint64_t>("cycle");
		rfm::Ring ring = a.ring_create(0x10000, 0x10000, 64, 16, RFM_RING_F_NOTIFY);
		rfm::RingConsumer cons = b.ring_consumer(0x10000);
		b.enable(RFM_EVENT_BIT(RFM_EVENT_INTR1));
		rfm::EventCallback cb = b.on_event(RFM_EVENT_INTR1, [](const rfm::Event &) {});
		speed.set(1.0f);
		cycle.set(1);
		rec.publish();
		ring.publish("x", 1);
		a.send(1, RFM_EVENT_INTR1, 1);
		/* Two nodes attached: the network is busy. */
		if (shm)
			EXPECT_ERROR(RFM_EBUSY, rfm::destroy(network.c_str()));
	}
	if (!shm)
		return; /* other backends have no network to remove */
	/* Every node closed (and nothing leaked or used after free: ASan). */
	rfm::destroy(network.c_str());
	std::error_code ec;
	rfm::destroy(network.c_str(), 0, ec);
	CHECK(ec.value() == RFM_ENOENT);

	/* Owners in a container move with it and still close once each. */
	Net net2;
	{
		std::vector<rfm::Node> nodes;
		for (int i = 0; i < 4; i++)
			nodes.emplace_back(net2.node(i));
		for (int i = 0; i < 4; i++)
			CHECK(nodes[i].id() == i);
	}
	rfm::destroy(net2.net.uri);
}

/* rfm::Recorder: a CSV capture (HDF5 or not, CSV always works), its counters, its errors. */
void test_recorder()
{
	Net net;
	rfm::Node writer(net.node(0));
	rfm::Node reader(net.node(1));
	rfm::Layout layout = rfm::Layout::load_string(LAYOUT);
	rfm::Record rec = writer.record(layout, "sim.state");
	char path[64];
	std::snprintf(path, sizeof(path), "/tmp/t-cxx-recorder-%d.csv", (int)getpid());
	std::remove(path);
	rfm_recorder_config cfg{};
	cfg.struct_size = sizeof(cfg);
	cfg.mode = RFM_REC_ON_CHANGE;
	{
		rfm::Recorder r(reader, &layout, path, &cfg);
		r.add("sim.state");
		EXPECT_ERROR(RFM_ENOTFOUND, r.add("sim.nope"));
		r.start();
		for (uint64_t k = 1; k <= 100; k++)
			rec.write(wire(State{ k, 0.25 * (double)k }));
		CHECK(!r.wait(rfm::no_wait));
		r.stop();
		rfm_recorder_stats st = r.stats();
		CHECK(st.state == RFM_REC_STATE_ENDED);
		CHECK(st.samples >= 1 && st.rows_written == st.samples);
		std::error_code ec;
		r.stop(ec);
		CHECK(!ec);
	}
	FILE *in = std::fopen(path, "r");
	CHECK(in != nullptr);
	char line[256] = "";
	CHECK(in && std::fgets(line, sizeof(line), in));
	CHECK(contains(line, "t,t_mono_ns,t_real_ns,seq,missed,cycle,x"));
	if (in)
		std::fclose(in);
	std::remove(path);
	/* An existing file without RFM_REC_F_OVERWRITE: refused at start. */
	FILE *out = std::fopen(path, "w");
	if (out)
		std::fclose(out);
	rfm::Recorder again(reader, &layout, path, &cfg);
	again.add("sim.state");
	EXPECT_ERROR(RFM_ESYS, again.start());
	std::remove(path);
}

void test_span()
{
	int values[4] = { 1, 2, 3, 4 };
	rfm::Span<int> s(values, 4);
	CHECK(s.size() == 4 && s.size_bytes() == 16 && !s.empty());
	int sum = 0;
	for (int v : s)
		sum += v;
	CHECK(sum == 10 && s[3] == 4);
	rfm::Span<const int> c = s.subspan(1, 2);
	CHECK(c.size() == 2 && c[0] == 2);
	CHECK(rfm::Span<int>().empty());
	const double d = 1.0;
	CHECK(rfm::as_bytes(d).size() == sizeof(double));
}

} // namespace

int main()
{
	harness_init();
	const struct {
		const char *name;
		void (*fn)();
	} tests[] = {
		{ "errors", test_errors },
		{ "node_memory", test_node_memory },
		{ "node_ownership", test_node_ownership },
		{ "layout", test_layout },
		{ "vars", test_vars },
		{ "records", test_records },
		{ "events", test_events },
		{ "callbacks", test_callbacks },
		{ "rings", test_rings },
		{ "ring_callback", test_ring_callback },
		{ "destructor_order", test_destructor_order },
		{ "recorder", test_recorder },
		{ "span", test_span },
	};
	for (const auto &t : tests) {
		int before = failures;
		try {
			t.fn();
		} catch (const std::exception &e) {
			std::fprintf(stderr, "test-cxx-api: %s: unexpected exception: %s\n", t.name,
				     e.what());
			failures++;
		}
		std::printf("%s %s\n", failures == before ? "ok  " : "FAIL", t.name);
	}
	std::printf("test-cxx-api: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
