#!/usr/bin/env bash
# The Debian packages that tools/run-tests.sh needs, before anything else
# (with --aio: the few that tools/aio.sh's all-in-one uses, see below).
#
# Checks for: a Python >= 3.11 that can make a virtualenv (python3,
# python3-venv), git (pbr and reno read the history), and the servers of
# the database and integration tests: RabbitMQ, MariaDB, PostgreSQL;
# qemu-img (qemu-utils), which the bare metal agent converts qcow2 images
# with; sfdisk (fdisk), which it adds the config drive partition with;
# mkfs.vfat (dosfstools) and mkfs.ext4 (e2fsprogs), which it makes a
# partition image's EFI system and ephemeral partitions with;
# and what the install guide's commands call, which test_install_guide
# runs as written: curl, openssl and the MariaDB client (mysql).
# (Debian's minimal system, a container's or debootstrap's, has none of
# curl, openssl and mysql.) A server whose port already answers on
# 127.0.0.1 needs no package
# (but rabbitmqctl is always needed: the integration tests make vhosts).
#
# When something is missing:
#   - as root with apt-get, and STACKLITE_INSTALL_PACKAGES is not 0: it is
#     installed without a prompt; a MariaDB or PostgreSQL server installed
#     here is started and given the logins the tests use (see
#     doc/source/contributor/testing.rst);
#   - otherwise: one message with the apt-get command to run and the
#     logins to set up, and exit 1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MISSING=()

log() { echo "install-packages: $*"; }
err() { echo "install-packages: ERROR: $*" >&2; }

port_open() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1
}

# (sbin too: a user's PATH may leave it out, and the servers' programs
# are there)
have() { PATH="$PATH:/usr/sbin:/sbin" command -v "$1" >/dev/null 2>&1; }

python_usable() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [[ -n "$candidate" ]] && have "$candidate" || continue
        # ensurepip is what Debian leaves out of python3 without
        # python3-venv; "python3 -m venv" fails without it.
        "$candidate" -c 'import sys, ensurepip, venv
sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1 \
            && return 0
    done
    return 1
}

postgresql_installed() {
    have pg_ctlcluster && [[ -n "$(ls /etc/postgresql 2>/dev/null)" ]]
}

python_usable || MISSING+=(python3 python3-venv)
have qemu-img || MISSING+=(qemu-utils)
have sfdisk || MISSING+=(fdisk)
have mkfs.vfat || MISSING+=(dosfstools)
have mkfs.ext4 || MISSING+=(e2fsprogs)

# --aio (tools/aio.sh): what the all-in-one uses besides Python:
# qemu-img for the local driver's snapshots and the emulated machines'
# qcow2 images, sfdisk for their config drives, mkfs.vfat/mkfs.ext4 for
# partition images. Installed as root with
# apt-get; otherwise a warning (the all-in-one runs without them; those
# operations fail with a message naming the package).
if [[ ${1:-} == --aio ]]; then
    if ((${#MISSING[@]} == 0)); then
        exit 0
    fi
    if [[ ${STACKLITE_INSTALL_PACKAGES:-1} == 0 ]] || (($(id -u) != 0)) \
        || ! have apt-get; then
        log "WARNING: missing Debian packages: ${MISSING[*]} (snapshots and" \
            "the emulated machines' qcow2 images and config drives need" \
            "them): sudo apt-get install -y ${MISSING[*]}"
        exit 0
    fi
    log "installing ${MISSING[*]} (apt-get, as root; STACKLITE_INSTALL_PACKAGES=0 to refuse)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${MISSING[@]}"
    exit 0
fi

have git || MISSING+=(git)
have rabbitmqctl || MISSING+=(rabbitmq-server)
have curl || MISSING+=(curl)
have openssl || MISSING+=(openssl)
if ! port_open 3306 && ! have mariadbd; then
    MISSING+=(mariadb-server)
elif ! have mysql; then
    MISSING+=(mariadb-client)
fi
if ! port_open 5432 && ! postgresql_installed; then
    MISSING+=(postgresql)
fi

if ((${#MISSING[@]} == 0)); then
    log "the packages the tests need are installed"
    exit 0
fi

LOGINS="The tests then log in, on 127.0.0.1, as:
  MariaDB    (3306): user root, no password, allowed to create databases
             (as root: mariadb -e \"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
             ALTER USER 'root'@'localhost' IDENTIFIED BY '';
             ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '';
             GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION\")
  PostgreSQL (5432): user postgres, no password (trust): first line of
             /etc/postgresql/*/main/pg_hba.conf:
             host all postgres 127.0.0.1/32 trust
  RabbitMQ   (5672): user guest, password guest (Debian's default), and
             rabbitmqctl usable by the user running the tests
(other servers: STACKLITE_TEST_MYSQL and STACKLITE_TEST_POSTGRES, see
doc/source/contributor/testing.rst)"

if [[ ${STACKLITE_INSTALL_PACKAGES:-1} == 0 ]] || (($(id -u) != 0)) \
    || ! have apt-get; then
    err "missing Debian packages: ${MISSING[*]}
Install them with:
  sudo apt-get update && sudo apt-get install -y ${MISSING[*]}
(run as root, tools/run-tests.sh installs them itself; \
STACKLITE_INSTALL_PACKAGES=0 stops it from doing so)
$LOGINS"
    exit 1
fi

log "installing ${MISSING[*]} (apt-get, as root; STACKLITE_INSTALL_PACKAGES=0 to refuse)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${MISSING[@]}"

# Servers installed just now get the logins the tests use; servers that
# were there before are left as their owner set them up.
configure_mariadb() {
    "$ROOT/tools/ensure-services.sh" --only MariaDB
    log "MariaDB: root logs in from 127.0.0.1 without a password"
    mariadb -u root -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
        ALTER USER 'root'@'localhost' IDENTIFIED BY '';
        ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '';
        GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
}

configure_postgresql() {
    local version hba
    version="$(ls /etc/postgresql | sort -V | tail -n 1)"
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    log "PostgreSQL: postgres logs in from 127.0.0.1 without a password ($hba)"
    sed -i '1i host all postgres 127.0.0.1/32 trust' "$hba"
    "$ROOT/tools/ensure-services.sh" --only PostgreSQL
    pg_ctlcluster --skip-systemctl-redirect "$version" main reload
}

for package in "${MISSING[@]}"; do
    case "$package" in
        mariadb-server) configure_mariadb ;;
        postgresql) configure_postgresql ;;
    esac
done
log "installed: ${MISSING[*]}"
