#!/usr/bin/env bash
# Builds the VCD SDK conformance program (this folder: VMware's go-vcloud-director, version pinned
# in go.mod) with the machine's Go from the Go module proxy, once per machine and source hash, into
# the envtest cache: $CAPSTAN_ENVTEST_CACHE (default ~/.cache/capstan/envtest)/vcd-sdk-conformance/.
# A file lock keeps parallel callers (CI setup, test workers) from building twice; progress goes to
# stderr, the binary's path to stdout. Cold (empty Go module and build caches): 216 s measured on a
# loaded two-core machine; with the modules cached, about 2 min.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
if ! command -v go >/dev/null; then
  echo "vcd-sdk-conformance: Go is not on PATH; install Go 1.22 or newer (Debian: golang, or go.dev/dl) with the Go module proxy reachable" >&2
  exit 1
fi
sdk=$(awk '$1 == "require" && $2 == "github.com/vmware/go-vcloud-director/v2" { print $3 }' "$here/go.mod")
hash=$(cd "$here" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-12)
cache="${CAPSTAN_ENVTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan/envtest}/vcd-sdk-conformance"
dir="$cache/$sdk-$hash"
bin="$dir/vcdsim-conformance"
mkdir -p "$cache"
exec 9>"$dir.lock"
if ! flock -n 9; then
  echo "vcd-sdk-conformance: waiting for another build of $sdk-$hash (lock $dir.lock)..." >&2
  flock 9
fi
if [ ! -x "$bin" ]; then
  started=$SECONDS
  echo "vcd-sdk-conformance: building go-vcloud-director $sdk program (first use on this machine)..." >&2
  echo "vcd-sdk-conformance: downloading modules from the Go module proxy..." >&2
  (cd "$here" && go mod download)
  echo "vcd-sdk-conformance: compiling..." >&2
  rm -rf "$dir.partial" && mkdir -p "$dir.partial"
  (cd "$here" && go build -o "$dir.partial/vcdsim-conformance" .)
  rm -rf "$dir" && mv "$dir.partial" "$dir"
  echo "vcd-sdk-conformance: built in $((SECONDS - started)) s: $bin" >&2
fi
echo "$bin"
