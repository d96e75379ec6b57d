import pytest
from private_mariadb import DATABASE, PASSWORD, USER, available, start, stop


@pytest.fixture(scope="session")
def mariadb_server(tmp_path_factory):
    if not available():
        pytest.skip("mariadb-server is not installed (.ci/system-packages installs it)")
    server = start(tmp_path_factory.mktemp("mariadb"))
    conn = server.root()
    cur = conn.cursor()
    cur.execute(f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")
    cur.execute(f"GRANT ALL PRIVILEGES ON {DATABASE}.* TO '{USER}'@'127.0.0.1'")
    conn.close()
    yield server
    stop(server)
