# A static licensectl on an empty base image, running as a non-root user with
# its data on a volume:
#
#   docker build -t licensectl --build-arg VERSION=v1.0.0 --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker run -d -p 8080:8080 -v licensectl-data:/data licensectl
#
# The server listens on 0.0.0.0:8080 inside the container; put TLS in front of
# it (docs/deploy.md) or set LICENSECTL_SERVER_TLS_CERT_FILE/KEY_FILE.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# The root module replaces the client library with its copy in sdk/go.
COPY sdk/go/go.mod sdk/go/
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN VERSION=$VERSION COMMIT=$COMMIT scripts/build /out/licensectl \
	&& mkdir -p /out/data && chown 65532:65532 /out/data

FROM scratch
# Outgoing HTTPS (webhooks, partner sign-in, SMTP over TLS) needs the CA roots.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/licensectl /licensectl
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV LICENSECTL_DATA_DIR=/data \
	LICENSECTL_SERVER_LISTEN=0.0.0.0:8080 \
	LICENSECTL_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
# The image has no shell or curl: the binary probes GET /readyz itself, on
# the address server.listen gives (loopback for 0.0.0.0).
HEALTHCHECK --interval=30s --timeout=10s --start-period=10s --retries=3 CMD ["/licensectl", "health"]
ENTRYPOINT ["/licensectl"]
CMD ["serve"]
