// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Cost of the C++ layer (<rfm/rfm.hpp>) against the same C calls, in one run:
 *   f32 get    rfm_view_get_f32() on a view      vs  rfm::Var<float>::get()
 *   f32 set    rfm_view_set_f32() on a view      vs  rfm::Var<float>::set()
 *   ring pub   rfm_ring_publish(), 32 bytes      vs  rfm::Ring::publish()
 * Both sides check every result, as a real program does (C: test the code;
 * C++: the layer's test, whose throw is out of line). Each pair runs ROUNDS
 * short rounds, C and C++ back to back (alternating which goes first), so
 * that the machine's noise hits both alike. Printed: the median time of
 * each side and the median of the rounds' C++/C ratios (pairing the two
 * runs of a round cancels the drift of a shared machine). Target: <= 1.05.
 *
 *   bench-cxx [URI]
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sched.h>
#include <unistd.h>

#include <rfm/rfm.hpp>

#include "stats.h" /* static helpers only: no linkage to declare */

namespace {

constexpr uint32_t OPS = 500000;
constexpr uint32_t RING_OPS = 100000;
constexpr int ROUNDS = 201;
constexpr uint32_t ELEMS = 1024; /* 4 KiB of floats: stays in L1, so we time the call */
constexpr uint64_t REGION = 0x1000;
constexpr uint64_t RING_AT = 0x10000;
constexpr uint64_t RING_BYTES = 0x40000;

volatile float sink;

__attribute__((noinline)) double c_get(const rfm_var_view *view)
{
	float sum = 0, value;
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < OPS; i++) {
		if (__builtin_expect(rfm_view_get_f32(view, i & (ELEMS - 1), &value) != 0, 0))
			std::abort();
		sum += value;
	}
	sink = sum;
	return double(bench_now_ns() - start) / OPS;
}

__attribute__((noinline)) double cxx_get(const rfm::Var<float> &var)
{
	float sum = 0;
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < OPS; i++)
		sum += var.get(i & (ELEMS - 1));
	sink = sum;
	return double(bench_now_ns() - start) / OPS;
}

__attribute__((noinline)) double c_set(const rfm_var_view *view)
{
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < OPS; i++)
		if (__builtin_expect(rfm_view_set_f32(view, i & (ELEMS - 1), float(i)) != 0, 0))
			std::abort();
	return double(bench_now_ns() - start) / OPS;
}

__attribute__((noinline)) double cxx_set(rfm::Var<float> &var)
{
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < OPS; i++)
		var.set(i & (ELEMS - 1), float(i));
	return double(bench_now_ns() - start) / OPS;
}

__attribute__((noinline)) double c_publish(rfm_ring *ring, const unsigned char *msg)
{
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < RING_OPS; i++)
		if (__builtin_expect(rfm_ring_publish(ring, msg, 32, 0) != 0, 0))
			std::abort();
	return double(bench_now_ns() - start) / RING_OPS;
}

__attribute__((noinline)) double cxx_publish(rfm::Ring &ring, const unsigned char *msg)
{
	uint64_t start = bench_now_ns();

	for (uint32_t i = 0; i < RING_OPS; i++)
		ring.publish(msg, 32);
	return double(bench_now_ns() - start) / RING_OPS;
}

struct Pair {
	const char *name;
	double c[ROUNDS], cxx[ROUNDS], ratio[ROUNDS];
};

/* Round @r of @p: both sides, the first one alternating. */
template <class C, class Cxx> void round(Pair &p, int r, C c, Cxx cxx)
{
	if (r % 2) {
		p.cxx[r] = cxx();
		p.c[r] = c();
	} else {
		p.c[r] = c();
		p.cxx[r] = cxx();
	}
	p.ratio[r] = p.cxx[r] / p.c[r];
}

void report(Pair &p)
{
	double ratio = bench_median(p.ratio, ROUNDS);
	double c = bench_median(p.c, ROUNDS), cxx = bench_median(p.cxx, ROUNDS);
	std::printf("  %-26s %7.2f %7.2f   %5.3fx\n", p.name, c, cxx, ratio);
}

} // namespace

int main(int argc, char **argv)
{
	std::string uri = argc > 1 ? argv[1]
				   : "shm:bench-cxx-" + std::to_string(getpid()) + "?node=0&size=1M";
	try {
		rfm::Node node(uri);
		rfm::Layout layout = rfm::Layout::create("bench", node.size());
		layout.add_region(rfm::region_spec("sim", uint32_t(node.id()), REGION, ELEMS * 4))
			.add_var("sim", rfm::var_spec("speed", RFM_TYPE_F32, ELEMS, 0))
			.finish();
		rfm::Var<float> var = node.var<float>(layout, "sim.speed");
		rfm_var_view view{};
		view.struct_size = sizeof(view);
		if (rfm_var_get_view(var.handle(), &view) != 0 || view.get_key == 0)
			throw rfm::Error(RFM_EINVAL, "no inline view for sim.speed");
		rfm::Ring ring = node.ring_create(RING_AT, RING_BYTES, 64, 1024);
		unsigned char msg[32] = { 1, 2, 3 };

		/* One CPU for the whole run (a migration costs one side only),
		 * and a round to warm caches and branch predictors, not counted. */
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		CPU_SET(sched_getcpu(), &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		c_get(&view), cxx_get(var), c_set(&view), cxx_set(var);
		c_publish(ring.get(), msg), cxx_publish(ring, msg);

		Pair get{ "f32 get, Var<float>::get", {}, {}, {} }, set{ "f32 set, Var<float>::set", {}, {}, {} };
		Pair pub{ "ring publish 32 B", {}, {}, {} };
		for (int r = 0; r < ROUNDS; r++) {
			round(get, r, [&] { return c_get(&view); }, [&] { return cxx_get(var); });
			round(set, r, [&] { return c_set(&view); }, [&] { return cxx_set(var); });
			round(pub, r, [&] { return c_publish(ring.get(), msg); },
			      [&] { return cxx_publish(ring, msg); });
		}
		std::printf("bench-cxx: the C++ layer against the same C calls, medians of %d rounds\n",
			    ROUNDS);
		std::printf("  %-26s %7s %7s   %s\n", "operation (ns/op)", "C", "C++",
			    "C++/C, median of paired rounds (target <= 1.05)");
		report(get);
		report(set);
		report(pub);

		ring.close();
		var.close();
		node.close();
		if (argc <= 1)
			rfm::destroy(uri.c_str(), RFM_DESTROY_FORCE);
	} catch (const rfm::Error &e) {
		std::fprintf(stderr, "bench-cxx: %s\n", e.what());
		return 1;
	}
	return 0;
}
