/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hugepages=1 on shm: the window of an emulated network in huge pages, so
 * that a loop sweeping a 64 MiB window takes 32 TLB entries instead of
 * 16384, and no page of it is ever faulted in, swapped or compacted.
 *
 * Why a file on hugetlbfs and not memfd_create(MFD_HUGETLB): a network is
 * opened by name, by processes that start and stop independently, and
 * outlives them until destroyed. A memfd has no name another process can
 * open; it would have to be passed over a socket or found through
 * /proc/PID/fd of a live holder, and it vanishes with its last holder.
 * A file named rfm-NAME on a hugetlbfs mount (systemd mounts one at
 * /dev/hugepages) behaves like the segment in /dev/shm: opened by name,
 * kept until destroyed, its mode and owner checked like the segment's.
 *
 * Only the window moves. The header, node table and event queues stay in
 * the /dev/shm segment: they are small, the event slabs grow one by one as
 * receivers come (which hugetlbfs, with its page-sized mappings and files
 * that mmap() extends, does not lend itself to), and every open validates
 * them as before. The segment records the huge page size and format
 * version 4, so a librfm that predates this refuses the network rather
 * than using the hole where the window used to be.
 *
 * The pages come from the kernel's pool (vm.nr_hugepages): fallocate()
 * takes all of them when the network is created, so a short pool fails
 * the create with the count needed, never a later store with SIGBUS.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "os/file.h"
#include "backends/shm/shm-internal.h"

#define HUGE_DIR_MAX 512
/* Where systemd mounts hugetlbfs; preferred when several are mounted. */
#define HUGE_DIR_USUAL "/dev/hugepages"

/* The default huge page size in bytes (/proc/meminfo), 0 if none. */
static uint64_t default_page(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib << 10;
}

/* One counter of the pool of @page_kib pages (nr_hugepages...), -1 if unknown. */
static long pool_count(uint32_t page_kib, const char *what)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%ukB/%s", page_kib, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Is @dir a hugetlbfs of @page-byte pages? */
static bool huge_fs(const char *dir, uint64_t page)
{
	struct statfs fs;

	return statfs(dir, &fs) == 0 && (unsigned long)fs.f_type == HUGETLBFS_MAGIC &&
	       (uint64_t)fs.f_bsize == page;
}

/*
 * Call @fn on each hugetlbfs mount of @page-byte pages, HUGE_DIR_USUAL
 * first, until it returns true. Returns whether one did.
 */
static bool each_mount(uint64_t page, bool (*fn)(const char *dir, void *arg), void *arg)
{
	FILE *mounts;
	struct mntent *m;
	bool done = false;

	if (huge_fs(HUGE_DIR_USUAL, page) && fn(HUGE_DIR_USUAL, arg))
		return true;
	mounts = setmntent("/proc/self/mounts", "re");
	if (!mounts)
		return false;
	while (!done && (m = getmntent(mounts)))
		if (!strcmp(m->mnt_type, "hugetlbfs") && strcmp(m->mnt_dir, HUGE_DIR_USUAL) &&
		    strlen(m->mnt_dir) < HUGE_DIR_MAX && huge_fs(m->mnt_dir, page))
			done = fn(m->mnt_dir, arg);
	endmntent(mounts);
	return done;
}

static bool first_writable(const char *dir, void *arg)
{
	if (access(dir, W_OK) != 0)
		return false;
	snprintf(arg, HUGE_DIR_MAX, "%s", dir);
	return true;
}

static void file_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/" RFM_SHM_PREFIX "%s", dir, name);
}

/* The pool of @page_kib pages: all of it, and what is free and not promised. */
struct pool {
	long total;
	long avail;
};

static struct pool pool_now(uint32_t page_kib)
{
	long total = pool_count(page_kib, "nr_hugepages");
	long free_pages = pool_count(page_kib, "free_hugepages");
	long resv = pool_count(page_kib, "resv_hugepages");
	struct pool p = { total < 0 ? 0 : total, free_pages - (resv > 0 ? resv : 0) };

	if (p.avail < 0)
		p.avail = 0;
	return p;
}

/*
 * The error for @needed pages that the kernel refused, with the pool as it
 * was before the attempt (a failed fallocate holds what it got until the
 * file goes) and the fix.
 */
static int pool_short(const char *uri, uint64_t size, uint64_t needed, uint32_t page_kib,
		      struct pool before)
{
	long avail = before.avail, total = before.total;
	long want = total + (long)needed - avail;

	if (avail >= (long)needed)
		/* The pool has them: a limit of the mount (size=) or a hugetlb cgroup. */
		return rfm__error(RFM_ENOMEM,
				  "%s: hugepages=1: the window (%llu KiB) needs %llu huge pages "
				  "of %u KiB and %ld are free, yet the kernel refused them: the "
				  "hugetlbfs mount's size= option or a hugetlb cgroup limit is "
				  "lower",
				  uri, (unsigned long long)(size >> 10), (unsigned long long)needed,
				  page_kib, avail);
	return rfm__error(RFM_ENOMEM,
			  "%s: hugepages=1: the window (%llu KiB) needs %llu huge pages of %u KiB "
			  "and %ld are free (vm.nr_hugepages is %ld); reserve them: sysctl "
			  "vm.nr_hugepages=%ld (or echo %ld > /proc/sys/vm/nr_hugepages; at boot, "
			  "vm.nr_hugepages in /etc/sysctl.d or hugepages=%ld on the kernel command "
			  "line). The rest of the network stays in /dev/shm and needs none",
			  uri, (unsigned long long)(size >> 10), (unsigned long long)needed, page_kib,
			  avail, total, want, want, want);
}

static int map_file(struct shm_node *shm, const char *uri, int fd, uint64_t len)
{
	/* Populated: every page exists already (fallocate); this maps them. */
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);

	if (p == MAP_FAILED)
		return rfm__error(rfm__errno_code(errno), "%s: hugepages=1: mmap of the window: %s",
				  uri, strerror(errno));
	shm->huge = p;
	shm->huge_len = len;
	return 0;
}

int rfm__shm_huge_create(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 unsigned int mode, uint32_t *page_kib)
{
	uint64_t page = default_page(), len, needed;
	char dir[HUGE_DIR_MAX], path[HUGE_DIR_MAX + RFM_SHM_NAME_MAX + 16];
	struct stat st;
	struct pool before;
	int fd, err, ret;

	if (!page)
		return rfm__error(RFM_ENOTSUP,
				  "%s: hugepages=1: this kernel has no huge pages "
				  "(no Hugepagesize in /proc/meminfo)",
				  uri);
	*page_kib = (uint32_t)(page >> 10);
	len = (size + page - 1) / page * page;
	needed = len / page;
	if (!each_mount(page, first_writable, dir))
		return rfm__error(RFM_ENOTSUP,
				  "%s: hugepages=1: no hugetlbfs of %u KiB pages is mounted where "
				  "this process may write: the window is a file there that every "
				  "process of the network opens by name. Mount one (mount -t "
				  "hugetlbfs none " HUGE_DIR_USUAL "; systemd's dev-hugepages.mount "
				  "does it at boot) and reserve %llu huge pages (sysctl "
				  "vm.nr_hugepages=%llu or more)",
				  uri, *page_kib, (unsigned long long)needed,
				  (unsigned long long)needed);
	file_path(path, sizeof(path), dir, name);
	/*
	 * A file of that name is a window left behind: its segment is being
	 * (re)created under the network's lock now, and it holds huge pages
	 * nobody can use. Remove it if we may; if not, O_EXCL says so.
	 */
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	if (fd < 0) {
		if (errno == EEXIST && lstat(path, &st) == 0)
			return rfm__error(RFM_EPERM,
					  "%s: hugepages=1: %s exists and belongs to uid %u: "
					  "another user holds that name",
					  uri, path, (unsigned int)st.st_uid);
		return rfm__error(rfm__errno_code(errno), "%s: hugepages=1: creating %s: %s", uri,
				  path, strerror(errno));
	}
	shm->huge_created = true;
	/* The umask must not narrow the mode the caller asked for. */
	if (fchmod(fd, (mode_t)mode) < 0) {
		ret = rfm__error(rfm__errno_code(errno), "%s: fchmod %s: %s", uri, path,
				 strerror(errno));
		goto fail;
	}
	before = pool_now(*page_kib);
	if (fallocate(fd, 0, 0, (off_t)len) < 0) {
		err = errno;
		if (err == ENOSPC || err == ENOMEM)
			ret = pool_short(uri, size, needed, *page_kib, before);
		else
			ret = rfm__error(rfm__errno_code(err), "%s: hugepages=1: reserving %s: %s",
					 uri, path, strerror(err));
		goto fail;
	}
	ret = map_file(shm, uri, fd, len);
	if (ret)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	/* The pages go back to the pool with the file's last link. */
	unlink(path);
	shm->huge_created = false;
	return ret;
}

struct find_file {
	const char *name;
	char path[HUGE_DIR_MAX + RFM_SHM_NAME_MAX + 16];
	int fd;
	int err;
};

static bool open_in(const char *dir, void *arg)
{
	struct find_file *ff = arg;

	file_path(ff->path, sizeof(ff->path), dir, ff->name);
	ff->fd = open(ff->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	ff->err = ff->fd < 0 ? errno : 0;
	return ff->fd >= 0 || errno != ENOENT;
}

int rfm__shm_huge_attach(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 uint32_t page_kib)
{
	uint64_t page = (uint64_t)page_kib << 10;
	uint64_t len = (size + page - 1) / page * page;
	struct find_file ff = { .name = name, .fd = -1, .err = ENOENT };
	struct stat st, seg;
	int ret;

	if (!each_mount(page, open_in, &ff) || ff.fd < 0) {
		if (ff.err == EACCES)
			return rfm__error(RFM_EPERM, "%s: no write permission on %s", uri, ff.path);
		if (ff.err != ENOENT)
			return rfm__error(rfm__errno_code(ff.err), "%s: opening %s: %s", uri, ff.path,
					  strerror(ff.err));
		return rfm__error(RFM_ENOENT,
				  "%s: the network's window is in huge pages of %u KiB, but no "
				  "hugetlbfs mount of that page size holds " RFM_SHM_PREFIX "%s: "
				  "was it removed or unmounted? Destroy the network and create it "
				  "again",
				  uri, page_kib, name);
	}
	ff.fd = rfm__fd_keep_off_std(ff.fd);
	if (ff.fd < 0)
		return rfm__error(RFM_ESYS, "%s: opening %s: %s", uri, ff.path, strerror(errno));
	/* Held to the segment's standards: the network owner's, and all there. */
	if (fstat(ff.fd, &st) < 0 || fstat(shm->seg_fd, &seg) < 0) {
		ret = rfm__error(RFM_ESYS, "%s: fstat %s: %s", uri, ff.path, strerror(errno));
	} else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < len) {
		ret = rfm__error(RFM_ECORRUPT,
				 "%s: %s is not the network's window: %llu bytes, %llu expected",
				 uri, ff.path, (unsigned long long)st.st_size,
				 (unsigned long long)len);
	} else if (st.st_uid != seg.st_uid) {
		ret = rfm__error(RFM_EPERM,
				 "%s: %s belongs to uid %u, the network to uid %u: another user "
				 "may have planted it; destroy the network",
				 uri, ff.path, (unsigned int)st.st_uid, (unsigned int)seg.st_uid);
	} else {
		ret = map_file(shm, uri, ff.fd, len);
	}
	close(ff.fd);
	return ret;
}

struct remove_file {
	const char *name;
	uid_t owner;
};

static void remove_in(const char *dir, const struct remove_file *rf)
{
	char path[HUGE_DIR_MAX + RFM_SHM_NAME_MAX + 16];
	struct stat st;

	file_path(path, sizeof(path), dir, rf->name);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == rf->owner)
		unlink(path);
}

void rfm__shm_huge_remove(const char *name, int owner_fd)
{
	struct remove_file rf = { .name = name, .owner = geteuid() };
	struct stat owner;
	FILE *mounts;
	struct mntent *m;

	if (owner_fd >= 0) {
		if (fstat(owner_fd, &owner) < 0)
			return;
		rf.owner = owner.st_uid;
	}
	mounts = setmntent("/proc/self/mounts", "re");
	if (!mounts)
		return;
	/* Every mount: the page size of a stray file is unknown. */
	while ((m = getmntent(mounts)))
		if (!strcmp(m->mnt_type, "hugetlbfs") && strlen(m->mnt_dir) < HUGE_DIR_MAX)
			remove_in(m->mnt_dir, &rf);
	endmntent(mounts);
}
