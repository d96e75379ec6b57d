"""Real MySQL clients against ndbsim 7.5.4 and 8.4: one ndbsim process per version."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ndb_harness import Ndbsim, running_ndbsim

from tests.clients.clients_helpers import VERSIONS


@pytest.fixture(scope="session", params=VERSIONS)
def sim(request) -> Iterator[Ndbsim]:
    with running_ndbsim(ndb_version=request.param) as handle:
        yield handle
