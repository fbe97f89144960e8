# shellcheck shell=bash
# Where nova's client package of the same build lies: scripts/build-deb.sh writes python3-ferry-agent_V_all.deb beside
# ferry_V_amd64.deb, and ferry depends on exactly that version (debian/control). Prints the path; the caller checks it.
client_deb_beside() {
  local deb=$1 version
  version=$(dpkg-deb -f "$deb" Version)
  echo "$(dirname "$deb")/python3-ferry-agent_${version}_all.deb"
}
