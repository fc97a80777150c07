"""UDP/TCP transport to the metrics collector."""

import socket


class Transport:
    def __init__(self, host: str, port: int, timeout: float = 2.0):
        self._addr = (host, port)
        self._timeout = timeout
        self._sock = None

    def _connect(self) -> socket.socket:
        if self._sock is None:
            self._sock = socket.create_connection(self._addr, timeout=self._timeout)
        return self._sock

    def send(self, payload: bytes) -> None:
        sock = self._connect()
        try:
            sock.sendall(payload)
        except OSError:
            self.close()
            raise

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
