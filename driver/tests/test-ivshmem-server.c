/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm-ivshmem-server, driven by test clients that speak QEMU's side of the
 * protocol: message order and descriptors, working doorbells and shared
 * memory between peers, departures (with the rfm mailbox updated), id
 * reuse, a full house, bad arguments and a clean SIGTERM.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <rfm/uapi/rfm_ivshmem.h>

#ifndef RFM_IVSHMEM_SERVER
#error "RFM_IVSHMEM_SERVER must name the server binary"
#endif

#define VECTORS 3
#define SHM_SIZE (4u << 20)
#define PEERS 4

struct client {
	int sock;
	int64_t id;
	int shm_fd;
	uint8_t *shm;
	int own[VECTORS];		/* eventfds we are interrupted on */
	int peer[PEERS][VECTORS];	/* eventfds that interrupt peer i */
};

static pid_t server_pid;
static char dir[64];
static char sock_path[128];

/* Start the server and wait for its ready line (no sleeping). */
static pid_t start_server(const char *const extra[], int *status_if_exited)
{
	int ready[2];
	char fdarg[16];
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *argv[16] = { RFM_IVSHMEM_SERVER, "-S", sock_path, "-m", "4M", "-n", "3",
					 "-p", "4", "-r", fdarg };
		int n = 11;

		close(ready[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", ready[1]);
		for (int i = 0; extra && extra[i]; i++)
			argv[n++] = extra[i];
		argv[n] = NULL;
		execv(RFM_IVSHMEM_SERVER, (char *const *)argv);
		_exit(127);
	}
	close(ready[1]);
	char line[16] = "";
	ssize_t got = read(ready[0], line, sizeof(line) - 1);
	close(ready[0]);
	if (got <= 0) {	/* it exited instead */
		assert_int_equal(waitpid(pid, status_if_exited, 0), pid);
		return -1;
	}
	assert_string_equal(line, "ready\n");
	return pid;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rfm-ivs-test-%d-XXXXXX", getpid());
	assert_non_null(mkdtemp(dir));
	snprintf(sock_path, sizeof(sock_path), "%s/sock", dir);
	server_pid = start_server(NULL, NULL);
	assert_true(server_pid > 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (server_pid > 0) {
		kill(server_pid, SIGKILL);
		waitpid(server_pid, NULL, 0);
	}
	unlink(sock_path);
	rmdir(dir);
	return 0;
}

/* One message: value and (optional) descriptor; -2 on EOF. */
static int recv_msg(int sock, int64_t *value, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	uint64_t le;
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	struct cmsghdr *c;

	if (n == 0)
		return -2;
	assert_int_equal(n, sizeof(le));
	*value = (int64_t)le64toh(le);
	*fd = -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

static int connect_raw(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(addr.sun_path, sock_path);
	assert_int_equal(connect(s, (struct sockaddr *)&addr, sizeof(addr)), 0);
	return s;
}

static void expect(struct client *c, int64_t value, bool with_fd, int *fd)
{
	int64_t v;
	int f;

	assert_int_equal(recv_msg(c->sock, &v, &f), 0);
	assert_int_equal(v, value);
	if (with_fd)
		assert_true(f >= 0);
	else
		assert_int_equal(f, -1);
	if (fd)
		*fd = f;
	else if (f >= 0)
		close(f);
}

/* Connect and read the greeting up to our own vectors; @others are the
 * ids already connected, in id order. */
static void join(struct client *c, int64_t want_id, const int64_t *others, int nothers)
{
	struct stat st;

	memset(c, -1, sizeof(*c));
	c->shm = NULL;
	c->sock = connect_raw();
	expect(c, 0, false, NULL);
	expect(c, want_id, false, NULL);
	c->id = want_id;
	expect(c, -1, true, &c->shm_fd);
	assert_int_equal(fstat(c->shm_fd, &st), 0);
	assert_int_equal(st.st_size, SHM_SIZE);
	c->shm = mmap(NULL, SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c->shm_fd, 0);
	assert_true(c->shm != MAP_FAILED);
	for (int i = 0; i < nothers; i++)
		for (int v = 0; v < VECTORS; v++)
			expect(c, others[i], true, &c->peer[others[i]][v]);
	for (int v = 0; v < VECTORS; v++)
		expect(c, want_id, true, &c->own[v]);
}

/* An existing client learns of a newcomer. */
static void learn(struct client *c, int64_t id)
{
	for (int v = 0; v < VECTORS; v++)
		expect(c, id, true, &c->peer[id][v]);
}

static void leave(struct client *c)
{
	close(c->sock);
	for (int v = 0; v < VECTORS; v++)
		if (c->own[v] >= 0)
			close(c->own[v]);
	for (int p = 0; p < PEERS; p++)
		for (int v = 0; v < VECTORS; v++)
			if (c->peer[p][v] >= 0)
				close(c->peer[p][v]);
	munmap(c->shm, SHM_SIZE);
	close(c->shm_fd);
}

static void peers_get_memory_doorbells_and_departures(void **state)
{
	struct client a, b, c;
	int64_t ids0[] = { 0 };
	uint64_t one = 1, got;

	(void)state;
	join(&a, 0, NULL, 0);
	join(&b, 1, ids0, 1);
	learn(&a, 1);

	/* One memory. */
	strcpy((char *)a.shm + 100, "reflected");
	assert_string_equal((char *)b.shm + 100, "reflected");

	/* A rings B's vector 2: B's own eventfd for vector 2 fires, no other. */
	assert_int_equal(write(a.peer[1][2], &one, sizeof(one)), sizeof(one));
	assert_int_equal(read(b.own[2], &got, sizeof(got)), sizeof(got));
	assert_int_equal(got, 1);
	assert_int_equal(read(b.own[1], &got, sizeof(got)), -1);
	assert_int_equal(errno, EAGAIN);
	/* And back. */
	assert_int_equal(write(b.peer[0][0], &one, sizeof(one)), sizeof(one));
	assert_int_equal(read(a.own[0], &got, sizeof(got)), sizeof(got));

	/* B is an rfm node in the mailbox; when it leaves, it is marked absent. */
	struct rfm_ivs_header *h = (struct rfm_ivs_header *)(a.shm + SHM_SIZE - RFM_IVS_AREA_SIZE);
	/* (The mailbox area is little-endian on every host.) */
	h->version = htole32(RFM_IVS_VERSION);
	h->nodes[1].state = htole32(RFM_IVS_NODE_PRESENT);
	h->nodes[0].state = htole32(RFM_IVS_NODE_PRESENT);
	__atomic_store_n(&h->magic, htole32(RFM_IVS_MAGIC), __ATOMIC_RELEASE);
	leave(&b);
	expect(&a, 1, false, NULL);	/* departure: the id without a descriptor */
	assert_int_equal(le32toh(__atomic_load_n(&h->nodes[1].state, __ATOMIC_ACQUIRE)),
			 RFM_IVS_NODE_ABSENT);
	assert_int_equal(le32toh(h->nodes[0].state), RFM_IVS_NODE_PRESENT);

	/* The lowest free id is handed out again. */
	join(&c, 1, ids0, 1);
	learn(&a, 1);
	leave(&c);
	expect(&a, 1, false, NULL);
	leave(&a);
}

static void a_full_house_refuses_more(void **state)
{
	struct client cl[PEERS];
	int64_t ids[PEERS];

	(void)state;
	for (int i = 0; i < PEERS; i++) {
		join(&cl[i], i, ids, i);
		for (int j = 0; j < i; j++)
			learn(&cl[j], i);
		ids[i] = i;
	}
	int extra = connect_raw();
	int64_t v;
	int fd;
	assert_int_equal(recv_msg(extra, &v, &fd), -2);	/* closed at once */
	close(extra);
	for (int i = 0; i < PEERS; i++)
		leave(&cl[i]);
}

static void sigterm_shuts_down_cleanly(void **state)
{
	struct client a;
	int status;
	int64_t v;
	int fd;

	(void)state;
	join(&a, 0, NULL, 0);
	assert_int_equal(kill(server_pid, SIGTERM), 0);
	assert_int_equal(waitpid(server_pid, &status, 0), server_pid);
	server_pid = -1;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(recv_msg(a.sock, &v, &fd), -2);	/* our connection was closed */
	assert_int_equal(access(sock_path, F_OK), -1);		/* and the socket removed */
	leave(&a);
}

static void bad_arguments_are_refused(void **state)
{
	static const char *const bad_size[] = { "-m", "1000", NULL };
	static const char *const bad_vectors[] = { "-n", "0", NULL };
	static const char *const stray[] = { "stray", NULL };
	int status;

	(void)state;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	server_pid = -1;

	assert_int_equal(start_server(bad_size, &status), -1);
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_int_equal(start_server(bad_vectors, &status), -1);
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_int_equal(start_server(stray, &status), -1);
	assert_int_equal(WEXITSTATUS(status), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(peers_get_memory_doorbells_and_departures, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_full_house_refuses_more, setup, teardown),
		cmocka_unit_test_setup_teardown(sigterm_shuts_down_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_arguments_are_refused, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("rfm-ivshmem-server", tests, NULL, NULL);
}
