// The image's HEALTHCHECK: healthy when this container's role answers /readyz 200 (the API on RENEW_API_PORT, the
// capture host on RENEW_CAPTURE_PORT; whichever this container runs listens). Plain HTTP: /readyz answers it
// even where RENEW_REQUIRE_TLS refuses other requests.
const ports = [process.env.RENEW_API_PORT || '8080', process.env.RENEW_CAPTURE_PORT || '8081'];
const ready = await Promise.all(
  ports.map((port) =>
    fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.ok,
      () => false,
    ),
  ),
);
process.exit(ready.some(Boolean) ? 0 : 1);
