#!/usr/bin/env bash
# Local base images for the container build where no registry can be reached: Debian bookworm
# (debootstrap, minbase, from the mirror apt uses here) plus the Node runtime this machine runs,
# committed to buildah's storage as localhost/risk-base:bookworm-node20. Made once and reused; made
# again only when this machine's Node changed. Prints the image name on stdout, progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
SAY_PREFIX=container-base
IMAGE=localhost/risk-base:bookworm-node20
NODE_LABEL=risk.node-version
node_bin=$(command -v node)
node_version=$("$node_bin" --version)

[ "$(id -u)" = 0 ] || { say "ERROR: debootstrap and buildah's chroot isolation need root"; exit 1; }
if ! command -v debootstrap >/dev/null || ! command -v buildah >/dev/null; then
  apt_install buildah debootstrap || true
  command -v debootstrap >/dev/null && command -v buildah >/dev/null || {
    say "ERROR: buildah and debootstrap are needed and could not be installed with apt-get"
    exit 1
  }
fi

previous=
if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then
  previous=$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE")
  have=$(buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$NODE_LABEL\"}}" "$IMAGE")
  if [ "$have" = "$node_version" ]; then echo "$IMAGE"; exit 0; fi
  say "$IMAGE has Node $have, this machine runs $node_version: making it again"
fi

# The Debian mirror apt uses here (deb822 .sources stanzas or one-line .list entries for bookworm).
apt_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
    function stanza_end() { if (uris != "" && suites ~ /(^| )bookworm( |$)/) { print uris; exit } uris = ""; suites = "" }
    /^[[:space:]]*$/ { stanza_end(); next }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { $1 = ""; suites = $0 " " }
    /^deb[[:space:]]/ { for (i = 2; i < NF; i++) if ($i ~ /^https?:\/\// && $(i + 1) == "bookworm") { print $i; exit } }
    END { stanza_end() }' | head -1 || true # missing files, awk's early exit: no mirror, the default
}
mirror=${DEBIAN_MIRROR:-$(apt_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d /var/tmp/risk-base.XXXXXX)
ctr=
cleanup() {
  [ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
say "debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >&2
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
ctr=$(buildah from scratch)
mnt=$(buildah mount "$ctr")
cp -a "$work/rootfs/." "$mnt/"
mkdir -p "$mnt/usr/local/bin" "$mnt/usr/local/lib/node_modules"
cp "$node_bin" "$mnt/usr/local/bin/node"
cp -a "$npm_dir" "$mnt/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
# This machine reaches the registries through TLS interception: its extra CAs go into the base (as
# local CAs that update-ca-certificates keeps), and the tools are told where the bundle is.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  mkdir -p "$mnt/usr/local/share/ca-certificates" "$mnt/etc/ssl/certs"
  cp /usr/local/share/ca-certificates/*.crt "$mnt/usr/local/share/ca-certificates/"
  cp /etc/ssl/certs/ca-certificates.crt "$mnt/etc/ssl/certs/ca-certificates.crt"
fi
buildah umount "$ctr" >/dev/null
bundle=/etc/ssl/certs/ca-certificates.crt
buildah config --label "$NODE_LABEL=$node_version" \
  --env NODE_EXTRA_CA_CERTS=$bundle --env SSL_CERT_FILE=$bundle --env CURL_CA_BUNDLE=$bundle \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
buildah commit -q --rm "$ctr" "$IMAGE" >/dev/null
ctr=
# A base made again leaves the previous one untagged: drop it.
[ -z "$previous" ] || buildah rmi "$previous" >/dev/null 2>&1 || true
say "made $IMAGE (Debian bookworm, Node $node_version)"
echo "$IMAGE"
