#!/bin/sh
# Install the Haute-Tension event server (docs/event-network.md) on Debian with systemd.
#
#   sudo systemd/install-central.sh --event ID [--no-apt] [--no-start]
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
#      with the user "central"; restarts mosquitto;
#   6. installs hautetension-central.service, enables and (re)starts it.
# --add-board BOARD_ID adds one board's user to the password file (a new random
# password, printed once: give it to that board's install.sh --uplink-password-file)
# and makes Mosquitto read the file again.
#
# TLS for boards over the internet: uncomment the 8883 listener in
# /etc/mosquitto/conf.d/hautetension.conf once the event server's public name has a
# certificate (certbot certonly --standalone -d NAME), then systemctl restart mosquitto.
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

while [ $# -gt 0 ]; do
    case "$1" in
        --event) EVENT="$2"; shift 2 ;;
        --add-board) ADD_BOARD="$2"; shift 2 ;;
        --no-apt) APT=0; shift ;;
        --no-start) START=0; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "install-central.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
is_name() { printf '%s' "$1" | grep -Eqx '[a-z0-9-]{1,40}'; }
if [ -n "$ADD_BOARD" ]; then
    is_name "$ADD_BOARD" && [ "$ADD_BOARD" != central ] || {
        echo "install-central.sh: a board id is 1 to 40 of a-z 0-9 - (and not \"central\")" >&2; exit 2; }
elif ! is_name "$EVENT"; then
    echo "install-central.sh: --event ID (1 to 40 of a-z 0-9 -) is needed" >&2
    exit 2
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
    say "apt-get install python3-venv mosquitto"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv mosquitto
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
    cat > "$ROOT/etc/hautetension/central.toml" <<EOF
# The event server (docs/event-network.md; every key: /etc/hautetension/config.example.toml).
[central]
event = "$EVENT"
host = "0.0.0.0"
port = 8090
broker = "mqtt://127.0.0.1:1883"
username = "central"
password_file = "/etc/hautetension/central-password"
confirm_timeout_s = 300

[panel]
# Set the staff PIN with: hautetension staff set-pin --config /etc/hautetension/central.toml
EOF
    chmod 0640 "$ROOT/etc/hautetension/central.toml"
    chown root:hautetension-central "$ROOT/etc/hautetension/central.toml"
    say "installed /etc/hautetension/central.toml (event $EVENT)"
fi
install -m 0644 "$SOURCE/config.example.toml" "$ROOT/etc/hautetension/config.example.toml"

# 5. Mosquitto for the event
install -d -m 0755 "$ROOT/etc/mosquitto/conf.d"
install -m 0644 "$SOURCE/systemd/mosquitto-hautetension.conf" "$ROOT/etc/mosquitto/conf.d/hautetension.conf"
install -m 0644 "$SOURCE/systemd/mosquitto-hautetension.acl" "$ROOT/etc/mosquitto/hautetension.acl"
if [ ! -e "$PASSWORDS" ]; then
    install -m 0600 /dev/null "$PASSWORDS"
fi
if ! grep -q "^central:" "$PASSWORDS"; then
    mosquitto_passwd -b "$PASSWORDS" central "$password"
    say "added the event server's user to $PASSWORDS"
fi
chown mosquitto:mosquitto "$PASSWORDS"
chmod 0600 "$PASSWORDS"
systemctl enable mosquitto.service
if [ "$START" = 1 ]; then
    systemctl restart mosquitto.service
fi

# 6. the event server's unit
install -d -m 0750 "$ROOT/var/lib/hautetension"
chown hautetension-central:hautetension-central "$ROOT/var/lib/hautetension"
install -d -m 0755 "$ROOT/etc/systemd/system"
install -m 0644 "$SOURCE/systemd/hautetension-central.service" "$ROOT/etc/systemd/system/hautetension-central.service"
systemctl daemon-reload
systemctl enable hautetension-central.service
if [ "$START" = 1 ]; then
    systemctl restart hautetension-central.service
fi
say "done: event $EVENT on http://<this machine>:8090/event; add each board with --add-board BOARD_ID"
