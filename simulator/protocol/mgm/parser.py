"""ndb_mgmd's request parser (storage/ndb/src/common/util/Parser.cpp, ParserImpl::run): a
command line, argument lines `name: value` (or `name=value`) up to a blank line, each checked
against the command's MGM_ARG rows; and the one-line errors the session answers for what it
refuses (MgmApiSession::runSession: `result: <what>, '<token>'` and a blank line)."""

from __future__ import annotations

import re

from ndbsim.protocol.mgm.tables import Argument

UNKNOWN_COMMAND = "Unknown command"
UNKNOWN_ARGUMENT = "Unknown argument"
TYPE_MISMATCH = "Type mismatch"
ARGUMENT_GIVEN_TWICE = "Argument given twice"
MISSING_ARGUMENT = "Missing arg."
_UINT = re.compile(r"[ \t\n\r\f\v]*([+-]?)(\d+)")
U32 = 1 << 32
U64_MAX = (1 << 64) - 1


class ParseError(ValueError):
    """A request the parser refuses: what (the server's words) and the token it names."""

    def __init__(self, what: str, token: str | None) -> None:
        super().__init__(what)
        self.what = what
        self.token = token

    def reply(self) -> list[str]:
        token = self.token if self.token is not None else "<NULL>"
        return [f"result: {self.what}, '{token}'", ""]


def is_empty(line: str) -> bool:
    """Parser.cpp Empty(): a line of spaces, tabs and newlines only ends the arguments."""
    return line != "" and not line.strip(" \t\n")


def trim(text: str) -> str:
    """Parser.cpp trim(): trailing newlines, spaces and tabs, leading spaces and tabs, then one
    pair of surrounding double quotes (how ndb_mgm_call sends strings: `name:"value"`)."""
    text = text.rstrip("\n \t").lstrip(" \t")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text


def scan_uint(text: str) -> int | None:
    """sscanf("%u"): leading blanks, an optional sign, digits, anything after them ignored; a
    negative number wraps around as unsigned. None when there is no number."""
    m = _UINT.match(text)
    if m is None:
        return None
    value = min(int(m[2]), U64_MAX)
    return (-value if m[1] == "-" else value) % U32


def parse_argument(line: str, spec: dict[str, Argument], args: dict[str, int | str]) -> None:
    """ParserImpl::parseArg: one argument line into `args`; ParseError naming the argument as
    the server does (its trimmed name, `+` included)."""
    text = trim(line)
    cut = min((i for i in (text.find(":"), text.find("=")) if i >= 0), default=len(text))
    token = trim(text[:cut])
    value = trim(text[cut + 1 :])
    append = token.startswith("+")
    name = token[1:] if append else token
    argument = spec.get(name)
    if argument is None:
        raise ParseError(UNKNOWN_ARGUMENT, token)
    if append and argument.kind != "LongString":
        raise ParseError(TYPE_MISMATCH, token)
    if append:
        args[name] = str(args.get(name, "")) + value
        return
    if name in args:
        raise ParseError(ARGUMENT_GIVEN_TWICE, token)
    if argument.kind == "Int":
        number = scan_uint(value)
        if number is None:
            raise ParseError(TYPE_MISMATCH, token)
        args[name] = number
    else:
        args[name] = value


def check_mandatory(spec: dict[str, Argument], args: dict, last_line: str | None) -> None:
    """ParserImpl::checkMandatory. The server names the last line it read, the blank line
    (or nothing at the end of the stream), not the missing argument."""
    if any(a.mandatory and name not in args for name, a in spec.items()):
        raise ParseError(MISSING_ARGUMENT, last_line)
