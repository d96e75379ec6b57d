"""What a web configuration file refers to: a self-signed certificate for 127.0.0.1 and
localhost, and a basic-auth password with its bcrypt hash."""

from __future__ import annotations

import subprocess

import bcrypt

WEB_PASSWORD = "web-pw-K2"


def make_cert(directory):
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", str(directory / "key.pem"), "-out", str(directory / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return directory / "cert.pem", directory / "key.pem"


def bcrypt_hash(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
