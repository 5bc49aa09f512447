#!/usr/bin/env bash
# Local base images for the container build where no registry can be reached: Debian bookworm
# (debootstrap, minbase, from DEBIAN_MIRROR or deb.debian.org) plus the Node runtime this machine runs,
# committed to buildah's storage as localhost/risk-base:bookworm-node20. Made once; reused after.
set -euo pipefail
IMAGE=localhost/risk-base:bookworm-node20
if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then echo "$IMAGE"; exit 0; fi
command -v debootstrap >/dev/null && command -v buildah >/dev/null || {
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah debootstrap >&2
}
work=$(mktemp -d /var/tmp/risk-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase bookworm "$work/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >&2
node_bin=$(command -v node)
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
buildah config --env NODE_EXTRA_CA_CERTS=$bundle --env SSL_CERT_FILE=$bundle --env CURL_CA_BUNDLE=$bundle --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
buildah commit -q "$ctr" "$IMAGE" >/dev/null
buildah rm "$ctr" >/dev/null
echo "$IMAGE"
