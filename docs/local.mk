# SPDX-License-Identifier: LGPL-2.1-or-later
# Documentation: the API reference (HTML) and section-3 man pages from the
# public headers (Doxygen, then a page per function by docs/doxy2man.py),
# rfm-layout(5), the concept pages of section 7, and the layout-format page.

man_MANS += man/rfm-layout.5 man/librfm.7 man/rfm-protocols.7 man/rfm-events.7
EXTRA_DIST += docs/Doxyfile.in docs/man3-tidy.sh docs/doxy2man.py docs/layout-format.md \
	docs/rfm2g-migration.md docs/architecture.md docs/dds.md docs/benchmarks.md \
	docs/recording.md \
	man/rfm-layout.5 man/librfm.7 man/rfm-protocols.7 man/rfm-events.7

# `make doc`: doc/html/ and doc/man/man3/. Doxygen must not warn
# (WARN_AS_ERROR): a new undocumented function, field or parameter fails
# here with the log. Then docs/doxy2man.py writes a page per function
# (`man rfm_event_send`) and fails, naming each, on a function of the ABI
# (src/librfm.map) the headers do not document, a missing @retval, a
# missing thread-safety paragraph or a constructor that does not say what
# frees its result (docs/architecture.md, "Documenting a public
# function"); RFM_PRIVATE's rfm__* entry points are not the ABI and have
# none. Every page must render without a groff warning.
DOC_DEPS = docs/Doxyfile $(rfminclude_HEADERS:%=$(top_srcdir)/%) include/rfm/version.h \
	$(top_srcdir)/docs/man3-tidy.sh $(top_srcdir)/docs/doxy2man.py $(top_srcdir)/src/librfm.map
doc: $(DOC_DEPS)
	@if test -z "$(DOXYGEN)"; then \
		echo "make doc: doxygen or python3 not found (Debian: doxygen, python3); re-run configure" >&2; \
		exit 1; fi
	$(AM_V_GEN)rm -rf doc doxygen-warnings.log; \
	if ! $(DOXYGEN) docs/Doxyfile || test -s doxygen-warnings.log; then \
		cat doxygen-warnings.log >&2; \
		echo "make doc: Doxygen warned about the public headers (WARN_AS_ERROR); see" \
			"docs/architecture.md, \"Documenting a public function\"" >&2; \
		exit 1; \
	fi
	$(AM_V_at)$(SHELL) $(top_srcdir)/docs/man3-tidy.sh doc/man/man3
	$(AM_V_at)$(DOC_PYTHON) $(top_srcdir)/docs/doxy2man.py --xml doc/xml \
		--map $(top_srcdir)/src/librfm.map --out doc/man/man3 --version $(VERSION)
	@if command -v groff >/dev/null; then \
		cd doc/man/man3 && pages=`grep -L '^\.so ' *.3` && \
		if test -n "`groff -ww -z -man $$pages 2>&1`"; then \
			for p in $$pages; do groff -ww -z -man $$p 2>&1 | sed "s|^|$$p: |"; done >&2; \
			echo "make doc: pages that do not render clean (docs/doxy2man.py," \
				"docs/man3-tidy.sh)" >&2; exit 1; fi; \
	fi
	@echo "make doc: `ls doc/man/man3 | wc -l` man pages in doc/man/man3, HTML in doc/html/index.html"

# `make install` installs the pages under $(mandir)/man3 and the HTML
# under $(docdir)/html when configure found Doxygen (its summary says so),
# as liburing and libgpiod install theirs; `make install-doc` does the same
# by hand. doc/stamp keeps an install from running Doxygen again.
doc/stamp: $(DOC_DEPS)
	@$(MAKE) $(AM_MAKEFLAGS) doc && touch $@
install-doc: doc/stamp
	$(MKDIR_P) $(DESTDIR)$(mandir)/man3 $(DESTDIR)$(docdir)/html
	$(INSTALL_DATA) doc/man/man3/*.3 $(DESTDIR)$(mandir)/man3/
	cp -R doc/html/. $(DESTDIR)$(docdir)/html/
uninstall-doc:
	for f in doc/man/man3/*.3; do \
		test -f "$$f" && rm -f "$(DESTDIR)$(mandir)/man3/`basename $$f`"; \
	done; rm -rf "$(DESTDIR)$(docdir)/html"
if HAVE_DOXYGEN
doc_install_hook = install-doc
doc_uninstall_hook = uninstall-doc
endif
install-data-local: $(doc_install_hook)
# The only uninstall-local of the tree: also the static librfm2g.a's
# (src/librfm2g/local.mk), since Automake takes one rule for it.
uninstall-local: $(doc_uninstall_hook) uninstall-rfm2g-static

clean-local: clean-doc
clean-doc:
	rm -rf doc doxygen-warnings.log
.PHONY: doc install-doc uninstall-doc clean-doc

# Windows: using librfm there, shm: there, what wine cannot prove; and
# how the Windows build is made on Linux.
EXTRA_DIST += docs/windows.md docs/windows-build.md
# Windows: rfm.exe and RFM2g programs (rfm2g.dll, GE's Windows headers).
EXTRA_DIST += docs/windows-tools.md
