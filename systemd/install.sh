#!/bin/sh
# Install the Haute-Tension controller on Raspberry Pi OS (or any Debian with systemd).
#
#   sudo systemd/install.sh [--backend gpio|serial|sim] [--kiosk] [--no-apt] [--no-start]
#       [--uplink --event ID --board-id ID --broker URL [--uplink-password-file FILE] [--ca-file FILE]]
#
# What it does, each step safe to repeat (running the script twice changes nothing
# the second time, and an edited /etc/hautetension/config.toml is never overwritten):
#   1. installs python3-venv, nginx (and cage + chromium with --kiosk) with apt-get;
#   2. creates the group "hautetension", the user "hautetension" (the board service,
#      also in the gpio and dialout groups), "hautetension-panel" (the web panel) and,
#      with --kiosk, "hautetension-kiosk" (the display);
#   3. creates a venv in /opt/hautetension/venv, compiles the panel's translation
#      catalogues and installs this checkout into it (with the "pi" extra: lgpio / RPi.GPIO);
#   4. installs the example configuration as /etc/hautetension/config.toml (first run
#      only, with [board] backend set from --backend) and, always, as
#      /etc/hautetension/config.example.toml for reference;
#   5. creates /var/lib/hautetension and the database file, group-writable, so the
#      board service and the panel (two users, one group) share it;
#   6. installs the unit files, reloads systemd, enables and (re)starts the units;
#   7. puts the panel behind nginx, the front server the kiosk and the local network
#      use (port 8080; the panel itself listens on 127.0.0.1:8081 only): writes
#      /etc/nginx/conf.d/hautetension.conf from systemd/nginx-hautetension.conf.in,
#      checks it with nginx -t, enables nginx and reloads it;
#   8. with --uplink (the board joins an event, docs/event-network.md): the user
#      "hautetension-uplink", the board's MQTT password in /etc/hautetension/uplink-password
#      (readable by that user only; from --uplink-password-file, which install-central.sh
#      --add-board printed on the event server; kept when already there), the event's
#      certificate authority with --ca-file (mqtts:// with a private authority), the
#      [uplink] keys of config.toml set, and hautetension-uplink.service enabled and started.
#
# HT_ROOT=/some/dir installs under that directory instead of / (used by the tests,
# together with PATH shims for the system commands).
set -eu

ROOT="${HT_ROOT:-}"
PYTHON="${PYTHON:-python3}"
SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="/opt/hautetension"
BACKEND="gpio"
KIOSK=0
APT=1
START=1
EXTRAS="[pi]"
UPLINK=0
EVENT=""
BOARD_ID=""
BROKER=""
UPLINK_PASSWORD_FILE=""
CA_FILE=""
# The front server's port (what the kiosk unit and the docs use) and the panel's own
# address behind it (what hautetension-panel.service's ExecStart passes: keep them equal).
FRONT_PORT=8080
PANEL_ADDRESS="127.0.0.1:8081"
PUBLISHER_ADDRESS="127.0.0.1:8082"  # nginx's nchan publisher, loopback only

while [ $# -gt 0 ]; do
    case "$1" in
        --backend) BACKEND="$2"; shift 2 ;;
        --backend=*) BACKEND="${1#--backend=}"; shift ;;
        --kiosk) KIOSK=1; shift ;;
        --no-apt) APT=0; shift ;;
        --no-start) START=0; shift ;;
        --no-pi-extra) EXTRAS=""; shift ;;
        --uplink) UPLINK=1; shift ;;
        --event) EVENT="$2"; shift 2 ;;
        --board-id) BOARD_ID="$2"; shift 2 ;;
        --broker) BROKER="$2"; shift 2 ;;
        --uplink-password-file) UPLINK_PASSWORD_FILE="$2"; shift 2 ;;
        --ca-file) CA_FILE="$2"; shift 2 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$BACKEND" in
    gpio|serial|sim) ;;
    *) echo "install.sh: --backend is gpio, serial or sim, not $BACKEND" >&2; exit 2 ;;
esac
is_name() { printf '%s' "$1" | grep -Eqx '[a-z0-9-]{1,40}'; }
if [ "$UPLINK" = 1 ]; then
    is_name "$EVENT" || { echo "install.sh: --uplink needs --event ID (1 to 40 of a-z 0-9 -)" >&2; exit 2; }
    is_name "$BOARD_ID" || { echo "install.sh: --uplink needs --board-id ID (1 to 40 of a-z 0-9 -)" >&2; exit 2; }
    case "$BROKER" in
        mqtt://?*|mqtts://?*) ;;
        *) echo "install.sh: --uplink needs --broker mqtt://HOST:PORT or mqtts://HOST:PORT" >&2; exit 2 ;;
    esac
    if [ -z "$UPLINK_PASSWORD_FILE" ] && [ ! -e "$ROOT/etc/hautetension/uplink-password" ]; then
        echo "install.sh: --uplink needs --uplink-password-file FILE: the password install-central.sh" \
             "--add-board $BOARD_ID printed on the event server" >&2
        exit 2
    fi
fi
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo $0 $*)" >&2
    exit 1
fi

say() { echo "install.sh: $*"; }

# 1. packages
if [ "$APT" = 1 ]; then
    packages="python3-venv python3-dev nginx libnginx-mod-nchan"
    [ "$KIOSK" = 1 ] && packages="$packages cage chromium"
    say "apt-get install $packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages
fi

# 2. users and groups
ensure_group() {
    if getent group "$1" >/dev/null; then
        say "group $1 exists"
    else
        groupadd --system "$1"
        say "created group $1"
    fi
}
ensure_user() {  # name, home
    if id -u "$1" >/dev/null 2>&1; then
        say "user $1 exists"
    else
        useradd --system --gid hautetension --home-dir "$2" --no-create-home --shell /usr/sbin/nologin "$1"
        say "created user $1"
    fi
}
ensure_group hautetension
ensure_group gpio
ensure_group dialout
ensure_user hautetension /var/lib/hautetension
usermod -a -G gpio,dialout hautetension
ensure_user hautetension-panel /var/lib/hautetension
if [ "$KIOSK" = 1 ]; then
    ensure_user hautetension-kiosk /var/lib/hautetension-kiosk
    # cage needs a seat: video, input and render devices.
    for group in video input render; do
        getent group "$group" >/dev/null && usermod -a -G "$group" hautetension-kiosk
    done
    install -d -m 0750 "$ROOT/var/lib/hautetension-kiosk"
    chown hautetension-kiosk:hautetension "$ROOT/var/lib/hautetension-kiosk"
fi

# 3. the program, in its own venv
if [ ! -x "$ROOT$PREFIX/venv/bin/python" ]; then
    "$PYTHON" -m venv "$ROOT$PREFIX/venv"
    say "created $PREFIX/venv"
fi
# The panel's compiled translation catalogues (.mo) are built from the checkout's .po files
# (they are not in git), before the checkout is installed with them.
"$ROOT$PREFIX/venv/bin/python" -m pip install -q babel
"$ROOT$PREFIX/venv/bin/python" "$SOURCE/tools/catalogs.py" compile --force
"$ROOT$PREFIX/venv/bin/python" -m pip install -q --upgrade "$SOURCE$EXTRAS"
say "installed $SOURCE$EXTRAS into $PREFIX/venv"

# 4. configuration
install -d -m 0755 "$ROOT/etc/hautetension"
install -m 0644 "$SOURCE/config.example.toml" "$ROOT/etc/hautetension/config.example.toml"
if [ -e "$ROOT/etc/hautetension/config.toml" ]; then
    say "kept the existing /etc/hautetension/config.toml"
else
    # Behind nginx, nginx holds the live pages: the panel publishes each change to it once.
    sed -e "s/^backend = \"sim\"/backend = \"$BACKEND\"/" \
        -e "s|^live_publisher = \"\"|live_publisher = \"http://$PUBLISHER_ADDRESS/live/publish\"|" \
        "$SOURCE/config.example.toml" \
        > "$ROOT/etc/hautetension/config.toml"
    chmod 0640 "$ROOT/etc/hautetension/config.toml"
    chown root:hautetension "$ROOT/etc/hautetension/config.toml"
    say "installed /etc/hautetension/config.toml (backend $BACKEND): edit it for your board"
fi

# 5. the shared database
install -d -m 0770 "$ROOT/var/lib/hautetension"
chown hautetension:hautetension "$ROOT/var/lib/hautetension"
if [ ! -e "$ROOT/var/lib/hautetension/hautetension.db" ]; then
    # An empty file is an empty SQLite database; its -wal and -shm files inherit this mode.
    install -m 0660 /dev/null "$ROOT/var/lib/hautetension/hautetension.db"
    chown hautetension:hautetension "$ROOT/var/lib/hautetension/hautetension.db"
    say "created /var/lib/hautetension/hautetension.db"
fi

# 6. units
units="hautetension-board.service hautetension-panel.service"
[ "$KIOSK" = 1 ] && units="$units hautetension-kiosk.service"
install -d -m 0755 "$ROOT/etc/systemd/system"
for unit in $units; do
    install -m 0644 "$SOURCE/systemd/$unit" "$ROOT/etc/systemd/system/$unit"
done
systemctl daemon-reload
systemctl enable $units
if [ "$START" = 1 ]; then
    systemctl restart $units
    say "started $units"
fi

# 7. the front server
install -d -m 0755 "$ROOT/etc/nginx/conf.d"
sed -e "s|@LISTEN@|$FRONT_PORT|g" -e "s|@PANEL@|$PANEL_ADDRESS|g" -e "s|@PUBLISHER@|$PUBLISHER_ADDRESS|g" \
    "$SOURCE/systemd/nginx-hautetension.conf.in" > "$ROOT/etc/nginx/conf.d/hautetension.conf.new"
chmod 0644 "$ROOT/etc/nginx/conf.d/hautetension.conf.new"
mv "$ROOT/etc/nginx/conf.d/hautetension.conf.new" "$ROOT/etc/nginx/conf.d/hautetension.conf"
say "installed /etc/nginx/conf.d/hautetension.conf (port $FRONT_PORT, panel at $PANEL_ADDRESS)"
if ! nginx -t -q; then
    echo "install.sh: nginx refuses its configuration (nginx -t above says why)" >&2
    exit 1
fi
systemctl enable nginx.service
if [ "$START" = 1 ]; then
    systemctl reload-or-restart nginx.service
    say "front server: http://<this machine>:$FRONT_PORT/"
fi

# 8. the uplink to the event server
set_uplink_key() {  # key, value: within [uplink] of config.toml, the key's line (commented or not)
    sed -i "/^\[uplink\]/,/^\[/ s|^#\{0,1\} *$1 = .*|$1 = \"$2\"|" "$ROOT/etc/hautetension/config.toml"
    if ! sed -n '/^\[uplink\]/,/^\[/p' "$ROOT/etc/hautetension/config.toml" | grep -q "^$1 = \"$2\""; then
        echo "install.sh: could not set [uplink] $1 in /etc/hautetension/config.toml: set it by hand" >&2
        exit 1
    fi
}
if [ "$UPLINK" = 1 ]; then
    ensure_user hautetension-uplink /var/lib/hautetension
    if [ -n "$UPLINK_PASSWORD_FILE" ]; then
        install -m 0400 "$UPLINK_PASSWORD_FILE" "$ROOT/etc/hautetension/uplink-password"
        say "installed the board's password as /etc/hautetension/uplink-password"
    else
        say "kept the existing /etc/hautetension/uplink-password"
    fi
    chown hautetension-uplink:hautetension "$ROOT/etc/hautetension/uplink-password"
    set_uplink_key event "$EVENT"
    set_uplink_key board_id "$BOARD_ID"
    set_uplink_key broker "$BROKER"
    set_uplink_key password_file /etc/hautetension/uplink-password
    if [ -n "$CA_FILE" ]; then
        install -m 0644 "$CA_FILE" "$ROOT/etc/hautetension/event-ca.pem"
        set_uplink_key ca_file /etc/hautetension/event-ca.pem
    fi
    install -m 0644 "$SOURCE/systemd/hautetension-uplink.service" "$ROOT/etc/systemd/system/hautetension-uplink.service"
    systemctl daemon-reload
    systemctl enable hautetension-uplink.service
    if [ "$START" = 1 ]; then
        systemctl restart hautetension-uplink.service
    fi
    say "uplink: board $BOARD_ID of event $EVENT via $BROKER (systemctl status hautetension-uplink)"
fi
say "done: board service and panel enabled (systemctl status hautetension-board hautetension-panel)"
