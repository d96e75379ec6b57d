# syntax=docker/dockerfile:1
# Image of ndbinfo-exporter; it also carries ndbsim and ndb-loadgen (same Python package).
#   docker build -t ndbinfo-exporter:0.1.0 .
#   docker run -p 9645:9645 -e NDB_EXPORTER_PASSWORD=... ndbinfo-exporter:0.1.0 --mysqld.address=HOST:3306

FROM python:3.11.12-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY exporter/ exporter/
COPY simulator/ simulator/
COPY loadgen/ loadgen/
COPY dashboards/ dashboards/
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11.12-slim-bookworm
LABEL org.opencontainers.image.title="ndbinfo-exporter" \
      org.opencontainers.image.description="Prometheus exporter for MySQL NDB Cluster (ndbinfo and Ndb_% status)" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# Runtime dependencies only: the project's pinned requirements, without the dev extra.
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin exporter
USER 10001:10001
EXPOSE 9645
# Reads the exporter's flags from PID 1 and the same environment: follows --web.listen-address
# and TLS of --web.config.file, and asks /livez, which needs no basic auth.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-m", "ndbinfo_exporter.healthcheck", "--pid", "1"]
ENTRYPOINT ["ndbinfo-exporter"]
