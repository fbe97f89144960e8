#!/usr/bin/env bash
# The upgrade tests' newer .debs: the packages of one build (scripts/build-deb.sh) again under VERSION+SUFFIX, as a
# binary-only rebuild of the same tree makes them — the same files and maintainer scripts, the changelog entry such a
# rebuild adds, and ferry's Depends on python3-ferry-agent moved to the new version. test/integration/deb, kolla/ and
# the soak's packaged node install them over the first build.
#
#   scripts/deb-newer.sh --from DIR --out DIR --version-suffix +rebuild2
#       DIR holds ferry_<version>_amd64.deb and python3-ferry-agent_<version>_all.deb (build-deb.sh's --out);
#       prints the new .debs' paths (ferry's first).
#
# Why not build again: `scripts/build-deb.sh --version-suffix` on the built tree (dpkg-buildpackage -b -nc, then
# lintian) took 214 s of a 2-core machine's `npm test`, where lintian had already judged these very files; dpkg-deb
# unpacks and packs them again in seconds. Needs dpkg-deb and gzip only, no root.
set -euo pipefail

from='' out='' suffix=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --from) from=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --version-suffix) suffix=$2; shift 2 ;;
    *) echo "deb-newer: unknown argument '$1' (use --from DIR --out DIR --version-suffix SUFFIX)" >&2; exit 2 ;;
  esac
done
[[ -n $from && -n $out && -n $suffix ]] || { echo "deb-newer: --from DIR, --out DIR and --version-suffix SUFFIX are all needed" >&2; exit 2; }
# The same rules as build-deb.sh's --version-suffix: Debian version characters, and no binNMU (+bN), which dpkg
# strips from ${source:Version}.
[[ $suffix =~ ^[+~][a-z0-9.+~]+$ ]] || { echo "deb-newer: --version-suffix '$suffix' must start with + or ~ (Debian version characters only)" >&2; exit 2; }
[[ ! $suffix =~ \+b[0-9]+$ ]] || { echo "deb-newer: --version-suffix '$suffix' ends like a binNMU (+bN); use another suffix, e.g. +rebuild${suffix##*+b}" >&2; exit 2; }

shopt -s nullglob
found=("$from"/ferry_*_amd64.deb)
[[ ${#found[@]} -eq 1 ]] || { echo "deb-newer: $from holds ${#found[@]} ferry_*_amd64.deb (one build's, from scripts/build-deb.sh --out $from)" >&2; exit 1; }
ferry=${found[0]}
version=$(dpkg-deb -f "$ferry" Version)
client=$from/python3-ferry-agent_${version}_all.deb
[[ -f $client ]] || { echo "deb-newer: $client: no such .deb (scripts/build-deb.sh builds it beside $(basename "$ferry"))" >&2; exit 1; }
newer=$version$suffix
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# DEB PACKAGE ARCH → WORK/built/PACKAGE_NEWER_ARCH.deb (moved to OUT together at the end: both or neither, since a
# later run takes a ferry .deb found in OUT as built).
mkdir "$work/built"
repack() {
  local deb=$1 package=$2 arch=$3
  local root=$work/$package changelog=usr/share/doc/$package/changelog.gz
  dpkg-deb -R "$deb" "$root"
  local old=${version//./\\.}
  sed -i -e "s/^Version: $old\$/Version: $newer/" -e "s/python3-ferry-agent (= $old)/python3-ferry-agent (= $newer)/" "$root/DEBIAN/control"
  [[ $(sed -n 's/^Version: //p' "$root/DEBIAN/control") == "$newer" ]] || { echo "deb-newer: $deb: its control file's Version is not $version" >&2; exit 1; }
  [[ -f $root/$changelog ]] || { echo "deb-newer: $deb has no /$changelog" >&2; exit 1; }
  { printf 'ferry (%s) unstable; urgency=medium\n\n  * Rebuild (%s).\n\n -- ferry maintainers <ferry@lists.example.org>  %s\n\n' \
      "$newer" "$suffix" "$(date -R)"; gzip -dc "$root/$changelog"; } | gzip -9n >"$work/changelog.gz"
  mv "$work/changelog.gz" "$root/$changelog"
  # md5sums names the changed changelog: its line follows the new bytes.
  local sum
  sum=$(cd "$root" && md5sum "$changelog")
  sed -i "s|^[0-9a-f]\{32\}  ${changelog//./\\.}\$|$sum|" "$root/DEBIAN/md5sums"
  grep -qxF "$sum" "$root/DEBIAN/md5sums" || { echo "deb-newer: $deb: DEBIAN/md5sums has no line for $changelog" >&2; exit 1; }
  # As debian/rules builds them: root-owned, xz at level 1.
  dpkg-deb --root-owner-group -Zxz -z1 -b "$root" "$work/built/${package}_${newer}_${arch}.deb" >/dev/null
}

repack "$ferry" ferry amd64
repack "$client" python3-ferry-agent all
mv "$work/built"/*.deb "$out/"
echo "deb-newer: $out: ferry and python3-ferry-agent $newer from $version" >&2
printf '%s\n' "$out/ferry_${newer}_amd64.deb" "$out/python3-ferry-agent_${newer}_all.deb"
