#!/usr/bin/env bash
# Local base image for the container build where no registry serves base images: Debian 13 trixie
# (debootstrap, minbase, from the mirror apt uses here) plus Node 24 LTS from the npm registry's
# node-linux-<arch> package (what the `node` package installs), committed to buildah's storage as
# localhost/risk-base:trixie-node24. Debian 13's glibc 2.39 is what the uWebSockets.js build with
# Node 22/24 binaries needs (2.38); Debian 12's 2.36 cannot load it. Made once and reused; made
# again when the Node pinned here or this machine's npm changed. Prints the image name on stdout,
# progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
SAY_PREFIX=container-base
NODE_VERSION=24.21.0
IMAGE=localhost/risk-base:trixie-node24
SUITE=trixie
# The registry's integrity of node-linux-<arch>@$NODE_VERSION, checked before the binary is used.
declare -A NODE_INTEGRITY=(
  [x64]=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
  [arm64]=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
)
LABEL=risk.base
npm_version=$(npm --version)
want="debian-$SUITE node-$NODE_VERSION npm-$npm_version"

[ "$(id -u)" = 0 ] || { say "ERROR: debootstrap and buildah's chroot isolation need root"; exit 1; }
if ! command -v debootstrap >/dev/null || ! command -v buildah >/dev/null; then
  apt_install buildah debootstrap || true
  command -v debootstrap >/dev/null && command -v buildah >/dev/null || {
    say "ERROR: buildah and debootstrap are needed and could not be installed with apt-get"
    exit 1
  }
fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) say "ERROR: no Node $NODE_VERSION integrity recorded for $(uname -m)"; exit 1 ;;
esac

previous=
if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then
  previous=$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE")
  have=$(buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$LABEL\"}}" "$IMAGE")
  if [ "$have" = "$want" ]; then echo "$IMAGE"; exit 0; fi
  say "$IMAGE is \"$have\", wanted \"$want\": making it again"
fi

# The Debian mirror apt uses here (deb822 .sources stanzas or one-line .list entries): it serves
# every suite, trixie too.
apt_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
    /^URIs:/ && $2 !~ /security/ { print $2; exit }
    /^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\// && $i !~ /security/) { print $i; exit } }' | head -1 || true
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

say "node-linux-$arch@$NODE_VERSION from the npm registry"
tarball=$(cd "$work" && npm pack --silent "node-linux-$arch@$NODE_VERSION")
got="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
[ "$got" = "${NODE_INTEGRITY[$arch]}" ] || { say "ERROR: $tarball has integrity $got, not the recorded ${NODE_INTEGRITY[$arch]}"; exit 1; }
mkdir "$work/node"
tar -xzf "$work/$tarball" -C "$work/node" package/bin/node package/LICENSE
[ "$("$work/node/package/bin/node" --version)" = "v$NODE_VERSION" ] || { say "ERROR: the packed node is not v$NODE_VERSION"; exit 1; }

say "debootstrap $SUITE (minbase) from $mirror"
debootstrap --variant=minbase "$SUITE" "$work/rootfs" "$mirror" >&2
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
ctr=$(buildah from scratch)
mnt=$(buildah mount "$ctr")
cp -a "$work/rootfs/." "$mnt/"
mkdir -p "$mnt/usr/local/bin" "$mnt/usr/local/lib/node_modules" "$mnt/usr/local/share/doc/node"
install -m 0755 "$work/node/package/bin/node" "$mnt/usr/local/bin/node"
cp "$work/node/package/LICENSE" "$mnt/usr/local/share/doc/node/LICENSE"
# npm is not in node-linux-<arch>: this machine's (plain JavaScript, any Node ≥ 20.17) is copied.
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
buildah config --label "$LABEL=$want" \
  --env NODE_EXTRA_CA_CERTS=$bundle --env SSL_CERT_FILE=$bundle --env CURL_CA_BUNDLE=$bundle \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
buildah commit -q --rm "$ctr" "$IMAGE" >/dev/null
ctr=
# A base made again leaves the previous one untagged: drop it.
[ -z "$previous" ] || buildah rmi "$previous" >/dev/null 2>&1 || true
say "made $IMAGE (Debian $SUITE, Node v$NODE_VERSION, npm $npm_version)"
echo "$IMAGE"
