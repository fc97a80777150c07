"""Line-protocol encoding for metric batches."""

from typing import Iterable


def encode_point(name: str, value: float, ts: float) -> str:
    return f"{name} value={value} {int(ts * 1e9)}"


def encode_batch(by_metric: dict) -> bytes:
    lines: list[str] = []
    for name in sorted(by_metric):
        for point in by_metric[name]:
            lines.append(encode_point(name, point.value, point.ts))
    return ("\n".join(lines) + "\n").encode()


def count_lines(payload: bytes) -> int:
    return payload.count(b"\n")


def split_payload(payload: bytes, max_bytes: int) -> Iterable[bytes]:
    start = 0
    while start < len(payload):
        end = payload.rfind(b"\n", start, start + max_bytes)
        if end == -1:
            end = min(len(payload), start + max_bytes) - 1
        yield payload[start:end + 1]
        start = end + 1
