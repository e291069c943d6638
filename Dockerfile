# Linkwell container image.
#   docker build -t linkwell .                       (builds from source in the swift image)
#   docker run -p 8080:8080 -p 9090:9090 linkwell    (default config baked in)
#   docker run -v $PWD/my.json5:/etc/linkwell/linkwell.json5:ro -v linkwell-data:/var/lib/linkwell ... linkwell
#   (the link database and click counts live in the /var/lib/linkwell volume: docs/guide/deploy.md)
# Package a binary built elsewhere (release, --static-swift-stdlib, on bookworm or older glibc):
#   mkdir -p prebuilt && cp .build/release/linkwell prebuilt/
#   docker build --build-arg BINARY_FROM=prebuilt -t linkwell .
# Reference: docs/guide/deploy.md.

ARG SWIFT_IMAGE=swift:6.0-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim
# `build` compiles in SWIFT_IMAGE; `prebuilt` takes prebuilt/linkwell from the build context.
ARG BINARY_FROM=build

# ---- build: the release binary, Swift runtime linked in statically --------------------------
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd-dev libqrencode-dev libsqlite3-dev libpq-dev librsvg2-dev libcairo2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --static-swift-stdlib \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/linkwell" /out/linkwell

# ---- prebuilt: a binary from the build context ------------------------------------------------
FROM scratch AS prebuilt
COPY prebuilt/linkwell /out/linkwell

FROM ${BINARY_FROM} AS binary

# ---- runtime: Debian slim, two shared libraries, CA certificates, no shell tools needed -----
FROM ${RUNTIME_IMAGE} AS runtime
# The packages may already be in a custom RUNTIME_IMAGE; then nothing is downloaded.
# librsvg2-2 and the fonts draw the generated preview cards (any script: Latin, CJK, Arabic, Hebrew).
RUN if ! dpkg -s libmicrohttpd12 libqrencode4 libsqlite3-0 libpq5 librsvg2-2 fonts-dejavu-core fonts-noto-core fonts-noto-cjk ca-certificates >/dev/null 2>&1; then \
      apt-get update \
      && apt-get install -y --no-install-recommends libmicrohttpd12 libqrencode4 libsqlite3-0 libpq5 librsvg2-2 fonts-dejavu-core fonts-noto-core fonts-noto-cjk ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
 && groupadd --gid 10001 linkwell \
 && useradd --no-log-init --no-create-home --uid 10001 --gid linkwell --home-dir /nonexistent --shell /usr/sbin/nologin linkwell \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/linkwell
COPY --from=binary /out/linkwell /usr/local/bin/linkwell
COPY config/linkwell.json5 /etc/linkwell/linkwell.json5
# Templates, CSS and string catalogs are compiled into the binary; server.publicDir overrides them.
# The man page (man/linkwell.1 is `linkwell help --man`): man -l /usr/local/share/man/man1/linkwell.1
COPY man/linkwell.1 /usr/local/share/man/man1/linkwell.1
WORKDIR /usr/local/share/linkwell
# The data directory: the link database (links, tokens, click counts) when the config names no
# file and its own directory is not writable — as here, /etc/linkwell is not the user's. A
# volume, so the counts outlive the container; a new named volume starts owned by 10001.
VOLUME ["/var/lib/linkwell"]
USER 10001:10001
# Only the public port: the admin listener (/metrics, the REST API) stays on the container's
# loopback (server.admin, default 127.0.0.1:9090); docs/guide/deploy.md shows how to publish it safely.
EXPOSE 8080
# No curl in the image: the binary does the loopback GET itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/linkwell", "healthcheck", "--timeout", "3", "http://127.0.0.1:9090/healthz"]
# Exec form: linkwell is PID 1 and receives SIGTERM itself (it drains and exits).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/linkwell"]
CMD ["serve", "--config", "/etc/linkwell/linkwell.json5", "--listen", "0.0.0.0:8080"]
