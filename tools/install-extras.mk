# SPDX-License-Identifier: LGPL-2.1-or-later
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
