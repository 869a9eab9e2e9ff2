#!/bin/sh
# Install the Haute-Tension event server (docs/event-network.md) on Debian with systemd.
#
#   sudo systemd/install-central.sh --event ID [--postgresql [--instances N]] [--domain NAME]
#                                   [--no-apt] [--no-start]
#   sudo systemd/install-central.sh --add-board BOARD_ID     # prints that board's new password
#
# What it does, each step safe to repeat (an edited /etc/hautetension/central.toml is
# never overwritten, a password already made is never changed):
#   1. installs python3-venv and mosquitto with apt-get;
#   2. creates the user "hautetension-central" (the event server);
#   3. creates a venv in /opt/hautetension/venv and installs this checkout into it;
#   4. writes /etc/hautetension/central.toml (first run only: [central] event and the
#      server's password file) and the server's MQTT password,
#      /etc/hautetension/central-password (readable by the server only);
#   5. configures Mosquitto for the event: /etc/mosquitto/conf.d/hautetension.conf
#      (listener, no anonymous access), the ACL /etc/mosquitto/hautetension.acl (a board
#      writes only its own topics) and the password file /etc/mosquitto/hautetension.passwd
#      with the user "central" (and "central-1".."central-N" with --postgresql, one per process,
#      their passwords in /etc/hautetension/central-password-N); restarts mosquitto;
#   6. installs hautetension-central.service, enables and (re)starts it.
# --postgresql (several server processes on one database; docs/deployment.md):
#   also installs postgresql, creates the role "hautetension-central" (peer
#   authentication over the local socket) and its database "hautetension", writes
#   [central] database as that DSN (first run only), runs N processes (--instances,
#   1 to 9, default 2) as hautetension-central@1..N.service on 127.0.0.1:8091..809N
#   instead of the single unit, and backs the database up hourly with pg_dump
#   (hautetension-backup.timer, into /var/backups/hautetension, 14 days kept).
# --domain NAME (internet-facing; the certificate must exist first:
#   certbot certonly --standalone -d NAME): nginx with HTTPS in front of the
#   processes (/etc/nginx/conf.d/hautetension-central.conf), Mosquitto with TLS on
#   8883 (its plain listener on loopback only, for the server itself), and certbot's
#   deploy hook that gives Mosquitto each renewed certificate.
# --add-board BOARD_ID adds one board's user to the password file (a new random
# password, printed once: give it to that board's install.sh --uplink-password-file)
# and makes Mosquitto read the file again.
#
#
# HT_ROOT=/some/dir installs under that directory instead of / (used by the tests,
# together with PATH shims for the system commands).
set -eu

ROOT="${HT_ROOT:-}"
PYTHON="${PYTHON:-python3}"
SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="/opt/hautetension"
EVENT=""
ADD_BOARD=""
APT=1
START=1
EXTRAS=""
POSTGRESQL=0
INSTANCES=2
DOMAIN=""
DSN="postgresql://hautetension-central@/hautetension?host=/var/run/postgresql"

while [ $# -gt 0 ]; do
    case "$1" in
        --event) EVENT="$2"; shift 2 ;;
        --add-board) ADD_BOARD="$2"; shift 2 ;;
        --no-apt) APT=0; shift ;;
        --no-start) START=0; shift ;;
        --postgresql) POSTGRESQL=1; shift ;;
        --instances) INSTANCES="$2"; shift 2 ;;
        --domain) DOMAIN="$2"; shift 2 ;;
        -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
        *) echo "install-central.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
is_name() { printf '%s' "$1" | grep -Eqx '[a-z0-9-]{1,40}'; }
if [ -n "$ADD_BOARD" ]; then
    is_name "$ADD_BOARD" && [ "$ADD_BOARD" != central ] && [ "${ADD_BOARD#central-}" = "$ADD_BOARD" ] || {
        echo "install-central.sh: a board id is 1 to 40 of a-z 0-9 - (and not \"central\" or" \
             "\"central-…\", the event server's users)" >&2; exit 2; }
elif ! is_name "$EVENT"; then
    echo "install-central.sh: --event ID (1 to 40 of a-z 0-9 -) is needed" >&2
    exit 2
fi
if ! printf '%s' "$INSTANCES" | grep -Eqx '[1-9]'; then
    echo "install-central.sh: --instances is 1 to 9 (process N listens on 127.0.0.1:809N)" >&2
    exit 2
fi
if [ -n "$DOMAIN" ] && ! printf '%s' "$DOMAIN" | grep -Eqx '[A-Za-z0-9.-]{1,253}'; then
    echo "install-central.sh: --domain is the server's public name, like events.example.org" >&2
    exit 2
fi
if [ -n "$DOMAIN" ] && [ -z "$ADD_BOARD" ] && [ ! -e "$ROOT/etc/letsencrypt/live/$DOMAIN/fullchain.pem" ]; then
    echo "install-central.sh: no certificate for $DOMAIN yet: run certbot certonly --standalone -d $DOMAIN" \
         "first (ports 80 and 443 free), then this again" >&2
    exit 1
fi
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install-central.sh: run it as root (sudo $0 $*)" >&2
    exit 1
fi

say() { echo "install-central.sh: $*"; }
PASSWORDS="$ROOT/etc/mosquitto/hautetension.passwd"
new_password() { head -c 18 /dev/urandom | base64 | tr -d '/+='; }

if [ -n "$ADD_BOARD" ]; then
    if [ ! -e "$PASSWORDS" ]; then
        echo "install-central.sh: install the event server first (--event ID)" >&2
        exit 1
    fi
    if grep -q "^$ADD_BOARD:" "$PASSWORDS"; then
        echo "install-central.sh: board $ADD_BOARD has a password already (mosquitto_passwd -D" \
             "$PASSWORDS $ADD_BOARD removes it)" >&2
        exit 1
    fi
    password="$(new_password)"
    mosquitto_passwd -b "$PASSWORDS" "$ADD_BOARD" "$password"
    systemctl reload-or-restart mosquitto.service
    say "board $ADD_BOARD added. Its password (shown once, put it in a file for install.sh --uplink-password-file):"
    echo "$password"
    exit 0
fi

# 1. packages
if [ "$APT" = 1 ]; then
    packages="python3-venv mosquitto"
    [ "$POSTGRESQL" = 1 ] && packages="$packages postgresql"
    [ -n "$DOMAIN" ] && packages="$packages nginx libnginx-mod-nchan"
    say "apt-get install $packages"
    # shellcheck disable=SC2086  # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages
fi

# 2. the server's user
if getent group hautetension-central >/dev/null; then
    say "group hautetension-central exists"
else
    groupadd --system hautetension-central
    say "created group hautetension-central"
fi
if id -u hautetension-central >/dev/null 2>&1; then
    say "user hautetension-central exists"
else
    useradd --system --gid hautetension-central --home-dir /var/lib/hautetension --no-create-home \
        --shell /usr/sbin/nologin hautetension-central
    say "created user hautetension-central"
fi

# 3. the program
if [ ! -x "$ROOT$PREFIX/venv/bin/python" ]; then
    "$PYTHON" -m venv "$ROOT$PREFIX/venv"
    say "created $PREFIX/venv"
fi
"$ROOT$PREFIX/venv/bin/python" -m pip install -q --upgrade "$SOURCE$EXTRAS"
say "installed $SOURCE$EXTRAS into $PREFIX/venv"

# 4. configuration and the server's password
install -d -m 0755 "$ROOT/etc/hautetension"
if [ -e "$ROOT/etc/hautetension/central-password" ]; then
    say "kept the existing /etc/hautetension/central-password"
    password="$(cat "$ROOT/etc/hautetension/central-password")"
else
    password="$(new_password)"
    (umask 077 && printf '%s\n' "$password" > "$ROOT/etc/hautetension/central-password")
    say "made the event server's MQTT password"
fi
chown hautetension-central:hautetension-central "$ROOT/etc/hautetension/central-password"
chmod 0400 "$ROOT/etc/hautetension/central-password"
if [ -e "$ROOT/etc/hautetension/central.toml" ]; then
    say "kept the existing /etc/hautetension/central.toml"
else
    listen_host="0.0.0.0"
    [ -n "$DOMAIN" ] && listen_host="127.0.0.1"  # behind nginx only
    database_line=""
    [ "$POSTGRESQL" = 1 ] && database_line="database = \"$DSN\""
    proxy_line=""
    [ -n "$DOMAIN" ] && proxy_line='trusted_proxy = "127.0.0.1"'
    publisher_line=""  # behind nginx, nginx holds the live pages: every change is published to it once
    [ -n "$DOMAIN" ] && publisher_line='live_publisher = "http://127.0.0.1:8082/live/publish"'
    cat > "$ROOT/etc/hautetension/central.toml" <<EOF
# The event server (docs/event-network.md, docs/deployment.md; every key:
# /etc/hautetension/config.example.toml).
[central]
event = "$EVENT"
$database_line
host = "$listen_host"
port = 8090
broker = "mqtt://127.0.0.1:1883"
username = "central"
password_file = "/etc/hautetension/central-password"
confirm_timeout_s = 300

[panel]
# One secret key for every server process (a staff session works on any of them).
secret_key_file = "/var/lib/hautetension/panel-secret.key"
$proxy_line
$publisher_line
# Set the staff PIN with: hautetension staff set-pin --config /etc/hautetension/central.toml
EOF
    chmod 0640 "$ROOT/etc/hautetension/central.toml"
    chown root:hautetension-central "$ROOT/etc/hautetension/central.toml"
    say "installed /etc/hautetension/central.toml (event $EVENT)"
fi
install -m 0644 "$SOURCE/config.example.toml" "$ROOT/etc/hautetension/config.example.toml"
if [ "$POSTGRESQL" = 1 ] && ! grep -q '^database = "postgres' "$ROOT/etc/hautetension/central.toml"; then
    say "NOTE: /etc/hautetension/central.toml (kept) has no PostgreSQL database: set" \
        "[central] database = \"$DSN\" in it"
fi

# 4b. PostgreSQL: the server's role (peer authentication: the system user of the same
# name, over the local socket only) and its database.
if [ "$POSTGRESQL" = 1 ]; then
    systemctl enable postgresql.service
    [ "$START" = 1 ] && systemctl start postgresql.service
    pg() { runuser -u postgres -- "$@"; }
    if pg psql -tAc "SELECT 1 FROM pg_roles WHERE rolname = 'hautetension-central'" | grep -qx 1; then
        say "PostgreSQL role hautetension-central exists"
    else
        pg createuser hautetension-central
        say "created PostgreSQL role hautetension-central"
    fi
    if pg psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'hautetension'" | grep -qx 1; then
        say "PostgreSQL database hautetension exists"
    else
        pg createdb --owner hautetension-central hautetension
        say "created PostgreSQL database hautetension"
    fi
fi

# 5. Mosquitto for the event
install -d -m 0755 "$ROOT/etc/mosquitto/conf.d"
if [ -n "$DOMAIN" ]; then
    # Boards over the internet: TLS on 8883; the plain listener for the server processes only.
    sed -e 's/^listener 1883$/listener 1883 127.0.0.1/' \
        -e 's/^#\(listener 8883\|certfile \|keyfile \|tls_version \)/\1/' \
        "$SOURCE/systemd/mosquitto-hautetension.conf" > "$ROOT/etc/mosquitto/conf.d/hautetension.conf"
    chmod 0644 "$ROOT/etc/mosquitto/conf.d/hautetension.conf"
    install -d -m 0755 "$ROOT/etc/letsencrypt/renewal-hooks/deploy"
    install -m 0755 "$SOURCE/systemd/certbot-deploy-hautetension.sh" \
        "$ROOT/etc/letsencrypt/renewal-hooks/deploy/hautetension"
    RENEWED_LINEAGE="/etc/letsencrypt/live/$DOMAIN" HT_ROOT="$ROOT" \
        sh "$SOURCE/systemd/certbot-deploy-hautetension.sh"
    say "Mosquitto listens with TLS on 8883 ($DOMAIN's certificate, renewed by certbot)"
else
    install -m 0644 "$SOURCE/systemd/mosquitto-hautetension.conf" "$ROOT/etc/mosquitto/conf.d/hautetension.conf"
fi
install -m 0644 "$SOURCE/systemd/mosquitto-hautetension.acl" "$ROOT/etc/mosquitto/hautetension.acl"
if [ ! -e "$PASSWORDS" ]; then
    install -m 0600 /dev/null "$PASSWORDS"
fi
if ! grep -q "^central:" "$PASSWORDS"; then
    mosquitto_passwd -b "$PASSWORDS" central "$password"
    say "added the event server's user to $PASSWORDS"
fi
# Several processes: each its own user central-N (the broker pins a client's id to its user, so two
# processes sharing one would close each other's connection) and its own password file, central-password-N
# (what hautetension central --instance N reads: [central] username and password_file, suffixed -N).
if [ "$POSTGRESQL" = 1 ]; then
    n=1
    while [ "$n" -le "$INSTANCES" ]; do
        file="$ROOT/etc/hautetension/central-password-$n"
        if [ ! -e "$file" ]; then
            (umask 077 && new_password > "$file")
            say "made the MQTT password of event server process $n"
        fi
        chown hautetension-central:hautetension-central "$file"
        chmod 0400 "$file"
        if ! grep -q "^central-$n:" "$PASSWORDS"; then
            mosquitto_passwd -b "$PASSWORDS" "central-$n" "$(cat "$file")"
            say "added the user of event server process $n (central-$n) to $PASSWORDS"
        fi
        n=$((n + 1))
    done
fi
chown mosquitto:mosquitto "$PASSWORDS"
chmod 0600 "$PASSWORDS"
systemctl enable mosquitto.service
if [ "$START" = 1 ]; then
    systemctl restart mosquitto.service
fi

# 6. the event server's unit(s)
install -d -m 0750 "$ROOT/var/lib/hautetension"
chown hautetension-central:hautetension-central "$ROOT/var/lib/hautetension"
install -d -m 0755 "$ROOT/etc/systemd/system"
units=""
if [ "$POSTGRESQL" = 1 ]; then
    install -m 0644 "$SOURCE/systemd/hautetension-central@.service" "$ROOT/etc/systemd/system/hautetension-central@.service"
    if [ -e "$ROOT/etc/systemd/system/hautetension-central.service" ]; then
        systemctl disable --now hautetension-central.service
        rm -f "$ROOT/etc/systemd/system/hautetension-central.service"
        say "replaced the single hautetension-central.service by $INSTANCES processes"
    fi
    n=1
    while [ "$n" -le "$INSTANCES" ]; do
        units="$units hautetension-central@$n.service"
        n=$((n + 1))
    done
    # Backups: pg_dump every hour.
    install -d -m 0750 "$ROOT/var/backups/hautetension"
    chown hautetension-central:hautetension-central "$ROOT/var/backups/hautetension"
    install -m 0644 "$SOURCE/systemd/hautetension-backup.service" "$ROOT/etc/systemd/system/hautetension-backup.service"
    install -m 0644 "$SOURCE/systemd/hautetension-backup.timer" "$ROOT/etc/systemd/system/hautetension-backup.timer"
else
    install -m 0644 "$SOURCE/systemd/hautetension-central.service" "$ROOT/etc/systemd/system/hautetension-central.service"
    units="hautetension-central.service"
fi
systemctl daemon-reload
# shellcheck disable=SC2086  # one word per unit
systemctl enable $units
if [ "$POSTGRESQL" = 1 ]; then
    systemctl enable hautetension-backup.timer
fi
if [ "$START" = 1 ]; then
    # shellcheck disable=SC2086
    systemctl restart $units
    [ "$POSTGRESQL" = 1 ] && systemctl start hautetension-backup.timer
fi

# 7. the front server with HTTPS
if [ -n "$DOMAIN" ]; then
    upstreams=""
    if [ "$POSTGRESQL" = 1 ]; then
        n=1
        while [ "$n" -le "$INSTANCES" ]; do
            upstreams="${upstreams}server 127.0.0.1:809$n; "
            n=$((n + 1))
        done
    else
        upstreams="server 127.0.0.1:8090; "
    fi
    install -d -m 0755 "$ROOT/etc/nginx/conf.d" "$ROOT/var/www/letsencrypt"
    sed -e "s/@DOMAIN@/$DOMAIN/g" -e "s/@UPSTREAMS@/$upstreams/" \
        "$SOURCE/systemd/nginx-central.conf.in" > "$ROOT/etc/nginx/conf.d/hautetension-central.conf.new"
    chmod 0644 "$ROOT/etc/nginx/conf.d/hautetension-central.conf.new"
    mv "$ROOT/etc/nginx/conf.d/hautetension-central.conf.new" "$ROOT/etc/nginx/conf.d/hautetension-central.conf"
    if ! nginx -t -q; then
        echo "install-central.sh: nginx refuses its configuration (nginx -t): see above" >&2
        exit 1
    fi
    systemctl enable nginx.service
    systemctl reload-or-restart nginx.service
    say "done: event $EVENT on https://$DOMAIN/event, boards via mqtts://$DOMAIN:8883;" \
        "add each board with --add-board BOARD_ID"
else
    say "done: event $EVENT on http://<this machine>:8090/event; add each board with --add-board BOARD_ID"
fi
