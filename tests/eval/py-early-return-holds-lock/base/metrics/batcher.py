"""Buffers metric points and ships them to the collector in batches."""

import logging
import threading
import time
from dataclasses import dataclass

from metrics.encoding import encode_batch
from metrics.transport import Transport

log = logging.getLogger(__name__)


@dataclass
class Point:
    name: str
    value: float
    ts: float


class MetricsBatcher:
    def __init__(self, transport: Transport, stats, max_buffer: int = 5000):
        self._transport = transport
        self._stats = stats
        self._max_buffer = max_buffer
        self._buffer: list[Point] = []
        self._dropped = 0
        self._flush_count = 0
        self._last_flush = time.monotonic()
        self._lock = threading.Lock()

    def add(self, name: str, value: float) -> None:
        with self._lock:
            if len(self._buffer) >= self._max_buffer:
                self._dropped += 1
                return
            self._buffer.append(Point(name, value, time.time()))

    def flush(self) -> int:
        """Send buffered points to the collector and return how many were sent."""
        self._lock.acquire()
        pending = self._buffer
        self._buffer = []
        self._last_flush = time.monotonic()
        self._flush_count += 1
        by_metric: dict[str, list[Point]] = {}
        for point in pending:
            by_metric.setdefault(point.name, []).append(point)
        dropped = self._dropped
        self._dropped = 0
        self._stats.record_flush(len(pending), dropped)
        # Release before network I/O so add() is never blocked on the collector.
        self._lock.release()

        payload = encode_batch(by_metric)
        try:
            self._transport.send(payload)
        except OSError:
            log.warning("collector unreachable, %d points lost", len(pending))
            return 0
        return len(pending)

    def seconds_since_flush(self) -> float:
        with self._lock:
            return time.monotonic() - self._last_flush
