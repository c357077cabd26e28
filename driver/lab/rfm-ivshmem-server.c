/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm-ivshmem-server - the shared memory and doorbells of a virtual RFM
 * network for QEMU's ivshmem-doorbell device (Debian ships no server).
 *
 * Speaks QEMU's ivshmem server protocol: over a Unix stream socket, each
 * message is a little-endian int64, some carrying one file descriptor
 * (SCM_RIGHTS). A new peer gets: the protocol version (0); its id; -1
 * with the shared memory (a memfd); for every other peer, that peer's id
 * once per vector with that peer's eventfd for the vector; its own id once
 * per vector with its own eventfds. Every other peer gets the new peer's
 * id once per vector with its eventfds. When a peer leaves, the others get
 * its id without a descriptor, and — if the memory holds an rfm mailbox —
 * the server marks that node absent so that senders stop waiting for it.
 *
 * Peer ids are the lowest free ones, so they are valid RFM node ids.
 * SIGTERM or SIGINT: close every connection, remove the socket, exit 0.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rfm/uapi/rfm_ivshmem.h>

#include "rfm-ivs-mbox.h"

#define MAX_VECTORS 64
#define MAX_PEERS_LIMIT 256

struct peer {
	int sock;		/* -1: slot free */
	int64_t id;
	int efd[MAX_VECTORS];
};

struct server {
	const char *path;
	uint64_t size;
	unsigned int vectors;
	unsigned int max_peers;
	bool verbose;
	int shm_fd;
	uint8_t *shm;		/* the server's own mapping, for the mailbox */
	int listen_fd;
	int sig_fd;
	struct peer peers[MAX_PEERS_LIMIT];
};

static void say(const struct server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct server *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "rfm-ivshmem-server: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rfm-ivshmem-server: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* One protocol message: a little-endian int64, optionally with a descriptor. */
static int send_msg(int sock, int64_t value, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	uint64_t le = htole64((uint64_t)value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *cmsg;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(le) ? 0 : -1;
}

static void close_peer_fds(struct server *s, struct peer *p)
{
	for (unsigned int v = 0; v < s->vectors; v++)
		if (p->efd[v] >= 0) {
			close(p->efd[v]);
			p->efd[v] = -1;
		}
	if (p->sock >= 0)
		close(p->sock);
	p->sock = -1;
}

/* Mark a departed node absent in the rfm mailbox, if the memory holds one. */
static void mailbox_node_gone(struct server *s, int64_t id)
{
	struct rfm_ivs_header *h;

	if (!s->shm || s->size < RFM_IVS_AREA_SIZE || id >= RFM_IVS_MAX_NODES)
		return;
	h = (struct rfm_ivs_header *)(s->shm + s->size - RFM_IVS_AREA_SIZE);
	/* Little-endian fields (rfm_ivshmem.h). */
	if (le32toh(__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE)) != RFM_IVS_MAGIC ||
	    le32toh(h->version) != RFM_IVS_VERSION)
		return;
	__atomic_store_n(&h->nodes[id].state, htole32(RFM_IVS_NODE_ABSENT), __ATOMIC_RELEASE);
}

static void peer_leave(struct server *s, struct peer *p)
{
	int64_t id = p->id;

	say(s, "peer %" PRId64 " left", id);
	close_peer_fds(s, p);
	mailbox_node_gone(s, id);
	for (unsigned int i = 0; i < s->max_peers; i++) {
		struct peer *o = &s->peers[i];

		if (o->sock >= 0 && send_msg(o->sock, id, -1) < 0)
			say(s, "could not tell peer %" PRId64 " that %" PRId64 " left", o->id, id);
	}
}

static int peer_setup(struct server *s, struct peer *p)
{
	if (send_msg(p->sock, 0, -1) < 0 ||		/* protocol version */
	    send_msg(p->sock, p->id, -1) < 0 ||	/* its id */
	    send_msg(p->sock, -1, s->shm_fd) < 0)	/* the shared memory */
		return -1;
	for (unsigned int i = 0; i < s->max_peers; i++) {
		struct peer *o = &s->peers[i];

		if (o == p || o->sock < 0)
			continue;
		for (unsigned int v = 0; v < s->vectors; v++)
			if (send_msg(p->sock, o->id, o->efd[v]) < 0)
				return -1;
	}
	for (unsigned int v = 0; v < s->vectors; v++)
		if (send_msg(p->sock, p->id, p->efd[v]) < 0)
			return -1;
	return 0;
}

static void peer_join(struct server *s)
{
	struct peer *p = NULL;
	int sock;

	sock = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (sock < 0) {
		if (errno != EINTR && errno != EAGAIN)
			say(s, "accept: %s", strerror(errno));
		return;
	}
	for (unsigned int i = 0; i < s->max_peers; i++)
		if (s->peers[i].sock < 0) {
			p = &s->peers[i];
			p->id = i;	/* lowest free id: a valid node id */
			break;
		}
	if (!p) {
		say(s, "refusing a peer: all %u ids are taken", s->max_peers);
		close(sock);
		return;
	}
	p->sock = sock;
	for (unsigned int v = 0; v < s->vectors; v++) {
		p->efd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (p->efd[v] < 0) {
			say(s, "eventfd: %s", strerror(errno));
			close_peer_fds(s, p);
			return;
		}
	}
	if (peer_setup(s, p) < 0) {
		say(s, "peer %" PRId64 " went away during set-up", p->id);
		close_peer_fds(s, p);
		return;
	}
	/* Tell the others; a peer that cannot be told is dropped next round. */
	for (unsigned int i = 0; i < s->max_peers; i++) {
		struct peer *o = &s->peers[i];

		if (o == p || o->sock < 0)
			continue;
		for (unsigned int v = 0; v < s->vectors; v++)
			if (send_msg(o->sock, p->id, p->efd[v]) < 0)
				break;
	}
	say(s, "peer %" PRId64 " joined", p->id);
}

static void peer_readable(struct server *s, struct peer *p)
{
	char buf[64];
	ssize_t n = recv(p->sock, buf, sizeof(buf), MSG_DONTWAIT);

	/* Peers never speak; anything but EOF or an error is ignored. */
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		peer_leave(s, p);
}

static void shutdown_server(struct server *s)
{
	for (unsigned int i = 0; i < s->max_peers; i++)
		if (s->peers[i].sock >= 0)
			close_peer_fds(s, &s->peers[i]);
	close(s->listen_fd);
	unlink(s->path);
	if (s->shm)
		munmap(s->shm, s->size);
	close(s->shm_fd);
}

static void setup(struct server *s, int ready_fd)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	sigset_t mask;

	s->shm_fd = memfd_create("rfm-ivshmem", MFD_CLOEXEC);
	if (s->shm_fd < 0 || ftruncate(s->shm_fd, (off_t)s->size) < 0)
		die("shared memory of %" PRIu64 " bytes: %s", s->size, strerror(errno));
	s->shm = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, s->shm_fd, 0);
	if (s->shm == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/*
	 * The rfm signature: rfm.ko binds an ivshmem device only when its
	 * memory holds this header, so it never writes into an ivshmem device
	 * that some other program owns.
	 */
	if (s->size >= RFM_IVS_MIN_SHM_SIZE)
		rfm_ivs_mbox_format(s->shm + s->size - RFM_IVS_AREA_SIZE);

	if (strlen(s->path) >= sizeof(addr.sun_path))
		die("socket path too long: %s", s->path);
	strcpy(addr.sun_path, s->path);
	/* A socket left by a server that was killed is replaced; anything else is not. */
	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			die("%s exists and is not a socket", s->path);
		unlink(s->path);
	}
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(s->listen_fd, 16) < 0)
		die("%s: %s", s->path, strerror(errno));

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		die("sigprocmask: %s", strerror(errno));
	s->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (s->sig_fd < 0)
		die("signalfd: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	for (unsigned int i = 0; i < MAX_PEERS_LIMIT; i++) {
		s->peers[i].sock = -1;
		for (unsigned int v = 0; v < MAX_VECTORS; v++)
			s->peers[i].efd[v] = -1;
	}
	if (ready_fd >= 0) {
		/* Whoever started us may connect now. */
		if (write(ready_fd, "ready\n", 6) != 6)
			die("ready fd %d: %s", ready_fd, strerror(errno));
		close(ready_fd);
	}
	say(s, "listening on %s: %" PRIu64 " bytes, %u vectors, %u peers", s->path, s->size,
	    s->vectors, s->max_peers);
}

static int run(struct server *s)
{
	struct pollfd fds[2 + MAX_PEERS_LIMIT];
	struct peer *who[2 + MAX_PEERS_LIMIT];

	for (;;) {
		nfds_t n = 0;

		fds[n++] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		for (unsigned int i = 0; i < s->max_peers; i++)
			if (s->peers[i].sock >= 0) {
				who[n] = &s->peers[i];
				fds[n++] = (struct pollfd){ .fd = s->peers[i].sock, .events = POLLIN };
			}
		if (poll(fds, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (fds[0].revents) {
			struct signalfd_siginfo si;

			if (read(s->sig_fd, &si, sizeof(si)) == sizeof(si))
				say(s, "signal %u: shutting down", si.ssi_signo);
			shutdown_server(s);
			return 0;
		}
		for (nfds_t i = 2; i < n; i++)
			if (fds[i].revents && who[i]->sock == fds[i].fd)
				peer_readable(s, who[i]);
		if (fds[1].revents & POLLIN)
			peer_join(s);
	}
}

static uint64_t parse_size(const char *text)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text)
		die("bad size '%s'", text);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end || v == 0 || v % 4096)
		die("bad size '%s' (a multiple of 4096, K/M/G suffixes allowed)", text);
	return v;
}

static unsigned int parse_uint(const char *text, unsigned int min, unsigned int max,
			       const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || end == text || *end || v < min || v > max)
		die("bad %s '%s' (%u..%u)", what, text, min, max);
	return (unsigned int)v;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rfm-ivshmem-server -S SOCKET [-m SIZE] [-n VECTORS] [-p PEERS] [-r FD] [-v]\n"
		"  -S SOCKET   Unix socket for QEMU's -chardev socket,path=SOCKET\n"
		"  -m SIZE     shared memory size (default 64M; K/M/G suffixes)\n"
		"  -n VECTORS  doorbell vectors per peer (default %u, as rfm.ko uses)\n"
		"  -p PEERS    most peers at once (default %u; ids 0..PEERS-1)\n"
		"  -r FD       write \"ready\" to FD once listening, then close it\n"
		"  -v          log joins and departures to stderr\n",
		RFM_IVS_VECTORS, RFM_IVS_MAX_NODES);
}

int main(int argc, char **argv)
{
	static struct server s;
	int ready_fd = -1;
	int c;

	s.size = 64ull << 20;
	s.vectors = RFM_IVS_VECTORS;
	s.max_peers = RFM_IVS_MAX_NODES;
	while ((c = getopt(argc, argv, "S:m:n:p:r:vh")) != -1) {
		switch (c) {
		case 'S': s.path = optarg; break;
		case 'm': s.size = parse_size(optarg); break;
		case 'n': s.vectors = parse_uint(optarg, 1, MAX_VECTORS, "vector count"); break;
		case 'p': s.max_peers = parse_uint(optarg, 1, MAX_PEERS_LIMIT, "peer count"); break;
		case 'r': ready_fd = (int)parse_uint(optarg, 0, 1 << 20, "ready fd"); break;
		case 'v': s.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!s.path || optind != argc) {
		usage(stderr);
		return 2;
	}
	setup(&s, ready_fd);
	return run(&s);
}
