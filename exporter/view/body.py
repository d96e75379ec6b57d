"""A serialized JSON answer of the view's API and its entity tag."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Body:
    """A serialized JSON answer and its entity tag."""

    content: bytes
    etag: str

    @classmethod
    def of(cls, model) -> Body:
        content = model.model_dump_json().encode()
        return cls(content, '"' + hashlib.blake2b(content, digest_size=12).hexdigest() + '"')
