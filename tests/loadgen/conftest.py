import pytest

from tests.support.private_mariadb import DATABASE, PASSWORD, USER, running_with_account


@pytest.fixture(scope="session")
def mariadb_server(tmp_path_factory):
    grants = f"ALL PRIVILEGES ON {DATABASE}.*"
    with running_with_account(tmp_path_factory.mktemp("mariadb"), USER, PASSWORD, grants) as server:
        yield server
