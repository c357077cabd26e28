# SPDX-License-Identifier: LGPL-2.1-or-later
# The rfm command-line tool and its man page.

man_MANS =

if WITH_TOOLS
bin_PROGRAMS += tools/rfm
man_MANS += man/rfm.1
endif

tools_rfm_SOURCES = \
	tools/cli.h \
	tools/rfm.c \
	tools/commands.c \
	tools/cli-options.c \
	tools/cli-parse.c \
	tools/cli-output.c \
	tools/cli-interrupt.c \
	tools/cli-file.c \
	tools/cli-messages.c \
	tools/cli-suggest.c \
	tools/cli-time.c \
	tools/pattern.h \
	tools/pattern.c \
	tools/cmd-info.c \
	tools/cmd-peek-poke.c \
	tools/cmd-read-write.c \
	tools/cmd-dump.c \
	tools/cmd-pattern.c \
	tools/cmd-destroy.c \
	tools/cli-layout.c \
	tools/cmd-layout.c \
	tools/cmd-var.c \
	tools/cmd-event.c \
	tools/latency-hist.h \
	tools/latency-hist.c \
	tools/ping.h \
	tools/ping-slot.c \
	tools/ping-ring.c \
	tools/cmd-ping.c \
	tools/cmd-bench.c \
	tools/cmd-ring.c \
	tools/cmd-health.c \
	tools/rt-util.h \
	tools/rt-util.c \
	tools/system-checks.h \
	tools/system-checks.c \
	tools/cmd-selftest-system.c \
	tools/cmd-jitter.c \
	tools/cmd-list.c \
	tools/cmd-stats.c
tools_rfm_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
# cmd-list.c reads segment headers without attaching: it knows their layout.
tools_rfm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tools_rfm_LDADD = src/librfm.la $(JSONC_LIBS)

EXTRA_DIST += man/rfm.1
