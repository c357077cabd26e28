// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * foreign.c - a vm-stress program (stress.h):
 * a foreign ivshmem-plain device (vm-run.sh -F) stays unbound (the host
 * checks its memory afterwards).
 */
#include <dirent.h>

#include "stress.h"

static void t_foreign(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int ivshmem = 0, bound = 0, unbound = 0;
	char path[512], link[256];

	lab_begin(&L, "a foreign ivshmem device is left alone");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		long vendor = read_number(path);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		long device = read_number(path);
		if (vendor != 0x1af4 || device != 0x1110)
			continue;
		ivshmem++;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 0)
			bound++;
		else
			unbound++;
	}
	if (d)
		closedir(d);
	printf("# ivshmem devices: %d, bound to rfm: %d, unbound: %d\n", ivshmem, bound, unbound);
	CHECK_EQ(&L, unbound, 1);	/* vm-run.sh -F gives every guest exactly one */
	CHECK(&L, bound >= 1, "our card is not bound");
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_foreign();
	return lab_finish(&L);
}
