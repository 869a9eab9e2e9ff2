"""Debian's nginx as the panel's front server, from the template the Pi installs.

The server block is ``systemd/nginx-hautetension.conf.in``, rendered exactly as
``systemd/install.sh`` renders it (:func:`render_site`). Around it, this module
writes the main configuration Debian's ``/etc/nginx/nginx.conf`` would give
(``worker_processes auto``, ``worker_connections 768``), except that every file
nginx writes (pid, error and access logs, temporary files) is in the server's
own folder: nginx runs in the foreground (``daemon off``) with ``-p`` and
``-e`` pointing there, so a test never touches ``/var/log`` or ``/run``.

Started as root, nginx drops its workers to ``www-data`` (as on the Pi); the
folder is handed over to that user so the workers can reach their files.
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.servers.process import ServerProcess, find_binary, free_port, hand_over, service_user

INSTALL_HINT = "apt-get install nginx"
TEMPLATE = Path(__file__).resolve().parents[2] / "systemd" / "nginx-hautetension.conf.in"
PUBLISHER = "127.0.0.1:8082"
"""Where install.sh has nginx take the panel's live changes (nchan's publisher)."""
NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so"
"""Debian's libnginx-mod-nchan (loaded by Debian's nginx.conf through modules-enabled/)."""
DEBIAN_WORKER_CONNECTIONS = 768
"""``events { worker_connections }`` in Debian's /etc/nginx/nginx.conf."""
STATUS_COUNT = re.compile(r"(Active|Reading|Writing|Waiting)(?: connections)?:\s*(\d+)")


def nginx_with_nchan() -> str:
    """The path of Debian's nginx when it has the nchan module too; the test is skipped, with the
    install command, where either is missing (``make test`` installs both)."""
    binary = find_binary("nginx")
    if binary is None:
        pytest.skip(f"nginx is missing ({INSTALL_HINT})")
    if not Path(NCHAN_MODULE).exists():
        pytest.skip("nginx's nchan module is missing (tools/ensure_packages.py installs libnginx-mod-nchan)")
    return binary


def render_site(*, listen: str, panel: str, publisher: str = PUBLISHER, template: Path = TEMPLATE) -> str:
    """The template with its placeholders filled, as install.sh's ``sed`` fills them."""
    text = template.read_text().replace("@LISTEN@", listen).replace("@PANEL@", panel)
    text = text.replace("@PUBLISHER@", publisher)
    left = sorted(set(re.findall(r"@[A-Z_]+@", text)))
    if left:
        raise ValueError(f"{template} has placeholders nobody fills: {', '.join(left)}")
    return text


class NginxFront(ServerProcess):
    """nginx on a loopback port in front of the panel at *panel* (``host:port``).

    *status_port*, when given, adds a second server (test-only, not in the
    template) answering nginx's ``stub_status`` there: how many connections
    nginx holds, and in which state, so a test can see the attack is in place.
    """

    name = "nginx"

    def __init__(
        self,
        folder: Path,
        *,
        binary: str,
        panel: str,
        port: int | None = None,
        worker_processes: str = "auto",
        worker_connections: int = DEBIAN_WORKER_CONNECTIONS,
        with_status: bool = False,
    ) -> None:
        super().__init__(folder, port=port)
        self.binary = binary
        self.panel = panel
        self.worker_processes = worker_processes
        self.worker_connections = worker_connections
        self.status_port = free_port() if with_status else None
        self.publisher_port = free_port()
        """Where the panel publishes its live changes to this nginx (nchan's publisher, loopback)."""
        self.config_path = folder / "nginx.conf"
        self.site_path = folder / "hautetension.conf"
        self.run_user = service_user("www-data")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def publisher_url(self) -> str:
        """The panel's ``[panel] live_publisher`` for this nginx."""
        return f"http://{self.host}:{self.publisher_port}/live/publish"

    def command(self) -> Sequence[str]:
        return [
            self.binary,
            "-p",
            f"{self.folder}/",
            "-c",
            str(self.config_path),
            "-e",
            str(self.folder / "error.log"),
            "-g",
            "daemon off;",
        ]

    def start(self) -> None:
        self._write_config()
        super().start()

    def _write_config(self) -> None:
        self.site_path.write_text(render_site(listen=f"{self.host}:{self.port}", panel=self.panel,
                                              publisher=f"{self.host}:{self.publisher_port}"))
        folder = self.folder
        lines = [
            f"load_module {NCHAN_MODULE};",
            f"worker_processes {self.worker_processes};",
            f"pid {folder}/nginx.pid;",
            f"error_log {folder}/error.log warn;",
            f"events {{ worker_connections {self.worker_connections}; }}",
            "http {",
            f"    access_log {folder}/access.log;",
            f"    client_body_temp_path {folder}/body;",
            f"    proxy_temp_path {folder}/proxy;",
            f"    fastcgi_temp_path {folder}/fastcgi;",
            f"    uwsgi_temp_path {folder}/uwsgi;",
            f"    scgi_temp_path {folder}/scgi;",
            "    gzip on;",
            f"    include {self.site_path};",
        ]
        if self.status_port is not None:
            lines.append(
                f"    server {{ listen {self.host}:{self.status_port}; location / {{ stub_status; }} }}"
            )
        lines.append("}")
        if self.run_user is not None:
            lines.insert(0, f"user {self.run_user.pw_name};")
        self.config_path.write_text("\n".join(lines) + "\n")
        hand_over(self.folder, self.run_user)

    def status(self) -> dict[str, int]:
        """nginx's connection counts: ``active``, ``reading`` (a request header), ``writing``, ``waiting``."""
        if self.status_port is None:
            raise RuntimeError("start NginxFront with with_status=True to read its status")
        connection = http.client.HTTPConnection(self.host, self.status_port, timeout=10)
        try:
            connection.request("GET", "/")
            text = connection.getresponse().read().decode()
        finally:
            connection.close()
        return {name.lower(): int(value) for name, value in STATUS_COUNT.findall(text)}
