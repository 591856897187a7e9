#!/usr/bin/env bash
# Install a single-machine Slurm (Debian's slurm-wlm: slurmctld, slurmd, the client commands) and munge, for
# tests/counting/test_slurm.py, which calls this when slurmctld is missing. Quiet, and nothing to do when both are
# already there. Needs root and Debian's apt; starts no daemon (the test's fixture configures and starts them).
set -euo pipefail
PATH="$PATH:/usr/sbin:/sbin"  # the daemons, for a PATH without the sbin directories
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
    && command -v munged >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install_slurm.sh: installing slurm-wlm and munge needs root (apt-get); run it as root" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null; then
    echo "install_slurm.sh: no apt-get here; install Slurm (slurmctld, slurmd, sbatch) and munge by hand" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# The package lists first: on a fresh machine apt-get knows no package until then.
if ! { apt-get update -q && apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends slurm-wlm munge; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "install_slurm.sh: apt-get could not install slurm-wlm and munge (its last lines above)" >&2
    exit 1
fi
