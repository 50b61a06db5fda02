"""Helpers for the dataset tests: archives built in memory, a web server, a silent server.

Everything served is built from what every clone has (the corpora shipped in data/) or
generated here, so these tests need neither the network nor a shared data folder.
"""
from __future__ import annotations

import hashlib
import http.server
import io
import socket
import tarfile
import threading
import zipfile
from pathlib import Path

from nbcourse import datasets

SHIPPED = datasets.shipped_data_dir()
SMS_FILE = SHIPPED / "sms_spam" / "SMSSpamCollection"
SPAMBASE_FILE = SHIPPED / "spambase" / "spambase.data"
#: Names a mirror serves the corpora under: the last path segment of the original URLs.
SMS_ZIP, SPAMBASE_ZIP, NEWS_ARCHIVE = "sms+spam+collection.zip", "spambase.zip", "20news-bydate.tar.gz"
#: A four-post stand-in for 20 Newsgroups, in the same layout; its digest is computed below.
SMALL_POSTS = {"20news-bydate-train/rec.autos/101": b"engine\r\n",
               "20news-bydate-train/sci.space/7": b"orbit \xe9",
               "20news-bydate-test/rec.autos/102": b"brakes",
               "20news-bydate-test/sci.space/8": b"launch"}


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def tar_gz_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def content_digest(posts: dict[str, bytes]) -> str:
    """The 20 Newsgroups checksum of ``posts``: sha256 of their sorted sha256sum listing."""
    listing = "".join(f"{hashlib.sha256(posts[name]).hexdigest()}  {name}\n" for name in sorted(posts))
    return hashlib.sha256(listing.encode()).hexdigest()


def uci_sms_zip() -> bytes:
    """The SMS Spam Collection as UCI publishes it: SMSSpamCollection and readme in a zip."""
    return zip_bytes({"SMSSpamCollection": SMS_FILE.read_bytes(),
                      "readme": (SHIPPED / "sms_spam" / "readme").read_bytes()})


def uci_spambase_zip() -> bytes:
    return zip_bytes({name: (SHIPPED / "spambase" / name).read_bytes()
                      for name in ("spambase.data", "spambase.names", "spambase.DOCUMENTATION")})


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


class Server:
    """A web server on 127.0.0.1 in a thread: ``routes[path] = (status, body, headers)``.

    Counts the requests it gets, so a test can tell whether the network was touched.
    """

    def __init__(self):
        self.routes: dict[str, tuple[int, bytes, dict]] = {}
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                status, body, headers = server.routes.get(self.path, (404, b"not found", {}))
                self.send_response(status)
                headers = {"Content-Length": str(len(body)), **headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    def serve(self, path: str, body: bytes, status: int = 200, **headers) -> str:
        self.routes[path] = (status, body, headers)
        return self.url + path

    def start(self) -> "Server":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class SilentServer:
    """Accepts TCP connections (the kernel does, from its backlog) and never answers."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"

    def stop(self) -> None:
        self.socket.close()
