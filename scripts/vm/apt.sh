# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by build.sh: packages from another Debian suite than the host's
# (bullseye's 5.10, sid's 7.2), through a private apt configuration under
# $VM/apt/<suite>/: its own sources, package lists and cache, so the
# system's apt sources are never touched. The suite's package list is
# fetched once, and again only when none of the kernels it names can be
# fetched any more (sid drops a superseded kernel within days).
#
#   suite_apt SUITE        sets APT_CONFIG (exported: apt-get and
#                          apt-cache then read only this suite's lists);
#                          APT_FRESH=1 if it fetched them just now
#   suite_update           fetches the suite's package list again (fails
#                          offline: the caller falls back on what it has)
# VM and DEB_ARCH must be set.

# The archive's keys: Debian's keyring package (bookworm's verifies
# bullseye's and sid's Release files too).
APT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
APT_FRESH=

# suite_sources SUITE: deb lines for SUITE, main only (kernels are there).
# A stable suite's kernel updates come through its security suite.
suite_sources() {
	echo "deb [signed-by=$APT_KEYRING] http://deb.debian.org/debian $1 main"
	case $1 in
	sid | unstable) ;;
	*) echo "deb [signed-by=$APT_KEYRING] http://deb.debian.org/debian-security $1-security main" ;;
	esac
}

suite_apt() {
	_a=$VM/apt/$1
	mkdir -p "$_a/lists/partial" "$_a/cache/archives/partial" "$_a/preferences.d"
	suite_sources "$1" >"$_a/sources.list"
	: >"$_a/status"	# nothing installed: this suite's candidates only
	# Only VM_ARCH's packages, so their names need no :arch; no
	# translations; no pinning of the host's.
	cat >"$_a/apt.conf" <<EOF
Dir::Etc::sourcelist "$_a/sources.list";
Dir::Etc::sourceparts "-";
Dir::Etc::preferencesparts "$_a/preferences.d";
Dir::State::Lists "$_a/lists";
Dir::State::status "$_a/status";
Dir::Cache "$_a/cache";
APT::Architecture "$DEB_ARCH";
APT::Architectures { "$DEB_ARCH"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
	APT_CONFIG=$_a/apt.conf
	export APT_CONFIG
	APT_FRESH=
	ls "$_a/lists/"*_Packages* >/dev/null 2>&1 && return 0
	APT_FRESH=1	# fetched (or tried) just now: no second try
	suite_update || true
}

suite_update() {
	echo "  APT      $(basename "$(dirname "$APT_CONFIG")"): package list ($DEB_ARCH)" >&2
	# apt-get update exits 0 when it could fetch nothing: look at the lists
	apt-get update -qq >/dev/null 2>"$VM/apt/update.err" &&
		ls "${APT_CONFIG%/*}/lists/"*_Packages* >/dev/null 2>&1 && return 0
	echo "vm build: apt-get update (${APT_CONFIG%/*}) failed: $(grep -m 1 '^[EW]: ' "$VM/apt/update.err")" >&2
	return 1
}
