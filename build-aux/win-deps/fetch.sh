# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2154,SC2164 # win-deps.sh sets prefix, work, aux, jobs, triplet; recipes run under set -e
#
# Fetching Debian source packages for win-deps.sh. Not part of any build's
# key: the key holds the fetched .dsc's version and checksum.
#
# Set by win-deps.sh: work (the cache's private directory), update_lists.

# Through a private apt configuration:
#
# The machine's apt configuration is never changed: the deb-src list is made
# from the machine's own deb lines (the same mirrors, suites and keyrings)
# into $work/apt, and apt keeps its lists and caches there too. The
# machine's apt.conf (proxies, for one) still applies.

apt_private_opts() {
	printf '%s\n' -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$work/apt/sources.list.d" \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts="$work/apt/preferences.d" \
		-o Dir::State="$work/apt/state" -o Dir::Cache="$work/apt/cache" \
		-o APT::Sandbox::User="$(id -un)" -o APT::Get::List-Cleanup=false
}

# The machine's Debian entries (deb822 files and one-line lists) as deb-src
# entries. Only suites of this release (its codename, and -updates,
# -security): third-party repositories rarely serve sources, and a missing
# Sources index would fail the update. $RFM_WIN_DEPS_APT_SOURCES names a
# deb822 file to use instead.
apt_write_sources() {
	local dir=$work/apt/sources.list.d codename
	mkdir -p "$dir" "$work/apt/preferences.d" "$work/apt/state/lists/partial" \
		"$work/apt/cache/archives/partial"
	if [ -n "${RFM_WIN_DEPS_APT_SOURCES:-}" ]; then
		cp "$RFM_WIN_DEPS_APT_SOURCES" "$dir/debian-src.sources"
		return
	fi
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "cannot tell this system's release (no VERSION_CODENAME in /etc/os-release); set RFM_WIN_DEPS_APT_SOURCES to a deb822 file of deb-src entries"
	{
		local f
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v codename="$codename" '
				BEGIN { RS = ""; FS = "\n" }
				{
					out = ""; deb = 0; ours = 0; enabled = 1
					for (i = 1; i <= NF; i++) {
						line = $i
						if (line ~ /^#/) continue
						if (line ~ /^Types:/) { deb = (line ~ /[ \t]deb([ \t]|$)/); line = "Types: deb-src" }
						if (line ~ /^Enabled:[ \t]*no/) enabled = 0
						if (line ~ /^Suites:/) {
							ours = 1; n = split(substr(line, 8), s, /[ \t]+/)
							for (j = 1; j <= n; j++)
								if (s[j] != "" && s[j] !~ ("^" codename "(-|$)")) ours = 0
						}
						out = out line "\n"
					}
					if (deb && ours && enabled) printf "%s\n", out
				}' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk -v codename="$codename" '
				$1 == "deb" {
					i = 2; opts = ""
					if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
					uri = $i; suite = $(i + 1); comps = ""
					for (j = i + 2; j <= NF; j++) comps = comps " " $j
					if (suite !~ ("^" codename "(-|$)")) next
					gsub(/^ \[|\]$/, "", opts)
					printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n", uri, suite, comps
					n = split(opts, o, /[ \t]+/)
					for (k = 1; k <= n; k++)
						if (o[k] ~ /^signed-by=/) printf "Signed-By: %s\n", substr(o[k], 11)
					printf "\n"
				}' "$f"
		done
	} >"$dir/debian-src.sources.new"
	[ -s "$dir/debian-src.sources.new" ] || die "no Debian '$codename' entries in /etc/apt/sources.list{,.d} to make a deb-src list from; set RFM_WIN_DEPS_APT_SOURCES to a deb822 file of deb-src entries"
	mv "$dir/debian-src.sources.new" "$dir/debian-src.sources"
}

apt_update() {
	local opts
	mapfile -t opts < <(apt_private_opts)
	apt_write_sources
	say "refreshing the private deb-src lists ($work/apt)"
	apt-get "${opts[@]}" -q update >"$work/log/apt-update.log" 2>&1 ||
		{ tail -20 "$work/log/apt-update.log" >&2; die "apt-get update of the private deb-src lists failed (log: $work/log/apt-update.log)"; }
	touch "$work/apt/updated"
}

# The versions of source package $1 the private lists know, newest first.
deb_versions() {
	local opts v sorted=() i
	mapfile -t opts < <(apt_private_opts)
	for v in $(apt-cache "${opts[@]}" showsrc "$1" 2>/dev/null | sed -n 's/^Version: *//p' | sort -u); do
		i=${#sorted[@]}
		while [ "$i" -gt 0 ] && dpkg --compare-versions "$v" gt "${sorted[i - 1]}"; do
			sorted[i]=${sorted[i - 1]}
			i=$((i - 1))
		done
		sorted[i]=$v
	done
	printf '%s\n' ${sorted[@]+"${sorted[@]}"}
}

# Downloads the newest version of source package $1 that the mirror serves
# into $2 (a mirror can list a version in its index and not serve it yet:
# then the next one, with a warning). Sets deb_got to the version.
deb_download() {
	local pkg=$1 dir=$2 opts versions v
	mapfile -t opts < <(apt_private_opts)
	mapfile -t versions < <(deb_versions "$pkg")
	deb_got=
	for v in ${versions[@]+"${versions[@]}"}; do
		rm -rf "$dir" && mkdir -p "$dir"
		if (cd "$dir" && apt-get "${opts[@]}" -q source --download-only "$pkg=$v") \
			>>"$work/log/apt-source-$pkg.log" 2>&1; then
			deb_got=$v
			break
		fi
	done
	[ -n "$deb_got" ] || return 1
	[ "$deb_got" = "${versions[0]}" ] ||
		say "warning: the mirror does not serve $pkg ${versions[0]}, which its index lists; using $deb_got (log: $work/log/apt-source-$pkg.log)" >&2
}

# Sets deb_dsc to the .dsc of source package $1, downloading it (with its
# tarballs) into $work/dl/$1 when not there, or when $update_lists asks
# for the newest version. apt checks every file against the signed index.
deb_fetch() {
	local pkg=$1 dl=$work/dl/$1
	deb_dsc=
	[ ! -d "$dl" ] || deb_dsc=$(find "$dl" -maxdepth 1 -name "${pkg}_*.dsc" | sort | tail -1)
	if [ -n "$deb_dsc" ] && [ "$update_lists" != yes ]; then
		return 0
	fi
	if [ ! -e "$work/apt/updated" ] || [ "$update_lists" = yes ]; then
		[ "${apt_updated_now:-}" = yes ] || { apt_update; apt_updated_now=yes; }
	fi
	: >"$work/log/apt-source-$pkg.log"
	if ! deb_download "$pkg" "$dl.new"; then
		# Lists from an earlier run may name only versions the mirror
		# has dropped since: refresh them once.
		local got=no
		if [ "${apt_updated_now:-}" != yes ]; then
			apt_update
			apt_updated_now=yes
			! deb_download "$pkg" "$dl.new" || got=yes
		fi
		if [ $got = no ]; then
			tail -20 "$work/log/apt-source-$pkg.log" >&2
			die "apt-get source $pkg failed: no version of it in the private lists could be downloaded (log: $work/log/apt-source-$pkg.log)"
		fi
	fi
	rm -rf "$dl" && mv "$dl.new" "$dl"
	deb_dsc=$(find "$dl" -maxdepth 1 -name "${pkg}_*.dsc" | sort | tail -1)
	[ -n "$deb_dsc" ] || die "apt-get source $pkg left no .dsc in $dl"
}

# The version of a .dsc ("Version:" field).
dsc_version() {
	sed -n 's/^Version: *//p' "$1" | head -1
}
