"""my.cnf files read by the exporter exactly as the Debian mariadb client reads them
(``my_print_defaults``), and the mistakes the client refuses refused too."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.mycnf import USED, load

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("my_print_defaults") is None, reason="no mariadb client"),
]

CORPUS = {
    "indented password": "[client]\nuser = exporter\n    password = s3cret\n\thost = h1\n",
    "comments": (
        "# top\n[client]\n  # indented comment\n; semicolon\nuser = u # trailing\n"
        'password = "p#ss" # after quotes\nhost = a;b\n'
    ),
    "escapes": "[client]\npassword = a\\sb\\tc\\qd\\\\e\\\"f\nuser = x\\'y\n",
    "quotes": (
        "[client]\npassword = 'say \"hi\"'\nuser = \"it's\"\nhost = 'unclosed\n"
        'socket = "trailing space "   \n'
    ),
    "equals in value": "[client]\npassword = a=b=c\nuser=u\n",
    "empty and bare": "[client]\npassword =\nuser = u\n[client]\npassword\n",
    "crlf": "[client]\r\nuser = u\r\npassword = p w\r\n",
    "section spelling": "[CLIENT ]\nuser = upper\n[client]\nport = 3307\n",
    "last value wins": "[client]\nuser = a\nhost = h\n[mysqld]\nuser = mysql\n[client]\nuser = b\n",
    "underscores and loose": (
        "[client]\nssl_ca = /ca.pem\nssl-cert = /c.pem\nloose-not-an-option = 1\n"
        "loose-probe-targets = a:1\nskip-ssl\ndefault-character-set = utf8mb4\n"
    ),
    "unicode": "[client]\nuser = ünïcode\npassword = пароль\n",
    "auth module": "[client]\nuser = u\n[client.site2]\nuser = v\npassword = w\nhost = sql2\n",
}


def client_reads(path, group: str) -> dict[str, str]:
    """The options of ``group`` the exporter uses, as my_print_defaults prints them."""
    out = subprocess.run(
        ["my_print_defaults", f"--defaults-file={path}", group],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    values: dict[str, str] = {}
    for line in out.splitlines():
        name, _, value = line.removeprefix("--").partition("=")
        name = name.replace("_", "-")
        if name in USED:
            values[name] = value
    return values


def exporter_reads(section) -> dict[str, str]:
    values = {}
    for name in USED:
        value = getattr(section, name.replace("-", "_"))
        if value is not None:
            values[name] = str(value)
    return values


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_read_as_the_client_reads_it(tmp_path, name):
    path = tmp_path / "my.cnf"
    path.write_text(CORPUS[name], encoding="utf-8")
    sections = load(path)
    for group, section in sections.items():
        assert exporter_reads(section) == client_reads(path, group), group


def test_includes_read_as_the_client_reads_them(tmp_path):
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.cnf").write_text("[client]\nhost = from-a\n")
    (tmp_path / "conf.d" / "b.cnf").write_text("[client]\nport = 3311\n")
    (tmp_path / "conf.d" / "skipped.txt").write_text("[client]\nport = 1\n")
    (tmp_path / "more.cnf").write_text("[client]\npassword = included\n")
    path = tmp_path / "my.cnf"
    path.write_text(
        f"[client]\nuser = u\n!includedir {tmp_path / 'conf.d'}\n!include {tmp_path / 'more.cnf'}\n"
    )
    assert exporter_reads(load(path)["client"]) == client_reads(path, "client")


@pytest.mark.parametrize(
    ("content", "client_says", "exporter_says"),
    [
        ("[client\nuser = u\n", "Wrong group definition", "line 1: section header without ']'"),
        ("user = u\n[client]\n", "without preceding group", "line 1: option before the first"),
        ("[client]\n!include\n", "Wrong '!include' directive", "line 2: expected '!include"),
        ("[client]\npasword = x\n", "unknown variable", "line 2: unknown option 'pasword'"),
        ("[client]\nuser_name = x\n", "unknown variable", "line 2: unknown option 'user_name'"),
    ],
)
def test_refused_as_the_client_refuses(tmp_path, content, client_says, exporter_says):
    path = tmp_path / "my.cnf"
    path.write_text(content)
    client = subprocess.run(
        ["mariadb", f"--defaults-file={path}", "--host=127.0.0.1", "--port=1", "-e", ""],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert client.returncode != 0
    assert client_says in client.stdout + client.stderr
    with pytest.raises(ConfigError) as error:
        load(path)
    assert exporter_says in str(error.value)
    assert str(path) in str(error.value)
