# SPDX-License-Identifier: LGPL-2.1-or-later
# Documentation: the API reference (HTML) and section-3 man pages from the
# public headers (Doxygen), rfm-layout(5), and the layout-format page.

man_MANS += man/rfm-layout.5
EXTRA_DIST += docs/Doxyfile.in docs/man3-tidy.sh docs/layout-format.md docs/rfm2g-migration.md \
	docs/architecture.md docs/dds.md \
	man/rfm-layout.5

# `make doc`: doc/html/ and doc/man/man3/. Every function of the ABI
# (src/librfm.map) must have its page, so `man FUNCTION` works once
# installed; a missing one fails here, naming it. RFM_PRIVATE's rfm__*
# entry points are not the ABI and have none.
doc: docs/Doxyfile $(rfminclude_HEADERS:%=$(top_srcdir)/%) include/rfm/version.h
	@if test -z "$(DOXYGEN)"; then \
		echo "make doc: doxygen not found (Debian: doxygen); re-run configure" >&2; exit 1; fi
	$(AM_V_GEN)rm -rf doc && $(DOXYGEN) docs/Doxyfile && \
		$(SHELL) $(top_srcdir)/docs/man3-tidy.sh doc/man/man3
	@missing=; for f in `sed -n 's/^[[:space:]]*\(rfm_[a-z0-9][a-z0-9_]*\);.*/\1/p' $(top_srcdir)/src/librfm.map`; do \
		test -f doc/man/man3/$$f.3 || missing="$$missing $$f"; \
	done; \
	if test -n "$$missing"; then \
		echo "make doc: no man page for:$$missing (document them in include/rfm/)" >&2; \
		exit 1; \
	fi; \
	echo "make doc: `ls doc/man/man3 | wc -l` man pages in doc/man/man3, HTML in doc/html/index.html"

# `make install` installs the pages under $(mandir)/man3 and the HTML
# under $(docdir)/html when configure found Doxygen (its summary says so),
# as liburing and libgpiod install theirs; `make install-doc` does the same
# by hand. doc/stamp keeps an install from running Doxygen again.
doc/stamp: docs/Doxyfile $(rfminclude_HEADERS:%=$(top_srcdir)/%) include/rfm/version.h \
		$(top_srcdir)/docs/man3-tidy.sh $(top_srcdir)/src/librfm.map
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

# Windows: building, shm: there, and what wine cannot prove.
EXTRA_DIST += docs/windows.md
