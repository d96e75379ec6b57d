"""Masking secrets in log and error text: short secrets do not garble words, anything that
looks like a password value is masked."""

from __future__ import annotations

import pytest
from ndbinfo_exporter import logs


@pytest.fixture(autouse=True)
def _secrets(monkeypatch):
    monkeypatch.setattr(logs, "_secrets", set())


def test_a_one_letter_password_does_not_garble_words():
    logs.add_secret("x")
    assert logs.redact("ndbinfo_exporter started") == "ndbinfo_exporter started"
    assert logs.redact("user exporter password x") == "user exporter password <secret>"
    assert logs.redact("'x'") == "'<secret>'"


def test_a_long_password_is_masked_anywhere():
    logs.add_secret("hunter2-long")
    assert logs.redact("abchunter2-longxyz") == "abc<secret>xyz"


@pytest.mark.parametrize(
    "text",
    [
        "bad option password=s3cr3t-value in line",
        "PASSWORD: 's3cr3t-value'",
        'pwd="s3cr3t-value"',
    ],
)
def test_password_values_are_masked_even_when_unknown(text):
    assert "s3cr3t-value" not in logs.redact(text)


def test_using_password_yes_stays_readable():
    text = "Access denied for user 'u'@'h' (using password: YES)"
    assert logs.redact(text) == text
