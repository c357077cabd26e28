// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reload.c - a vm-stress program (stress.h):
 * unload and reload of the module, three rounds.
 */
#include <sys/wait.h>

#include "stress.h"

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void t_reload(void)
{
	lab_begin(&L, "unload and reload, three rounds");
	for (int i = 0; i < 3; i++) {
		int fd = open_card(O_RDWR);
		void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		/* Busy while open: refused, nothing hangs. */
		CHECK(&L, run("rmmod rfm 2>/dev/null") != 0, "rmmod succeeded with an open file");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		close(fd);
		CHECK_EQ(&L, run("rmmod rfm"), 0);
		CHECK_EQ(&L, run("insmod /rfm.ko"), 0);
		write_file("/sys/bus/pci/drivers/rfm/new_id", "1af4 1110");
		CHECK(&L, wait_for_card(), DEV " missing after reload");
	}
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_reload();
	return lab_finish(&L);
}
