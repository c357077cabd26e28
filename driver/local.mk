# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel driver (rfm.ko), its virtual lab and its tests.
#
#   make check      unit tests of the driver's logic (event queue, ivshmem
#                   mailbox, 5565 register paths on a simulated card) and of
#                   the ivshmem server; no kernel module, no QEMU, no root
#   make driver     build rfm.ko against $(KERNEL_HEADERS) in driver/linux-build
#   make driver-check  build rfm.ko W=1 against every installed
#                   /usr/src/linux-headers-*-amd64; any warning fails
#   make vm-check   build rfm.ko and run the two-guest tests in QEMU (TCG):
#                   vmtest (the ivshmem server is stopped under it once both
#                   guests' doorbells worked), then vmchaos (a guest dies)
#   make vm-check-rt  vm-check and rt-smoke.sh in PREEMPT_RT guests
#   make vm-stress  removal under load, reloads, read-only opens, ioctl
#                   fuzzing, queue memory, a foreign ivshmem device (QEMU)
#   make vm-bench   event round trip through rfm.ko vs a bare doorbell, in QEMU

DRIVER_KBUILD_FILES = \
	driver/linux/Kbuild \
	driver/linux/Makefile \
	driver/linux/rfm-core.h \
	driver/linux/rfm-main.c \
	driver/linux/rfm-cdev.c \
	driver/linux/rfm-portable.h \
	driver/linux/rfm-evq.h \
	driver/linux/rfm-evq.c \
	driver/linux/rfm-ivs-mbox.h \
	driver/linux/rfm-ivs-mbox.c \
	driver/linux/rfm-ivshmem.c \
	driver/linux/rfm-5565.c \
	driver/linux/rfm5565-hw.h \
	driver/linux/rfm5565-hw.c \
	driver/linux/rfm-sysfs.c \
	driver/linux/rfm-file.h \
	driver/linux/rfm-ioctl.c \
	driver/linux/rfm-irq-prio.h \
	driver/linux/rfm-irq-prio.c
# /proc/rfm2g, as the vendor driver writes it: RFM2g utilities count the
# boards there before they open /dev/rfm2gN.
DRIVER_KBUILD_FILES += driver/linux/rfm-procfs.h driver/linux/rfm-procfs.c
DRIVER_UAPI_FILES = \
	include/rfm/uapi/rfm_dev.h \
	include/rfm/uapi/rfm_ivshmem.h

EXTRA_DIST += \
	$(DRIVER_KBUILD_FILES) \
	$(DRIVER_UAPI_FILES) \
	driver/README.md \
	driver/Documentation/ABI/testing/sysfs-class-rfm \
	driver/lab/vm-run.sh \
	driver/lab/guest-init.sh \
	driver/lab/guest/dev-suite.sh \
	driver/lab/guest/ping-pair.sh \
	driver/lab/guest/lab.h \
	driver/lab/guest/vmcompat.c \
	driver/lab/guest/vmstress.sh \
	driver/lab/guest/rt-smoke.sh \
	driver/lab/guest/stress/stress.h

# ---- the lab's ivshmem server (a host program, built with everything) ----
if RFM_OS_POSIX
noinst_PROGRAMS += driver/lab/rfm-ivshmem-server
endif
driver_lab_rfm_ivshmem_server_SOURCES = driver/lab/rfm-ivshmem-server.c driver/linux/rfm-ivs-mbox.c
driver_lab_rfm_ivshmem_server_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/driver/linux

# ---- programs for the guests: static, built only for vm-check/vm-bench ----
LAB_GUEST_BINARIES = driver/lab/guest/vmtest driver/lab/guest/vmchaos driver/lab/guest/vmbench \
	driver/lab/guest/devpair driver/lab/guest/vmcompat64
EXTRA_PROGRAMS += $(LAB_GUEST_BINARIES)
CLEANFILES += $(LAB_GUEST_BINARIES)
driver_lab_guest_vmtest_SOURCES = driver/lab/guest/vmtest.c driver/lab/guest/lab.h
driver_lab_guest_vmtest_LDFLAGS = -all-static
driver_lab_guest_vmchaos_SOURCES = driver/lab/guest/vmchaos.c driver/lab/guest/lab.h
driver_lab_guest_vmchaos_LDFLAGS = -all-static
driver_lab_guest_vmbench_SOURCES = driver/lab/guest/vmbench.c driver/lab/guest/lab.h
driver_lab_guest_vmbench_LDFLAGS = -all-static
# make vm-stress: one program per scenario on a shared helper (stress.c),
# run in order by vmstress.sh.
LAB_STRESS_BINARIES = driver/lab/guest/stress/stress-foreign driver/lab/guest/stress/stress-compat driver/lab/guest/stress/stress-read-only driver/lab/guest/stress/stress-ioctls driver/lab/guest/stress/stress-queue-limit driver/lab/guest/stress/stress-queue-pressure driver/lab/guest/stress/stress-blocked-reader driver/lab/guest/stress/stress-read-fault driver/lab/guest/stress/stress-stalled-copy driver/lab/guest/stress/stress-removal driver/lab/guest/stress/stress-reload driver/lab/guest/stress/stress-device-del
LAB_GUEST_BINARIES += $(LAB_STRESS_BINARIES)
STRESS_COMMON = driver/lab/guest/stress/stress.c driver/lab/guest/stress/stress.h driver/lab/guest/lab.h
driver_lab_guest_stress_stress_foreign_SOURCES = driver/lab/guest/stress/foreign.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_foreign_LDFLAGS = -all-static
driver_lab_guest_stress_stress_foreign_LDADD = -lpthread
driver_lab_guest_stress_stress_compat_SOURCES = driver/lab/guest/stress/compat.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_compat_LDFLAGS = -all-static
driver_lab_guest_stress_stress_compat_LDADD = -lpthread
driver_lab_guest_stress_stress_read_only_SOURCES = driver/lab/guest/stress/read-only.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_read_only_LDFLAGS = -all-static
driver_lab_guest_stress_stress_read_only_LDADD = -lpthread
driver_lab_guest_stress_stress_ioctls_SOURCES = driver/lab/guest/stress/ioctls.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_ioctls_LDFLAGS = -all-static
driver_lab_guest_stress_stress_ioctls_LDADD = -lpthread
driver_lab_guest_stress_stress_queue_limit_SOURCES = driver/lab/guest/stress/queue-limit.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_queue_limit_LDFLAGS = -all-static
driver_lab_guest_stress_stress_queue_limit_LDADD = -lpthread
driver_lab_guest_stress_stress_queue_pressure_SOURCES = driver/lab/guest/stress/queue-pressure.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_queue_pressure_LDFLAGS = -all-static
driver_lab_guest_stress_stress_queue_pressure_LDADD = -lpthread
driver_lab_guest_stress_stress_blocked_reader_SOURCES = driver/lab/guest/stress/blocked-reader.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_blocked_reader_LDFLAGS = -all-static
driver_lab_guest_stress_stress_blocked_reader_LDADD = -lpthread
driver_lab_guest_stress_stress_read_fault_SOURCES = driver/lab/guest/stress/read-fault.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_read_fault_LDFLAGS = -all-static
driver_lab_guest_stress_stress_read_fault_LDADD = -lpthread
driver_lab_guest_stress_stress_stalled_copy_SOURCES = driver/lab/guest/stress/stalled-copy.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_stalled_copy_LDFLAGS = -all-static
driver_lab_guest_stress_stress_stalled_copy_LDADD = -lpthread
driver_lab_guest_stress_stress_removal_SOURCES = driver/lab/guest/stress/removal.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_removal_LDFLAGS = -all-static
driver_lab_guest_stress_stress_removal_LDADD = -lpthread
driver_lab_guest_stress_stress_reload_SOURCES = driver/lab/guest/stress/reload.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_reload_LDFLAGS = -all-static
driver_lab_guest_stress_stress_reload_LDADD = -lpthread
driver_lab_guest_stress_stress_device_del_SOURCES = driver/lab/guest/stress/device-del.c $(STRESS_COMMON)
driver_lab_guest_stress_stress_device_del_LDFLAGS = -all-static
driver_lab_guest_stress_stress_device_del_LDADD = -lpthread
# Every request of the UAPI, as a 64-bit and as a static 32-bit program
# (Debian's i686 cross compiler, gcc-i686-linux-gnu: gcc-multilib conflicts
# with the other cross compilers), compared inside the guest by vmstress.
driver_lab_guest_vmcompat64_SOURCES = driver/lab/guest/vmcompat.c driver/lab/guest/lab.h
driver_lab_guest_vmcompat64_LDFLAGS = -all-static
CLEANFILES += driver/lab/guest/vmcompat32
VMCOMPAT32_CC = i686-linux-gnu-gcc
driver/lab/guest/vmcompat32: $(top_srcdir)/driver/lab/guest/vmcompat.c $(top_srcdir)/driver/lab/guest/lab.h
	@$(MKDIR_P) driver/lab/guest
	$(AM_V_CC)$(VMCOMPAT32_CC) -static $(AM_CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) \
		-o $@ $(top_srcdir)/driver/lab/guest/vmcompat.c || { \
		echo "vmcompat32: no 32-bit compiler (Debian: gcc-i686-linux-gnu)" >&2; exit 1; }
# Over librfm (dynamic: vm-run.sh copies its libraries into the guests).
driver_lab_guest_devpair_SOURCES = driver/lab/guest/devpair.c driver/lab/guest/lab.h
driver_lab_guest_devpair_LDADD = src/librfm.la

# ---- unit tests of the driver's pure logic, compiled for user space ----
if WITH_TESTS
DRIVER_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/driver/linux $(CMOCKA_CFLAGS)
check_PROGRAMS += \
	driver/tests/test-evq \
	driver/tests/test-ivs-mbox \
	driver/tests/test-5565-hw \
	driver/tests/test-ivshmem-server
TESTS += \
	driver/tests/test-evq \
	driver/tests/test-ivs-mbox \
	driver/tests/test-5565-hw \
	driver/tests/test-ivshmem-server

driver_tests_test_evq_SOURCES = driver/tests/test-evq.c driver/linux/rfm-evq.c
driver_tests_test_evq_CPPFLAGS = $(DRIVER_TEST_CPPFLAGS)
driver_tests_test_evq_LDADD = $(CMOCKA_LIBS)

driver_tests_test_ivs_mbox_SOURCES = driver/tests/test-ivs-mbox.c driver/linux/rfm-ivs-mbox.c
driver_tests_test_ivs_mbox_CPPFLAGS = $(DRIVER_TEST_CPPFLAGS)
driver_tests_test_ivs_mbox_LDADD = $(CMOCKA_LIBS)

driver_tests_test_5565_hw_SOURCES = driver/tests/test-5565-hw.c driver/linux/rfm5565-hw.c
driver_tests_test_5565_hw_CPPFLAGS = $(DRIVER_TEST_CPPFLAGS)
driver_tests_test_5565_hw_LDADD = $(CMOCKA_LIBS)

driver_tests_test_ivshmem_server_SOURCES = driver/tests/test-ivshmem-server.c
driver_tests_test_ivshmem_server_CPPFLAGS = $(DRIVER_TEST_CPPFLAGS) \
	-DRFM_IVSHMEM_SERVER='"$(abs_builddir)/driver/lab/rfm-ivshmem-server"'
driver_tests_test_ivshmem_server_LDADD = $(CMOCKA_LIBS)
# The test starts the server binary.
EXTRA_driver_tests_test_ivshmem_server_DEPENDENCIES = driver/lab/rfm-ivshmem-server$(EXEEXT)
endif

# ---- the module: kbuild in a copy of the sources inside the build tree ----
DRIVER_BUILD_DIR = $(abs_builddir)/driver/linux-build
RFM_KO = $(DRIVER_BUILD_DIR)/rfm.ko
LAB_DIR = $(abs_builddir)/driver/lab

.PHONY: driver driver-check vm-check vm-check-rt vm-check-guests vm-rt-smoke vm-stress vm-bench \
	clean-driver-local

driver:
	@test -n "$(KERNEL_HEADERS)" && test -d "$(KERNEL_HEADERS)" || { \
		echo "make driver: no kernel headers; install linux-headers-amd64 or" \
		     "configure --with-kernel-headers=DIR" >&2; exit 1; }
	@$(MKDIR_P) $(DRIVER_BUILD_DIR)/include/rfm/uapi
	@for f in $(DRIVER_KBUILD_FILES); do \
		cmp -s $(top_srcdir)/$$f $(DRIVER_BUILD_DIR)/$$(basename $$f) || \
			cp $(top_srcdir)/$$f $(DRIVER_BUILD_DIR)/; \
	done
	@for f in $(DRIVER_UAPI_FILES); do \
		cmp -s $(top_srcdir)/$$f $(DRIVER_BUILD_DIR)/$$f || \
			cp $(top_srcdir)/$$f $(DRIVER_BUILD_DIR)/include/rfm/uapi/; \
	done
	$(MAKE) -C $(KERNEL_HEADERS) M=$(DRIVER_BUILD_DIR) KCFLAGS=-Werror modules

# Every installed kernel's headers (Debian 12: 6.1 and 6.12, each also as
# PREEMPT_RT: linux-headers-rt-amd64, linux-headers-6.12-rt-amd64), W=1 and
# sparse (when installed), no warning allowed: a distribution builds the
# module for each of them. Then checkpatch --strict, no message allowed:
# Debian ships checkpatch.pl only inside linux-source-*'s tarball, so the
# newest /usr/src/linux-source-*.tar.xz gives it (with the two data files
# it reads), extracted once into driver/checkpatch; CHECKPATCH=PATH uses
# another copy.
# The builds stay in driver/check/VERSION, and driver/check/checked says
# they passed: make driver-check always checks again, make vm-stress boots
# those builds and checks again only when a module source is newer than
# the stamp or a kernel has no build (./quickstart.sh test runs both: the
# four kernels' modules were built twice).
DRIVER_CHECK_DIR = $(abs_builddir)/driver/check
DRIVER_CHECK_STAMP = $(DRIVER_CHECK_DIR)/checked
CHECKPATCH_DIR = $(abs_builddir)/driver/checkpatch
driver-check:
	@rm -f $(DRIVER_CHECK_STAMP)
	@$(MAKE) $(AM_MAKEFLAGS) $(DRIVER_CHECK_STAMP)

$(DRIVER_CHECK_STAMP): $(DRIVER_KBUILD_FILES) $(DRIVER_UAPI_FILES)
	@rm -f $@; check=; if command -v sparse >/dev/null; then check="C=2 CHECK=sparse"; \
	else echo "driver-check: no sparse (Debian: sparse): compiler warnings only"; fi; \
	n=0; for kdir in $$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V); do \
		ver=$${kdir#/usr/src/linux-headers-}; d=$(DRIVER_CHECK_DIR)/$$ver; \
		rm -rf $$d && $(MKDIR_P) $$d/include/rfm/uapi || exit 1; \
		for f in $(DRIVER_KBUILD_FILES); do cp $(top_srcdir)/$$f $$d/ || exit 1; done; \
		for f in $(DRIVER_UAPI_FILES); do cp $(top_srcdir)/$$f $$d/include/rfm/uapi/ || exit 1; done; \
		$(MAKE) -C $$kdir M=$$d W=1 $$check KCFLAGS=-Werror modules >$$d/build.log 2>&1 || { \
			cat $$d/build.log; echo "driver-check: FAIL: $$ver"; exit 1; }; \
		if grep -i 'warning' $$d/build.log; then \
			echo "driver-check: FAIL: warnings with $$ver"; exit 1; fi; \
		rt=; grep -qx 'CONFIG_PREEMPT_RT=y' $$kdir/.config 2>/dev/null && rt=" (PREEMPT_RT)"; \
		echo "driver-check: $$ver$$rt: W=1$${check:+ and sparse} clean"; n=$$((n + 1)); \
	done; \
	test $$n -gt 0 || { echo "driver-check: no /usr/src/linux-headers-*-amd64" >&2; exit 1; }; \
	cp="$(CHECKPATCH)"; src=$$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1); \
	if test -z "$$cp" && test -n "$$src"; then \
		cp="perl $(CHECKPATCH_DIR)/scripts/checkpatch.pl"; \
		if ! test "$(CHECKPATCH_DIR)/scripts/checkpatch.pl" -nt "$$src"; then \
			top=$$(basename $$src .tar.xz); rm -rf $(CHECKPATCH_DIR); \
			$(MKDIR_P) $(CHECKPATCH_DIR) && \
			tar -xJf $$src -C $(CHECKPATCH_DIR) --strip-components=1 \
				$$top/scripts/checkpatch.pl $$top/scripts/spelling.txt \
				$$top/scripts/const_structs.checkpatch || exit 1; \
			touch $(CHECKPATCH_DIR)/scripts/checkpatch.pl; \
		fi; \
	fi; \
	if test -n "$$cp"; then \
		(cd $(top_srcdir)/driver/linux && $$cp --no-tree --strict --terse -f *.c *.h) || { \
			echo "driver-check: FAIL: checkpatch --strict"; exit 1; }; \
		echo "driver-check: checkpatch --strict clean"; \
	else \
		echo "driver-check: no checkpatch (Debian: linux-source-6.1)"; \
	fi; \
	echo "driver-check: $$n passed, 0 failed"; \
	touch $@

# The guests' kernel and module, and where their logs go: vm-check boots
# the stock kernel of $(KERNEL_HEADERS) with `make driver`'s module;
# vm-check-rt passes the PREEMPT_RT kernel's, built by driver-check.
VM_KO = $(RFM_KO)
VM_KDIR = $(KERNEL_HEADERS)
VM_OUT = $(LAB_DIR)
VM_RUN = bash $(top_srcdir)/driver/lab/vm-run.sh -M $(VM_KO) \
	-s $(abs_builddir)/driver/lab/rfm-ivshmem-server$(EXEEXT) \
	-k $(VM_KDIR) -c $(LAB_DIR)/cache

# The library's own test programs against dev: in one guest with three
# virtual cards (dynamic programs: vm-run.sh copies their libraries).
# Programs that cannot run on dev: exit 77 with their reason.
VM_DEV_TESTS = tests/core/test-errors tests/core/test-version tests/core/test-uri tests/core/test-memory \
	tests/core/test-open tests/core/test-publish tests/events/test-events-nodes \
	tests/core/test-multinode tests/backends/shm/test-corrupt tests/events/test-events-api \
	tests/health/test-health
# The event and layout suites: the programs that use networks (the layout
# parser's test-layout-parse and test-layout-limits open none, and limits
# would not fit the guest's memory). test-events-xproc, -segment and
# -stress are shm:-only by design (node ids chosen in URIs, a forged
# segment) and would only skip here.
VM_DEV_TESTS += tests/events/test-events-unregister \
	tests/layout/test-layout-access tests/layout/test-layout-header \
	tests/layout/test-layout-seqlock
# RFM2g programs over dev: and /proc/rfm2g from rfm.ko (librfm2g from its own .libs).
VM_DEV_TESTS += tests/librfm2g/test-rfm2g-sites
VM_DEV_LIBS = -L src/.libs -L src/librfm2g/.libs

# `rfm ping --mode event` across two guests, as a user runs the CLI.
if WITH_TOOLS
VM_PING_DEPS = tools/rfm$(EXEEXT)
VM_PING = $(VM_RUN) -o $(VM_OUT)/pingpair -L src/.libs -m 4M -n 2 \
	-B $(top_srcdir)/driver/lab/guest/ping-pair.sh -B tools/.libs/rfm$(EXEEXT) ping-pair.sh 300 && \
	grep -a '^bench:' $(VM_OUT)/pingpair/guest*.log | sed 's/^.*bench: /bench: /'
# vm-check-rt's own checks (driver/lab/guest/rt-smoke.sh): one guest, two cards.
VM_RT_SMOKE = $(VM_RUN) -o $(VM_OUT)/rtsmoke -L src/.libs -m 4M -n 1 -d 2 \
	-B $(top_srcdir)/driver/lab/guest/rt-smoke.sh -B tools/.libs/rfm$(EXEEXT) rt-smoke.sh && \
	grep -a '^bench:' $(VM_OUT)/rtsmoke/guest*.log | sed 's/^.*bench: /bench: /'
else
VM_PING_DEPS =
VM_PING = echo "vm-check: no rfm ping across guests (configured without tools)"
VM_RT_SMOKE = echo "vm-check-rt: no rt-smoke.sh (configured without tools)"
endif

VM_CHECK_DEPS = driver/lab/rfm-ivshmem-server$(EXEEXT) driver/lab/guest/vmtest$(EXEEXT) \
	driver/lab/guest/vmchaos$(EXEEXT) driver/lab/guest/devpair$(EXEEXT) \
	src/librfm.la src/librfm2g/librfm2g.la $(VM_DEV_TESTS:=$(EXEEXT)) $(VM_PING_DEPS)

vm-check: driver $(VM_CHECK_DEPS)
	@$(MAKE) $(AM_MAKEFLAGS) vm-check-guests

# The whole of vm-check, then rt-smoke.sh, in guests booting the newest
# installed PREEMPT_RT kernel (linux-image-6.12-rt-amd64), with the module
# built for it (as make driver does, in driver/linux-build-VERSION;
# driver-check builds it W=1); every guest log must show PREEMPT_RT.
VM_RT_KERNEL = $$(ls -d /usr/src/linux-headers-*-rt-amd64 2>/dev/null | \
	sed 's,^/usr/src/linux-headers-,,' | sort -V | tail -1)
vm-check-rt: $(VM_CHECK_DEPS)
	@ver=$(VM_RT_KERNEL); test -n "$$ver" || { \
		echo "vm-check-rt: no /usr/src/linux-headers-*-rt-amd64" \
		     "(Debian: linux-headers-6.12-rt-amd64)" >&2; exit 1; }; \
	out=$(LAB_DIR)/rt-$$ver; build=$(abs_builddir)/driver/linux-build-$$ver; \
	echo "vm-check-rt: vm-check on Linux $$ver"; \
	$(MAKE) $(AM_MAKEFLAGS) driver KERNEL_HEADERS=/usr/src/linux-headers-$$ver \
		DRIVER_BUILD_DIR=$$build && \
	$(MAKE) $(AM_MAKEFLAGS) vm-check-guests VM_KO=$$build/rfm.ko \
		VM_KDIR=/usr/src/linux-headers-$$ver VM_OUT=$$out && \
	$(MAKE) $(AM_MAKEFLAGS) vm-rt-smoke VM_KO=$$build/rfm.ko \
		VM_KDIR=/usr/src/linux-headers-$$ver VM_OUT=$$out || exit 1; \
	logs=$$(ls $$out/*/guest*.log); \
	notrt=$$(grep -a -L 'RFMLAB-KERNEL:.*PREEMPT_RT' $$logs); \
	if test -n "$$notrt"; then echo "vm-check-rt: not a PREEMPT_RT guest: $$notrt"; \
		echo "rt-kernel: 0 passed, 1 failed"; exit 1; fi; \
	echo "rt-kernel: 1 passed, 0 failed ($$(echo $$logs | wc -w) guest logs on PREEMPT_RT $$ver, scanned)"

vm-rt-smoke:
	$(VM_RT_SMOKE)

# vm-check's runs, with the guests' kernel and module of VM_KDIR, VM_KO.
vm-check-guests:
	$(VM_RUN) -o $(VM_OUT)/vmtest -B driver/lab/guest/vmtest$(EXEEXT) -n 2 -X vmtest
	$(VM_RUN) -o $(VM_OUT)/vmchaos -B driver/lab/guest/vmchaos$(EXEEXT) -n 2 vmchaos
	$(VM_RUN) -o $(VM_OUT)/devpair -L src/.libs -m 4M \
		-B driver/lab/guest/.libs/devpair$(EXEEXT) -n 2 devpair
	@grep -a '^bench:' $(VM_OUT)/devpair/guest*.log | sed 's/^.*bench: /bench: /'
	$(VM_PING)
	@bins=; names=; for t in $(VM_DEV_TESTS); do \
		bins="$$bins -B $$(dirname $$t)/.libs/$$(basename $$t)$(EXEEXT)"; \
		names="$$names $$(basename $$t)"; \
	done; \
	echo "$(VM_RUN) -o $(VM_OUT)/devsuite -n 1 -d 3 -m 4M $(VM_DEV_LIBS) ... dev-suite.sh$$names"; \
	$(VM_RUN) -o $(VM_OUT)/devsuite -n 1 -d 3 -m 4M $(VM_DEV_LIBS) \
		-B $(top_srcdir)/driver/lab/guest/dev-suite.sh $$bins dev-suite.sh $$names

# What a distribution's maintainer checks (driver/lab/guest/stress/, one
# program per scenario, run by vmstress.sh), in one guest that also has a
# foreign ivshmem-plain device: its memory (a host file, zeros) must still
# be zeros afterwards. Once per installed Debian kernel's headers (6.1 and
# 6.12, and each one's PREEMPT_RT flavour), with driver-check's builds of
# the module; VM_STRESS_KERNELS="6.12.117+deb12-rt-amd64 ..." picks some.
VM_STRESS_KERNELS = $$(ls -d /usr/src/linux-headers-*-amd64 | sed 's,^/usr/src/linux-headers-,,' | sort -V)
vm-stress: $(DRIVER_CHECK_STAMP) driver/lab/rfm-ivshmem-server$(EXEEXT) \
		$(LAB_STRESS_BINARIES:=$(EXEEXT)) driver/lab/guest/vmcompat64$(EXEEXT) \
		driver/lab/guest/vmcompat32
	@$(MKDIR_P) $(LAB_DIR)
	@for ver in $(VM_STRESS_KERNELS); do \
		test -e $(DRIVER_CHECK_DIR)/$$ver/rfm.ko || \
			$(MAKE) $(AM_MAKEFLAGS) driver-check || exit 1; \
	done
	@for ver in $(VM_STRESS_KERNELS); do \
		kdir=/usr/src/linux-headers-$$ver; foreign=$(LAB_DIR)/vmstress-foreign-$$ver.mem; \
		rm -f $$foreign && truncate -s 4M $$foreign || exit 1; \
		echo "vm-stress: rfm.ko on Linux $$ver"; \
		bins=; for p in $(LAB_STRESS_BINARIES); do bins="$$bins -B $$p$(EXEEXT)"; done; \
		bash $(top_srcdir)/driver/lab/vm-run.sh -M $(DRIVER_CHECK_DIR)/$$ver/rfm.ko \
			-s $(abs_builddir)/driver/lab/rfm-ivshmem-server$(EXEEXT) -k $$kdir \
			-c $(LAB_DIR)/cache -o $(LAB_DIR)/vmstress-$$ver \
			-B $(top_srcdir)/driver/lab/guest/vmstress.sh $$bins \
			-B driver/lab/guest/vmcompat64$(EXEEXT) \
			-B driver/lab/guest/vmcompat32 -n 1 -m 16M -t 480 -H -F $$foreign \
			vmstress.sh || exit 1; \
		if cmp -s -n 4194304 $$foreign /dev/zero; then \
			echo "foreign: 1 passed, 0 failed (the foreign ivshmem memory is untouched)"; \
		else \
			echo "vm-stress: rfm.ko wrote into the foreign ivshmem device's memory:"; \
			cmp -n 4194304 $$foreign /dev/zero; od -A x -t x1z $$foreign | head; \
			echo "foreign: 0 passed, 1 failed"; exit 1; \
		fi; \
	done

vm-bench: driver driver/lab/rfm-ivshmem-server$(EXEEXT) driver/lab/guest/vmbench$(EXEEXT)
	$(VM_RUN) -o $(LAB_DIR)/vmbench -B driver/lab/guest/vmbench$(EXEEXT) -n 2 -t 300 vmbench
	@grep -a '^bench:' $(LAB_DIR)/vmbench/guest*.log | sed 's/^.*bench: /bench: /'

clean-local: clean-driver-local
clean-driver-local:
	-rm -rf $(DRIVER_BUILD_DIR) $(DRIVER_BUILD_DIR)-* $(DRIVER_CHECK_DIR) $(CHECKPATCH_DIR) $(LAB_DIR)/vmstress-* $(LAB_DIR)/vmtest $(LAB_DIR)/vmchaos $(LAB_DIR)/vmbench \
		$(LAB_DIR)/devsuite $(LAB_DIR)/devpair $(LAB_DIR)/pingpair $(LAB_DIR)/rt-*
