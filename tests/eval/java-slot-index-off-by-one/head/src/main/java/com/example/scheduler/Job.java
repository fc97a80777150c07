package com.example.scheduler;

import java.time.Duration;
import java.util.Objects;

public record Job(String id, String command, Duration timeout) {
    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(command, "command");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
    }

    public static Job of(String id, String command) {
        return new Job(id, command, Duration.ofMinutes(10));
    }

    public boolean isLongRunning() {
        return timeout.compareTo(Duration.ofHours(1)) > 0;
    }
}

interface JobStore {
    void markRunning(String jobId, int slot);

    void markPinned(String jobId, int slot);

    void markDone(String jobId);
}
