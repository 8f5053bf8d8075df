#!/usr/bin/env bash
# Builds one operator image from its unchanged Dockerfile, from the repository root:
#   scripts/images/build-image.sh packages/agent/Dockerfile ghcr.io/capstan-dev/agent:0.1.0
# with `podman --runtime runc` (crun fails on this machine kind's hybrid cgroups) on the stand-in
# base images (base-images.sh, made first if missing), never pulling. The build stage's `npm ci`
# reaches the registry as the host's npm does: the host's settings for it (registry, proxies, CA
# file) are handed in as npm's global config, and the host's npm cache as an overlay (read, never
# written back). Builds are serialised by a lock; podman caches the layers, so the five Dockerfiles,
# whose build stage is the same, run it once per source tree.
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 <Dockerfile> <tag>" >&2; exit 2; }
dockerfile=$1
tag=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/scripts/images/base-images.sh"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/capstan/images
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mounts=()
for key in registry cafile proxy https-proxy noproxy strict-ssl; do
  value=$(cd "$root" && npm config get "$key")
  case $value in '' | null | undefined) continue ;; esac
  echo "$key=$value" >>"$work/npmrc"
  if [ "$key" = cafile ]; then mounts+=("--volume=$value:$value:ro"); fi
done
touch "$work/npmrc"
chmod 644 "$work/npmrc"
mounts+=("--volume=$work/npmrc:/usr/local/etc/npmrc:ro")
if [ -d "$HOME/.npm" ]; then mounts+=("--volume=$HOME/.npm:/root/.npm:O"); fi

started=$SECONDS
flock "$cache/build.lock" podman --runtime runc build --pull=never --network=host \
  --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${mounts[@]}" \
  --file "$root/$dockerfile" --tag "$tag" "$root"
echo "build-image: $tag built in $((SECONDS - started)) s" >&2
