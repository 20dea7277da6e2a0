#!/usr/bin/env bash
# Make sure RabbitMQ, MariaDB and PostgreSQL answer on 127.0.0.1.
#
# A service whose port answers is left alone. Otherwise, if its server is
# installed, it is started and waited for (bounded by
# STACKLITE_SERVICE_TIMEOUT seconds, default 60). A service that is not
# installed or does not come up is an error: nothing is skipped.
# (tools/install-packages.sh installs the servers on a fresh Debian.)
#
# Then the logins the tests use are tried (tools/check_test_logins.py,
# with the project's .venv when there is one): MariaDB root and
# PostgreSQL postgres without a password, RabbitMQ guest/guest.
#
#   tools/ensure-services.sh [--only RabbitMQ|MariaDB|PostgreSQL]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ONLY=
case "${1:-}" in
    --only) ONLY="${2:?--only needs a service name}" ;;
    '') ;;
    *) echo "usage: $0 [--only RabbitMQ|MariaDB|PostgreSQL]" >&2; exit 2 ;;
esac

TIMEOUT="${STACKLITE_SERVICE_TIMEOUT:-60}"
RABBIT_PORT=5672
MYSQL_PORT=3306
PG_PORT=5432
FAILED=()

log() { echo "ensure-services: $*"; }
err() { echo "ensure-services: ERROR: $*" >&2; }

port_open() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1
}

wait_port() {  # name port
    local deadline=$((SECONDS + TIMEOUT))
    until port_open "$2"; do
        if ((SECONDS >= deadline)); then
            err "$1 did not open 127.0.0.1:$2 within ${TIMEOUT}s"
            return 1
        fi
        sleep 1
    done
    log "$1 is up on 127.0.0.1:$2"
}

start_rabbitmq() {
    command -v rabbitmq-server >/dev/null 2>&1 || {
        err "RabbitMQ is not installed (no rabbitmq-server);" \
            "install the rabbitmq-server package"
        return 1
    }
    log "starting RabbitMQ"
    rabbitmq-server -detached || { err "rabbitmq-server -detached failed"; return 1; }
    wait_port RabbitMQ "$RABBIT_PORT" || return 1
    timeout "$TIMEOUT" rabbitmqctl await_startup >/dev/null || {
        err "rabbitmqctl await_startup failed"; return 1; }
}

start_mariadb() {
    local mariadbd
    mariadbd="$(PATH="$PATH:/usr/sbin" command -v mariadbd)" || {
        err "MariaDB is not installed (no mariadbd);" \
            "install the mariadb-server package"
        return 1
    }
    local as_user=() output
    if (($(id -u) == 0)) && id mysql >/dev/null 2>&1; then
        install -d -o mysql -g mysql /run/mysqld
        # mariadbd refuses to run as root ("Please consult the MariaDB
        # Documentation to find out how to run mariadbd as root!"); the
        # systemd unit and mysqld_safe run it as mysql, so does this.
        as_user=(--user=mysql)
    fi
    # (--background would send its complaints to /dev/null)
    output="$(mktemp -t stacklite-mariadbd.XXXXXX.log)"
    log "starting MariaDB (its output: $output)"
    start-stop-daemon --start --oknodo --background --output "$output" \
        --exec "$mariadbd" -- "${as_user[@]}" \
        || { err "starting mariadbd failed"; return 1; }
    wait_port MariaDB "$MYSQL_PORT" || {
        err "mariadbd's last words ($output):"
        tail -n 20 "$output" >&2
        return 1
    }
}

start_postgresql() {
    local version
    version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
    if ! command -v pg_ctlcluster >/dev/null 2>&1 || [[ -z "$version" ]]; then
        err "PostgreSQL is not installed (no pg_ctlcluster or cluster in" \
            "/etc/postgresql); install the postgresql package"
        return 1
    fi
    log "starting PostgreSQL $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || {
        err "pg_ctlcluster $version main start failed"; return 1; }
    wait_port PostgreSQL "$PG_PORT"
}

ensure() {  # name port start-function
    [[ -z "$ONLY" || "$ONLY" == "$1" ]] || return 0
    if port_open "$2"; then
        log "$1 is up on 127.0.0.1:$2"
    elif ! "$3"; then
        FAILED+=("$1")
    fi
}

ensure RabbitMQ "$RABBIT_PORT" start_rabbitmq
ensure MariaDB "$MYSQL_PORT" start_mariadb
ensure PostgreSQL "$PG_PORT" start_postgresql

if ((${#FAILED[@]})); then
    err "not available: ${FAILED[*]} (tools/install-packages.sh installs" \
        "what is missing, or says what to install)"
    exit 1
fi
[[ -n "$ONLY" ]] && exit 0
log "all services up"
if [[ -x "$ROOT/.venv/bin/python" ]]; then
    "$ROOT/.venv/bin/python" "$ROOT/tools/check_test_logins.py" || {
        err "a server refuses the login the tests use (see above and" \
            "doc/source/contributor/testing.rst)"
        exit 1
    }
else
    log "no $ROOT/.venv yet: logins not checked (tools/setup-venv.sh --test)"
fi
