#!/usr/bin/env bash
# Builds ferry's Debian package from the same tree the artifact carries (scripts/build-artifact.sh: the npm package,
# its production dependencies, the pinned Node 22, units, nova integration, completion, ferry(1)), laid out the Debian
# way by packaging/debian (debhelper), then checks it with lintian. docs/install.md describes the package.
#
#   npm run deb                                  → dist-deb/ferry_<version>_amd64.deb (version from package.json)
#   scripts/build-deb.sh --out DIR               → DIR/ferry_<version>_amd64.deb
#   scripts/build-deb.sh --version-suffix +b2    → ferry_<version>+b2_amd64.deb (a newer build of the same version,
#                                                  with its own changelog entry: the upgrade test installs it over one)
#   scripts/build-deb.sh --artifact FILE         reuse an artifact built earlier instead of building one
#
# Needs what build-artifact.sh needs, and dpkg-dev, debhelper, lintian and help2man from Debian's archive (installed
# with apt-get when missing). Prints the .deb's path last; exit 1 when lintian reports an error or a warning.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

out=$ROOT/dist-deb suffix='' artifact=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --version-suffix) suffix=$2; shift 2 ;;
    --artifact) artifact=$2; shift 2 ;;
    *) echo "build-deb: unknown argument '$1' (use --out DIR, --version-suffix SUFFIX, --artifact FILE)" >&2; exit 2 ;;
  esac
done
[[ -z $suffix || $suffix =~ ^[+~][a-z0-9.+~]+$ ]] || { echo "build-deb: --version-suffix '$suffix' must start with + or ~ (Debian version characters only)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

missing=()
for tool in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian help2man:help2man; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "build-deb: installing ${missing[*]} (Debian's archive)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

version=$(node -p 'require("./package.json").version')
debversion=$version$suffix
top=$(sed -n '1s/^ferry (\([^)]*\)).*/\1/p' packaging/debian/changelog)
[[ $top == "$version" ]] || { echo "build-deb: packaging/debian/changelog's top entry is $top, package.json says $version: add a changelog entry for $version" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
if [[ -z $artifact ]]; then
  artifact=$(scripts/build-artifact.sh --out "$work" | tail -n 1)
fi
tar -xzf "$artifact" -C "$work"
unpacked=$work/ferry-$version-linux-x64
[[ -d $unpacked ]] || { echo "build-deb: $artifact does not hold ferry-$version-linux-x64/" >&2; exit 1; }

# The source tree dpkg-buildpackage works in: packaging/debian as debian/, the artifact's files as stage/.
src=$work/ferry-$debversion
mkdir -p "$src/stage"
cp -R packaging/debian "$src/debian"
stage=$src/stage
mv "$unpacked/lib" "$stage/lib"
mv "$unpacked/share/completion" "$unpacked/share/man" "$stage/"
mkdir -p "$stage/units" "$stage/python"
cp "$unpacked"/share/systemd/* "$stage/units/"
cp "$stage/lib/ferry/integrations/nova/ferry_agent.py" "$stage/python/"
rm -rf "$stage/lib/ferry/integrations/nova/__pycache__"
# What npm packages carry for their own development has no place in a Debian package (lintian: npm ignore, eslint and
# git files, a docs page that loads scripts from CDNs, test fixtures).
nm=$stage/lib/ferry/node_modules
find "$nm" \( -name .npmignore -o -name '.eslintrc*' -o -name .gitattributes -o -name .editorconfig -o -name .travis.yml \) -type f -delete
rm -rf "$nm/pino/test" "$nm/pino/index.html"
cp packaging/debian/ferry-agent.default "$stage/ferry-agent.default"
cp packaging/debian/ferry-nova-integration "$stage/nova-integration"
# What the Glance API nodes need for ferry's role (docs/security.md): shipped so that an operator has it without a checkout.
cp -a packaging/glance "$stage/glance"
cat >"$stage/launcher" <<'LAUNCH'
#!/bin/sh
# ferry, run by the Node the package carries (/usr/lib/ferry/node), whatever node is installed.
exec /usr/lib/ferry/node/bin/node /usr/lib/ferry/bin/ferry "$@"
LAUNCH

if [[ -n $suffix ]]; then
  # A newer build of the same upstream version: its own changelog entry on top.
  { printf 'ferry (%s) unstable; urgency=medium\n\n  * Rebuild (%s).\n\n -- ferry maintainers <ferry@lists.example.org>  %s\n\n' \
      "$debversion" "$suffix" "$(date -R)"; cat "$src/debian/changelog"; } >"$src/debian/changelog.new"
  mv "$src/debian/changelog.new" "$src/debian/changelog"
fi

echo "build-deb: dpkg-buildpackage -b (debhelper; $(( $(date +%s) - started )) s so far)" >&2
(cd "$src" && dpkg-buildpackage -b -us -uc --no-check-builddeps >"$work/build.log" 2>&1) || { tail -n 40 "$work/build.log" >&2; echo "build-deb: dpkg-buildpackage failed (log above)" >&2; exit 1; }
deb=$work/ferry_${debversion}_amd64.deb
[[ -f $deb ]] || { echo "build-deb: dpkg-buildpackage wrote no $deb" >&2; exit 1; }

echo "build-deb: lintian ($(( $(date +%s) - started )) s so far)" >&2
lintian_out=$(lintian --fail-on error,warning --display-info --suppress-tags-from-file /dev/null "$deb" 2>&1) && status=0 || status=$?
[[ -z $lintian_out ]] || printf '%s\n' "$lintian_out" >&2
if [[ $status -ne 0 ]] || grep -q '^[EW]:' <<<"$lintian_out"; then
  echo "build-deb: lintian reports errors or warnings on $(basename "$deb") (above)" >&2
  exit 1
fi
cp "$deb" "$out/"
echo "build-deb: $out/$(basename "$deb") ($(du -h "$deb" | cut -f1), $(( $(date +%s) - started )) s; lintian: no errors, no warnings)" >&2
echo "$out/$(basename "$deb")"
