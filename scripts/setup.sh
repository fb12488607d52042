#!/usr/bin/env bash
# Set up tierdeck on a Debian/Ubuntu machine: system tools (as root), a venv, the package.
#   scripts/setup.sh          runtime only
#   scripts/setup.sh --test   plus the test/lint dependencies
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

# command -> Debian package that provides it
declare -A TOOLS=(
  [fio]=fio [mergerfs]=mergerfs [mkfs.btrfs]=btrfs-progs [mkfs.xfs]=xfsprogs
  [mkfs.ext4]=e2fsprogs [getfattr]=attr [udevadm]=udev [lsscsi]=lsscsi
  [losetup]=mount [lsblk]=util-linux [fusermount3]=fuse3
  [smartctl]=smartmontools  # disk health: --json needs >= 7 (Debian 11 and later)
)
# The mover's tests set ACLs; bench/mover.py measures against rsync.
# The remote-host tests start Debian's OpenSSH server on the loopback; the ladder's
# network rung is tested from a client mounting the lab pool with sshfs.
[ $want_test = 1 ] && TOOLS+=([setfacl]=acl [rsync]=rsync [sshd]=openssh-server [ssh-keygen]=openssh-client [sshfs]=sshfs)
missing_pkgs=()
for tool in "${!TOOLS[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || [ -x "/sbin/$tool" ] \
    || missing_pkgs+=("${TOOLS[$tool]}")
done
python_ok=0
if command -v python3 >/dev/null 2>&1 \
   && python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  python_ok=1
else
  missing_pkgs+=(python3 python3-venv)
fi

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tierdeck setup: installing ${missing_pkgs[*]}" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_pkgs[@]}" >&2
  else
    echo "tierdeck setup: not root (or no apt-get); missing: ${missing_pkgs[*]}" >&2
    echo "  tierdeck still runs; the features that need them say so." >&2
    [ $python_ok = 1 ] || { echo "tierdeck needs Python >= 3.11 with venv" >&2; exit 1; }
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
extras=""
[ $want_test = 1 ] && extras="[test]"
stamp=".venv/.tierdeck-installed${extras}"
# Reinstall only when pyproject.toml changed since the last install.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}" >&2
  touch "$stamp"
fi
