"""A real Mosquitto broker for the tests, with users, an ACL and TLS when asked."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.servers.process import ServerError, ServerProcess, free_port, hand_over, is_listening, service_user

INSTALL_HINT = "apt-get install mosquitto"


@dataclass(frozen=True)
class BrokerTls:
    """Certificates of a throwaway certificate authority for the broker's TLS listener."""

    ca_file: Path
    cert_file: Path
    key_file: Path


class MosquittoBroker(ServerProcess):
    """Mosquitto on a loopback port, configured from Python values.

    *users* (name → password) turns anonymous access off and writes a password
    file with ``mosquitto_passwd``; *acl* is the text of an ACL file (the same
    format the event server's installer writes); *tls* adds a TLS listener on
    :attr:`tls_port`. The broker keeps its persistence file in *folder*, so a
    restart after :meth:`stop` finds retained messages and queued sessions.
    """

    name = "mosquitto"

    def __init__(
        self,
        folder: Path,
        *,
        binary: str,
        passwd_binary: str,
        users: Mapping[str, str] | None = None,
        acl: str | None = None,
        tls: BrokerTls | None = None,
        extra: Sequence[str] = (),
        port: int | None = None,
    ) -> None:
        super().__init__(folder, port=port)
        self.binary = binary
        self.passwd_binary = passwd_binary
        self.users = dict(users or {})
        self.acl = acl
        self.tls = tls
        self.tls_port = free_port() if tls else None
        self.extra = list(extra)
        self.config_path = folder / "mosquitto.conf"

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def command(self) -> Sequence[str]:
        return [self.binary, "-c", str(self.config_path)]

    def start(self) -> None:
        self._write_config()
        super().start()

    def wait_ready(self, deadline: float) -> None:
        super().wait_ready(deadline)
        while self.tls_port and not is_listening(self.host, self.tls_port):
            if time.monotonic() > deadline:
                raise ServerError(f"mosquitto's TLS listener is not up: {self.log_tail()}")
            time.sleep(0.05)

    def _write_config(self) -> None:
        lines = [
            "per_listener_settings false",
            f"listener {self.port} {self.host}",
            f"allow_anonymous {'false' if self.users else 'true'}",
            "persistence true",
            f"persistence_location {self.folder}/",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_timestamp_format %H:%M:%S",
        ]
        if self.users:
            password_file = self.folder / "passwords"
            password_file.unlink(missing_ok=True)
            password_file.touch(mode=0o600)
            for user, password in self.users.items():
                subprocess.run(
                    [self.passwd_binary, "-b", str(password_file), user, password],
                    check=True,
                    capture_output=True,
                )
            lines.append(f"password_file {password_file}")
        if self.acl is not None:
            acl_file = self.folder / "acl"
            acl_file.write_text(self.acl)
            lines.append(f"acl_file {acl_file}")
        if self.tls and self.tls_port:
            lines += [
                f"listener {self.tls_port} {self.host}",
                f"cafile {self.tls.ca_file}",
                f"certfile {self.tls.cert_file}",
                f"keyfile {self.tls.key_file}",
                "tls_version tlsv1.2",
            ]
        lines += self.extra
        self.config_path.write_text("\n".join(lines) + "\n")
        # Started as root, Mosquitto drops to its own user (as it does on a
        # server): that user must be able to read the config and write the data.
        hand_over(self.folder, service_user("mosquitto"))
