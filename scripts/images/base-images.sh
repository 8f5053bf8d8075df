#!/usr/bin/env bash
# Local STAND-INS for the two base images the operators' Dockerfiles name, for machines that reach
# no container registry (CI here): the Dockerfiles stay as they are for real registries, and
# `podman build --pull=never` finds these under the very same names.
#
#   docker.io/library/node:20.19-bookworm-slim   the build stage: a Debian bookworm minbase root
#       file system (debootstrap from the machine's Debian mirror) plus this machine's Node.js and
#       npm in /usr/local, as the real image has them; a `node` user (1000).
#   gcr.io/distroless/nodejs20-debian12[:nonroot] the runtime stage: only what distroless ships
#       (libc6, libgcc-s1, libstdc++6, libssl3, ca-certificates, tzdata, netbase, base-files, from
#       Debian's packages via the machine's apt sources), node at /nodejs/bin/node, users root,
#       nonroot (65532) and nobody, and NO shell; :nonroot runs as 65532 in /home/nonroot.
#
# They are stand-ins, not copies: the Node.js is the machine's own (20.19 or newer 20.x, checked),
# the Debian packages are the mirror's current ones. Made once, then cached in podman's storage:
# skipped when all three tags exist (--force remakes them). Serialised by a lock, so tests and
# .ci/run may call it at once. Needs root, podman, debootstrap and apt-get.
set -euo pipefail

SLIM=docker.io/library/node:20.19-bookworm-slim
DISTROLESS=gcr.io/distroless/nodejs20-debian12
SUITE=bookworm
DISTROLESS_PACKAGES=(base-files netbase tzdata libc6 libgcc-s1 libstdc++6 libssl3 ca-certificates)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/capstan/images
force=${1:-}

say() { echo "base-images: $*" >&2; }
die() { say "$*"; exit 1; }

for tool in podman debootstrap apt-get dpkg-deb flock; do
  command -v "$tool" >/dev/null ||
    die "$tool is missing: install it with 'apt-get install podman runc debootstrap' (see .ci/run)"
done
[ "$(id -u)" = 0 ] || die "run as root (podman's root storage, debootstrap's chroot)"

all_exist() {
  podman image exists "$SLIM" && podman image exists "$DISTROLESS:latest" &&
    podman image exists "$DISTROLESS:nonroot"
}

mkdir -p "$CACHE"
exec 9>"$CACHE/base-images.lock"
flock 9
if [ "$force" != --force ] && all_exist; then exit 0; fi

node_bin=$(readlink -f "$(command -v node)")
node_version=$("$node_bin" -p process.versions.node)
IFS=. read -r major minor _ <<<"$node_version"
[ "$major" = 20 ] && [ "$minor" -ge 19 ] ||
  die "the images name Node.js 20.19+: this machine's node is $node_version ($node_bin)"
npm_dir=$(dirname "$node_bin")/../lib/node_modules/npm
[ -f "$npm_dir/package.json" ] || die "npm is not beside node ($npm_dir)"
npm_dir=$(readlink -f "$npm_dir")

# The machine's Debian mirror (deb822 or one-line sources), else Debian's own.
mirror=$(grep -hE '^(URIs:|deb) ' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
  grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ' || true)
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d "$CACHE/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$SECONDS

# The build stage: Debian minbase + Node.js and npm where the official image puts them.
say "debootstrap $SUITE (minbase) from $mirror"
slim=$work/slim
debootstrap --variant=minbase "$SUITE" "$slim" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
rm -rf "$slim"/var/cache/apt/archives/*.deb "$slim"/var/lib/apt/lists/* "$slim"/var/log/*
install -m 0755 "$node_bin" "$slim/usr/local/bin/node"
mkdir -p "$slim/usr/local/lib/node_modules"
cp -a "$npm_dir" "$slim/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$slim/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$slim/usr/local/bin/npx"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$slim/etc/passwd"
echo 'node:x:1000:' >>"$slim/etc/group"
install -d -o 1000 -g 1000 "$slim/home/node"
say "import $SLIM (node $node_version)"
tar -C "$slim" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'CMD ["node"]' - "$SLIM" >/dev/null

# The runtime stage: distroless's packages, unpacked (no maintainer scripts, as distroless).
say "assemble $DISTROLESS from ${DISTROLESS_PACKAGES[*]}"
debs=$work/debs
mkdir -p "$debs"
download() { (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "${DISTROLESS_PACKAGES[@]}"); }
# A machine whose package lists were cleared (as container images do) needs them fetched first.
download 2>/dev/null || { apt-get update -qq && download; } || die "apt-get download failed"
base=$work/distroless
mkdir -p "$base"
for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$base"; done
rm -rf "$base"/usr/share/doc "$base"/usr/share/man "$base"/usr/share/lintian "$base"/usr/share/info
mkdir -p "$base/etc/ssl/certs" "$base/nodejs/bin" "$base/root" "$base/tmp"
chmod 1777 "$base/tmp"
find "$base/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat \
  >"$base/etc/ssl/certs/ca-certificates.crt"
cat >"$base/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
printf 'root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n' >"$base/etc/group"
install -d -m 0700 -o 65532 -g 65532 "$base/home/nonroot"
install -m 0755 "$node_bin" "$base/nodejs/bin/node"
for shell in bin/sh bin/bash bin/dash usr/bin/sh usr/bin/bash usr/bin/dash; do
  [ ! -e "$base/$shell" ] || die "the distroless stand-in must have no shell, found /$shell"
done
say "import $DISTROLESS:latest and :nonroot"
tar -C "$base" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENTRYPOINT ["/nodejs/bin/node"]' - "$DISTROLESS:latest" >/dev/null
tar -C "$base" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'USER 65532' --change 'WORKDIR /home/nonroot' \
  --change 'ENTRYPOINT ["/nodejs/bin/node"]' - "$DISTROLESS:nonroot" >/dev/null
say "made in $((SECONDS - started)) s"
