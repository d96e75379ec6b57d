"""The statement table: every statement form ndbsim answers, registered by the module of its
family, and the one function that finds a statement's form and runs it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ndbsim.engine.translate import parse
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import words

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState
    from ndbsim.protocol.statements.results import WireResult


@dataclass
class Statement:
    """One statement on its way to the handler of its form."""

    session: SessionState
    sql: str  # as sent, versioned comments applied
    keyword: str  # its first word, lower case
    match: re.Match | None  # the form's pattern on it
    warnings: list[tuple[str, int, str]]  # the notes it leaves in the diagnostics area

    @property
    def text(self) -> str:
        return words(self.sql)


Handler = Callable[[Statement], Awaitable["WireResult | None"]]


@dataclass(frozen=True)
class Form:
    pattern: re.Pattern
    raw: bool  # matched against the statement as sent rather than its words
    handler: Handler


_FORMS: dict[str, list[Form]] = {}  # first word -> its forms with a pattern, in order
_ANY: dict[str, Handler] = {}  # first word -> the handler of every other statement it starts


def statement(*keywords: str, pattern: re.Pattern | None = None, raw: bool = False):
    """Register the decorated handler for the statements starting with one of `keywords` that
    `pattern` matches (on their words, see sqltext.words, or with raw=True on the text as
    sent); without a pattern, for every statement of those keywords no pattern matched."""

    def register(handler: Handler) -> Handler:
        for keyword in keywords:
            if pattern is None:
                assert keyword not in _ANY, f"two handlers for every {keyword.upper()}"
                _ANY[keyword] = handler
            else:
                _FORMS.setdefault(keyword, []).append(Form(pattern, raw, handler))
        return handler

    return register


async def dispatch(
    session: SessionState, keyword: str, sql: str, warnings: list
) -> WireResult | None:
    """Run the statement by the first of its keyword's forms that matches it."""
    text = words(sql)
    for form in _FORMS.get(keyword, ()):
        if m := form.pattern.match(sql if form.raw else text):
            return await form.handler(Statement(session, sql, keyword, m, warnings))
    handler = _ANY.get(keyword)
    if handler is None:
        parse(sql)  # syntax errors first, like mysqld
        raise SqlError(1235, f"This version of MySQL doesn't yet support '{keyword.upper()}'")
    return await handler(Statement(session, sql, keyword, None, warnings))
