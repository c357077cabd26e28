// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two nodes in C++, the pattern of the seed articles: the writer publishes
 * a sample, then a sequence flag (release order), then interrupts the
 * reader; the reader waits for the interrupt, reads the flag (acquire) and
 * the sample, checks them and acknowledges with an interrupt of its own,
 * so the writer never overwrites a sample the reader has not checked.
 *
 *   two-node reader URI SAMPLES    e.g. "shm:lab?node=1&size=1M"
 *   two-node writer URI SAMPLES    e.g. "shm:lab?node=0&size=1M"
 *
 * Start the reader first: it prints "ready NODE_ID" once it receives. The
 * writer interrupts every other node (RFM_NODE_ALL): here, the reader.
 *
 *   c++ -std=c++17 two-node.cc $(pkg-config --cflags --libs rfm)
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <rfm/rfm.hpp>

namespace {

/* The address map: one region, written by the writer only. */
constexpr uint64_t SEQ = 0x1000;    /* u32: samples published so far */
constexpr uint64_t SAMPLE = 0x1040; /* struct Sample */
constexpr unsigned int DATA_READY = RFM_EVENT_INTR1;
constexpr unsigned int ACK = RFM_EVENT_INTR2;
constexpr auto PEER_TIMEOUT = std::chrono::seconds(10); /* a dead peer, not a pace */

struct Sample {
	uint64_t seq;
	double position;
	double velocity;
	uint64_t check; /* ties the fields together: a torn copy fails it */
};

uint64_t check_of(const Sample &s)
{
	uint64_t p, v;
	std::memcpy(&p, &s.position, 8);
	std::memcpy(&v, &s.velocity, 8);
	return (s.seq * 0x9e3779b97f4a7c15ull) ^ p ^ (v << 1);
}

Sample make_sample(uint32_t seq)
{
	Sample s{ seq, std::sin(seq * 0.01), std::cos(seq * 0.01), 0 };
	s.check = check_of(s);
	return s;
}

int writer(rfm::Node &node, uint32_t samples)
{
	rfm::Window window = node.window();
	node.enable(RFM_EVENT_BIT(ACK));
	for (uint32_t seq = 1; seq <= samples; seq++) {
		Sample s = make_sample(seq);
		node.write(SAMPLE, rfm::as_bytes(s));    /* 1. the data */
		window.store_release<uint32_t>(SEQ, seq); /* 2. then the flag */
		if (node.send(RFM_NODE_ALL, DATA_READY, seq) < 1) { /* 3. then the interrupt */
			std::fprintf(stderr, "writer: no node receives %s\n",
				     rfm_event_type_name(DATA_READY));
			return 1;
		}
		rfm::Event ack = node.wait(PEER_TIMEOUT);
		if (ack.type != ACK || ack.data != seq) {
			std::fprintf(stderr, "writer: expected ack %u, got %s %u\n", seq,
				     rfm_event_type_name(ack.type), ack.data);
			return 1;
		}
	}
	std::printf("writer: %u samples published and acknowledged\n", samples);
	return 0;
}

int reader(rfm::Node &node, uint32_t samples)
{
	rfm::Window window = node.window();
	node.enable(RFM_EVENT_BIT(DATA_READY));
	std::printf("ready %d\n", node.id());
	std::fflush(stdout);

	for (uint32_t seq = 1; seq <= samples; seq++) {
		rfm::Event ev = node.wait(PEER_TIMEOUT);
		uint32_t flag = window.load_acquire<uint32_t>(SEQ); /* then the data is current */
		Sample s;
		node.read(SAMPLE, &s, sizeof(s));
		if (ev.type != DATA_READY || ev.data != seq || flag != seq || s.seq != seq ||
		    s.check != check_of(s) || s.position != make_sample(seq).position) {
			std::fprintf(stderr,
				     "reader: sample %u: event %s %u, flag %u, sample %llu (%s)\n", seq,
				     rfm_event_type_name(ev.type), ev.data, flag,
				     static_cast<unsigned long long>(s.seq),
				     s.check == check_of(s) ? "intact" : "torn");
			return 1;
		}
		node.send(ev.sender, ACK, seq);
	}
	std::printf("reader: %u samples checked\n", samples);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 4 || (std::strcmp(argv[1], "reader") && std::strcmp(argv[1], "writer"))) {
		std::fprintf(stderr, "usage: two-node reader|writer URI SAMPLES\n");
		return 2;
	}
	uint32_t samples = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 0));
	try {
		rfm::Node node(argv[2]);
		return argv[1][0] == 'r' ? reader(node, samples) : writer(node, samples);
	} catch (const rfm::Error &e) {
		/* e.g. "rfm_event_wait: ...: The wait timed out" when the peer died */
		std::fprintf(stderr, "two-node %s: %s\n", argv[1], e.what());
		return 1;
	}
}
