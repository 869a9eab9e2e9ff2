#!/bin/sh
# certbot's deploy hook for the event server (docs/deployment.md): after each renewal of the
# server's certificate, copy it where Mosquitto's user can read it (certbot's own files are
# root's), restart Mosquitto (it reads its certificate at start) and reload nginx.
# Installed as /etc/letsencrypt/renewal-hooks/deploy/hautetension by install-central.sh --domain,
# which also runs it once. certbot sets RENEWED_LINEAGE (/etc/letsencrypt/live/NAME).
set -eu
ROOT="${HT_ROOT:-}"
: "${RENEWED_LINEAGE:?set by certbot: /etc/letsencrypt/live/NAME}"
install -d -m 0750 "$ROOT/etc/mosquitto/certs"
install -m 0644 "$ROOT$RENEWED_LINEAGE/fullchain.pem" "$ROOT/etc/mosquitto/certs/fullchain.pem"
install -m 0640 "$ROOT$RENEWED_LINEAGE/privkey.pem" "$ROOT/etc/mosquitto/certs/privkey.pem"
chown -R root:mosquitto "$ROOT/etc/mosquitto/certs"
systemctl restart mosquitto.service
systemctl reload-or-restart nginx.service
