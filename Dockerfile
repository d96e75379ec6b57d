# syntax=docker/dockerfile:1
# The exporter image carries the exporter alone (the default, last stage). The `tools` stage is
# the image of ndbsim and ndb-loadgen, which the compose stack's sim and load profiles use.
#   docker build -t ndbinfo-exporter:0.1.0 .
#   docker run -p 9645:9645 -e NDB_EXPORTER_PASSWORD=... ndbinfo-exporter:0.1.0 --mysqld.address=HOST:3306
#   docker build --target tools -t ndbinfo-exporter-tools:0.1.0 .

FROM python:3.11.12-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY exporter/ exporter/
COPY simulator/ simulator/
COPY loadgen/ loadgen/
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels/exporter . \
    && pip wheel --no-cache-dir --no-deps --wheel-dir /wheels/tools ./simulator ./loadgen

# What both images share: the Python runtime and an unprivileged user.
FROM python:3.11.12-slim-bookworm AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin ndb

FROM runtime AS tools
COPY --from=build /wheels/tools /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl && rm -rf /tmp/wheels
USER 10001:10001
ENTRYPOINT ["ndbsim"]

FROM runtime
LABEL org.opencontainers.image.title="ndbinfo-exporter" \
      org.opencontainers.image.description="Prometheus exporter for MySQL NDB Cluster (ndbinfo and Ndb_% status)" \
      org.opencontainers.image.licenses="Apache-2.0"
# The exporter's wheel and its pinned runtime dependencies only.
COPY --from=build /wheels/exporter /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl && rm -rf /tmp/wheels
USER 10001:10001
EXPOSE 9645
# Reads the exporter's flags from PID 1 and the same environment: follows --web.listen-address
# and TLS of --web.config.file, and asks /livez, which needs no basic auth.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-m", "ndbinfo_exporter.healthcheck", "--pid", "1"]
ENTRYPOINT ["ndbinfo-exporter"]
