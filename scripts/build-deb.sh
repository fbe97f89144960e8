#!/usr/bin/env bash
# Builds ferry's Debian packages the way Debian does, `dpkg-buildpackage -us -uc` on the source package (debian/ at the
# top of the tree), in a clean export of this checkout, then checks them with lintian. docs/install.md describes them.
#
#   npm run deb                                  → dist-deb/ferry_<version>_amd64.deb and
#                                                  dist-deb/python3-ferry-agent_<version>_all.deb (and the source
#                                                  package: .dsc, .tar.xz, .changes); version from package.json
#   scripts/build-deb.sh --out DIR               → the same in DIR
#   scripts/build-deb.sh --version-suffix +rebuild2 → ferry_<version>+rebuild2_amd64.deb … (a newer build of the same
#                                                  version, with its own changelog entry: the upgrade test installs it
#                                                  over one). Not +bN: dpkg reads that as a binNMU and strips it from
#                                                  ${source:Version}, which ferry's Depends on python3-ferry-agent uses
#   scripts/build-deb.sh --in DIR                build in DIR (a clean clone or export, kept) instead of a fresh export;
#                                                  a DIR built before is built again binary-only without cleaning
#                                                  (dpkg-buildpackage -b -nc): its npm build is reused
#
# The export is what git tracks, as it is in the working tree (uncommitted edits included; `git add` a new file to
# build it): untracked files, node_modules, dist and the dev cloud stay out. FERRY_NPM_CACHE=DIR builds without network (debian/rules).
# Needs dpkg-dev, lintian and debian/control's Build-Depends (debhelper, dh-python, help2man; installed with apt-get
# when missing, so as root), and Node ≥ 20.19 with npm. Prints the .debs' paths last (ferry's first); exit 1 when
# lintian reports an error or a warning on the source or a binary package.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

out=$ROOT/dist-deb suffix='' in=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --version-suffix) suffix=$2; shift 2 ;;
    --in) in=$2; shift 2 ;;
    *) echo "build-deb: unknown argument '$1' (use --out DIR, --version-suffix SUFFIX, --in DIR)" >&2; exit 2 ;;
  esac
done
[[ -z $suffix || $suffix =~ ^[+~][a-z0-9.+~]+$ ]] || { echo "build-deb: --version-suffix '$suffix' must start with + or ~ (Debian version characters only)" >&2; exit 2; }
[[ ! $suffix =~ \+b[0-9]+$ ]] || { echo "build-deb: --version-suffix '$suffix' ends like a binNMU (+bN), which dpkg strips from \${source:Version}: ferry would depend on python3-ferry-agent (= $(node -p 'require("./package.json").version')), which this build does not make; use another suffix, e.g. +rebuild${suffix##*+b}" >&2; exit 2; }
[[ -z $in || -f $in/debian/changelog ]] || { echo "build-deb: --in $in has no debian/changelog (a clone or export of ferry)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# What the build needs, from Debian's archive when missing: the tools this script runs (dpkg-dev, lintian), then
# debian/control's Build-Depends as dpkg-checkbuilddeps judges them (debhelper, dh-python, help2man, …), installed by
# `apt-get build-dep` on this tree. test/integration/deb builds through here, so a machine without them passes too.
apt_get() {
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends "$@" >&2 \
    || { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update >&2 \
         && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends "$@" >&2; }
}
missing=()
for tool in dpkg-buildpackage:dpkg-dev dpkg-checkbuilddeps:dpkg-dev lintian:lintian; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "build-deb: installing ${missing[*]} (Debian's archive)" >&2
  apt_get install "${missing[@]}" || { echo "build-deb: apt-get install ${missing[*]} failed (run as root)" >&2; exit 1; }
fi
if ! unmet=$(dpkg-checkbuilddeps 2>&1); then
  echo "build-deb: installing the build dependencies debian/control names (${unmet##*: })" >&2
  apt_get build-dep ./ || { echo "build-deb: apt-get build-dep ./ failed (run as root)" >&2; exit 1; }
  dpkg-checkbuilddeps >&2 || { echo "build-deb: build dependencies still unmet after apt-get build-dep" >&2; exit 1; }
fi

version=$(node -p 'require("./package.json").version')
debversion=$version$suffix
top=$(sed -n '1s/^ferry (\([^)]*\)).*/\1/p' debian/changelog)
[[ $top == "$version" ]] || { echo "build-deb: debian/changelog's top entry is $top, package.json says $version: add a changelog entry for $version" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
if [[ -z $in ]]; then
  src=$work/ferry-$version
  mkdir -p "$src"
  # Tracked files only (a stray clouds.yaml or keyring in the tree must not reach the source tarball), those deleted
  # from the working tree left out.
  git ls-files -z --cached | while IFS= read -r -d '' path; do [[ -e $path || -L $path ]] && printf '%s\0' "$path"; done \
    | tar --null -T - -cf - | tar -xf - -C "$src"
  built=$work
else
  src=$(cd "$in" && pwd)
  built=$(dirname "$src")
fi

# A rebuild of a tree already built reuses its build: binary packages only, no clean (it would remove the npm build).
args=(-us -uc)
[[ -f $src/debian/debhelper-build-stamp ]] && args=(-b -nc -us -uc)
if [[ -n $suffix ]]; then
  # A newer build of the same upstream version: its own changelog entry on top.
  { printf 'ferry (%s) unstable; urgency=medium\n\n  * Rebuild (%s).\n\n -- ferry maintainers <ferry@lists.example.org>  %s\n\n' \
      "$debversion" "$suffix" "$(date -R)"; cat "$src/debian/changelog"; } >"$src/debian/changelog.new"
  mv "$src/debian/changelog.new" "$src/debian/changelog"
fi

echo "build-deb: dpkg-buildpackage ${args[*]} in $src" >&2
(cd "$src" && dpkg-buildpackage "${args[@]}" >"$work/build.log" 2>&1) || { tail -n 40 "$work/build.log" >&2; echo "build-deb: dpkg-buildpackage failed (log above)" >&2; exit 1; }
# shellcheck disable=SC2012 # the newest .changes of this version; dpkg-buildpackage names them, no odd characters
changes=$(ls -t "$built"/ferry_"${debversion}"_*.changes | head -n 1)
debs=("$built/ferry_${debversion}_amd64.deb" "$built/python3-ferry-agent_${debversion}_all.deb")
for deb in "${debs[@]}"; do [[ -f $deb ]] || { echo "build-deb: dpkg-buildpackage wrote no $deb" >&2; exit 1; }; done

echo "build-deb: lintian on $(basename "$changes") ($(( $(date +%s) - started )) s so far)" >&2
lintian_out=$(lintian --fail-on error,warning --display-info --suppress-tags-from-file /dev/null "$changes" 2>&1) && status=0 || status=$?
[[ -z $lintian_out ]] || printf '%s\n' "$lintian_out" >&2
if [[ $status -ne 0 ]] || grep -q '^[EW]:' <<<"$lintian_out"; then
  echo "build-deb: lintian reports errors or warnings on $(basename "$changes") (above)" >&2
  exit 1
fi
# The .changes names what this build made (the source package too, unless binary-only).
sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]\+ \S\+ \S\+ //p' "$changes" | while read -r file; do cp "$built/$file" "$out/"; done
cp "$changes" "$out/"
echo "build-deb: $out: $(cd "$out" && du -h "${debs[@]##*/}" | tr '\t\n' ' ')($(( $(date +%s) - started )) s; lintian: no errors, no warnings)" >&2
printf '%s\n' "${debs[@]/#$built/$out}"
