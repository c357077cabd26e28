# SPDX-License-Identifier: LGPL-2.1-or-later
# The rfm command-line tool and its man page.

if WITH_TOOLS
bin_PROGRAMS += tools/rfm
man_MANS += man/rfm.1
endif

# What every program of the tool (rfm, rfm-replay) runs on: the main, the
# lookup in its table of commands, options, output, messages, layouts.
rfm_cli_sources = \
	tools/cli.h \
	tools/rfm.c \
	tools/cli-commands.c \
	tools/cmd-help.c \
	tools/cli-options.c \
	tools/cli-parse.c \
	tools/cli-output.c \
	tools/cli-interrupt.c \
	tools/cli-messages.c \
	tools/cli-suggest.c \
	tools/cli-time.c \
	tools/cli-layout.c \
	tools/os/tool-os.h
# The tool's own OS layer (tools/os/tool-os.h): the directory of the OS
# configure chose, as the library's src/os/.
if RFM_OS_WIN
rfm_cli_sources += tools/os/win/tool-os.c tools/os/win/tool-net.h
else
rfm_cli_sources += tools/os/posix/tool-os.c tools/os/posix/tool-net.h
endif

# bench/stats.c: rfm bench measures with the benchmarks' clock and median.
tools_rfm_SOURCES = \
	$(rfm_cli_sources) \
	bench/stats.h \
	bench/stats.c \
	tools/commands.c \
	tools/cli-exec.c \
	tools/cli-file.c \
	tools/pattern.h \
	tools/pattern.c \
	tools/cmd-info.c \
	tools/cmd-peek-poke.c \
	tools/cmd-read-write.c \
	tools/cmd-dump.c \
	tools/cmd-pattern.c \
	tools/cmd-destroy.c \
	tools/cmd-layout.c \
	tools/cmd-var.c \
	tools/cmd-event.c \
	tools/latency-hist.h \
	tools/latency-hist.c \
	tools/ping.h \
	tools/ping-slot.c \
	tools/ping-ring.c \
	tools/ping-event.c \
	tools/ping-options.c \
	tools/ping-echoer.c \
	tools/ping-report.c \
	tools/cmd-ping.c \
	tools/cmd-bench.c \
	tools/cmd-ring.c \
	tools/cmd-health.c \
	tools/rt-util.h \
	tools/rt-util.c \
	tools/system-checks.h \
	tools/cmd-jitter.c \
	tools/cmd-stats.c \
	tools/cmd-record.c \
	tools/cmd-plot.c
# Output files, ping --local's echoer, and what only Linux has: the system
# checks read /proc and /sys; rfm list's segment directory (tools/os/tool-seg.h).
if RFM_OS_WIN
tools_rfm_SOURCES += \
	tools/os/win/cli-file-open.c \
	tools/os/win/ping-local.c \
	tools/os/win/cmd-selftest-system.c \
	tools/cmd-list.c \
	tools/os/tool-seg.h \
	tools/os/win/tool-seg.c
else
tools_rfm_SOURCES += \
	tools/os/posix/cli-file-open.c \
	tools/os/posix/ping-local.c \
	tools/system-checks.c \
	tools/system-check-irq-thread.c \
	tools/cmd-selftest-system.c \
	tools/cmd-list.c \
	tools/os/tool-seg.h \
	tools/os/posix/tool-seg.c
endif
EXTRA_DIST += tools/os/win/cli-file-open.c tools/os/win/ping-local.c \
	tools/os/win/cmd-selftest-system.c tools/os/win/tool-seg.c tools/os/win/tool-os.c \
	tools/os/win/tool-net.h tools/os/posix/cli-file-open.c tools/os/posix/ping-local.c \
	tools/os/posix/tool-os.c tools/os/posix/tool-net.h tools/system-checks.c \
	tools/system-check-irq-thread.c tools/cmd-selftest-system.c tools/cmd-list.c \
	tools/os/tool-seg.h tools/os/posix/tool-seg.c
tools_rfm_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)

# rfm replay reads HDF5 recordings: a helper program of its own,
# rfm-replay in $(pkglibexecdir), which rfm runs in its place
# (cmd-replay-exec.c), so that rfm does not load libhdf5 and the 31
# libraries it needs for every command. Without libhdf5, rfm replay only
# says why it is missing.
if HAVE_HDF5
tools_rfm_SOURCES += tools/cmd-replay-exec.c tools/cmd-replay-help.c
if WITH_TOOLS
pkglibexec_PROGRAMS = tools/rfm-replay
endif
tools_rfm_replay_SOURCES = \
	$(rfm_cli_sources) \
	tools/replay-commands.c \
	tools/replay.h \
	tools/cmd-replay.c \
	tools/cmd-replay-help.c \
	tools/replay-file.c \
	tools/replay-check.c
tools_rfm_replay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -I$(top_srcdir)/tools \
	-I$(top_srcdir)/tools/os/$(RFM_OS)
tools_rfm_replay_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(HDF5_CFLAGS)
tools_rfm_replay_LDADD = src/librfm.la $(JSONC_LIBS) $(HDF5_LIBS) -lm
else
tools_rfm_SOURCES += tools/cmd-replay-missing.c
endif
EXTRA_DIST += tools/replay.h tools/cmd-replay.c tools/replay-file.c tools/replay-check.c \
	tools/cmd-replay-missing.c tools/cmd-replay-exec.c tools/cmd-replay-help.c \
	tools/replay-commands.c

# rfm serve: on libmicrohttpd when configure found it. Its page is built
# into the binary from tools/serve/ (serve-assets.c, generated).
SERVE_ASSETS = tools/serve/index.html tools/serve/app.js tools/serve/style.css
if WITH_SERVE
tools_rfm_SOURCES += \
	tools/serve.h \
	tools/cmd-serve.c \
	tools/serve-state.c \
	tools/serve-fresh.c \
	tools/serve-json.c \
	tools/serve-metrics.c \
	tools/serve-rings.c \
	tools/serve-token.c \
	tools/serve-host.c \
	tools/serve-counts.c \
	tools/serve-hist.c \
	tools/serve-sse.c \
	tools/serve-conns.c \
	tools/serve-http.c \
	src/textbuf.h \
	src/textbuf.c
nodist_tools_rfm_SOURCES = tools/serve-assets.c
CLEANFILES += tools/serve-assets.c
else
tools_rfm_SOURCES += tools/cmd-serve-missing.c
endif
tools/serve-assets.c: $(top_srcdir)/tools/serve/embed.sh $(SERVE_ASSETS:%=$(top_srcdir)/%)
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(SHELL) $(top_srcdir)/tools/serve/embed.sh $(top_srcdir)/tools/serve > $@.tmp && mv $@.tmp $@
EXTRA_DIST += tools/serve/embed.sh $(SERVE_ASSETS) tools/serve.h tools/cmd-serve.c \
	tools/serve-state.c tools/serve-fresh.c tools/serve-json.c tools/serve-metrics.c \
	tools/serve-token.c \
	tools/serve-hist.c tools/serve-sse.c tools/serve-http.c tools/cmd-serve-missing.c
# cmd-list.c reads segment headers without attaching: it knows their layout.
tools_rfm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -I$(top_srcdir)/tools \
	-I$(top_srcdir)/tools/os/$(RFM_OS) \
	-I$(top_srcdir)/bench \
	-DRFM_PYTHON='"$(PYTHON)"' -DRFM_PYTHONDIR='"$(pythondir)"' \
	-DRFM_BUILDDIR='"$(abs_top_builddir)"' -DRFM_PKGLIBEXECDIR='"$(pkglibexecdir)"' \
	-DRFM_BUILD_PYTHONPATH='"$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python"'
tools_rfm_LDADD = src/librfm.la $(JSONC_LIBS) $(MHD_LIBS) -lm
if RFM_OS_WIN
# BCryptGenRandom() (serve's token), winsock (serve's addresses).
tools_rfm_LDADD += -lbcrypt -lws2_32
endif

EXTRA_DIST += man/rfm.1

# Installed beside the rfm tool: its bash completion and rfm-plot (the
# latency plot of bench/plot-latency.py, for rfm ping --hist-csv files).

EXTRA_DIST += tools/rfm.bash-completion

if WITH_TOOLS
bashcompletion_DATA = tools/completion/rfm
bin_SCRIPTS = tools/rfm-plot

# The completion file is named after the command it completes.
tools/completion/rfm: $(top_srcdir)/tools/rfm.bash-completion
	$(AM_V_GEN)$(MKDIR_P) tools/completion && cp -f $(top_srcdir)/tools/rfm.bash-completion $@

tools/rfm-plot: $(top_srcdir)/bench/plot-latency.py
	$(AM_V_GEN)cp -f $(top_srcdir)/bench/plot-latency.py $@ && chmod +x $@

CLEANFILES += tools/completion/rfm tools/rfm-plot
endif
