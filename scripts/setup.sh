# Sourced by scripts/demo, scripts/test, scripts/bench and scripts/fuzz:
# installs the Debian packages that are missing (apt-get, with sudo when not
# root), then configures and builds incrementally. Idempotent and quick on a
# second run. The sourcing script may set, before sourcing:
#   RELGPU_BUILD           build directory (default build/)
#   RELGPU_EXTRA_PACKAGES  more Debian packages it needs (space separated)
#   RELGPU_CMAKE_ARGS      more arguments for the first configure (an array)
#   RELGPU_TARGETS         targets to build (space separated; default all)
#   RELGPU_PREBUILT=1      install and build nothing: use the binaries already in
#                          RELGPU_BUILD (e.g. copied to a machine with no packages)
set -euo pipefail
RELGPU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RELGPU_BUILD=${RELGPU_BUILD:-$RELGPU_ROOT/build}
RELGPU_JOBS=${RELGPU_JOBS:-$(nproc)}
[ -n "${RELGPU_CMAKE_ARGS+set}" ] || RELGPU_CMAKE_ARGS=()

relgpu_packages=(cmake make g++ pkg-config libsystemc-dev verilator yosys opensta
                 nlohmann-json3-dev libgtest-dev libzstd-dev liblz4-dev libsqlite3-dev sqlite3 python3
                 python3-matplotlib python3-markdown time slurm-wlm munge ${RELGPU_EXTRA_PACKAGES:-})

relgpu_install_missing() {
  local missing=() p
  for p in "${relgpu_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "relgpu: installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "relgpu: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

relgpu_build() {
  if [ ! -f "$RELGPU_BUILD/CMakeCache.txt" ]; then
    cmake -S "$RELGPU_ROOT" -B "$RELGPU_BUILD" -DCMAKE_BUILD_TYPE=Release ${RELGPU_CMAKE_ARGS[@]+"${RELGPU_CMAKE_ARGS[@]}"} >/dev/null
  fi
  local targets=()
  for t in ${RELGPU_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$RELGPU_BUILD" -j "$RELGPU_JOBS" ${targets[@]+"${targets[@]}"} -- --no-print-directory 2>&1 |
    grep -Ev '^\[ *[0-9]+%\] (Building|Linking|Built|Generating|Verilating)|^Scanning|Consolidate compiler' || true
  # The pipe hides cmake's status; check the build really finished.
  cmake --build "$RELGPU_BUILD" -j "$RELGPU_JOBS" ${targets[@]+"${targets[@]}"} >/dev/null
}

if [ "${RELGPU_PREBUILT:-}" = 1 ]; then
  [ -x "$RELGPU_BUILD/bin/relgpu" ] ||
    { echo "relgpu: RELGPU_PREBUILT=1 but $RELGPU_BUILD/bin/relgpu is missing; build it first (scripts/demo)" >&2; exit 2; }
else
  relgpu_install_missing
  relgpu_build
fi
