# shellcheck shell=bash
# The Debian archive this machine's apt already uses (deb822 `URIs:` or one-line `deb URI ...`), or
# $FERRY_DEBIAN_MIRROR; fails naming that variable when apt has none. Sourced by scripts/nova-newer-check and
# scripts/matrix/trixie.
debian_mirror() {
  if [[ -n ${FERRY_DEBIAN_MIRROR:-} ]]; then echo "${FERRY_DEBIAN_MIRROR%/}"; return; fi
  local uri
  uri=$( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
           grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print ($2 ~ /^\[/) ? $3 : $2}'; } |
         grep -E '/debian/?$' | head -n 1)
  [[ -n $uri ]] || { echo "no Debian archive in this machine's apt sources: set FERRY_DEBIAN_MIRROR to one" >&2; return 1; }
  echo "${uri%/}"
}
