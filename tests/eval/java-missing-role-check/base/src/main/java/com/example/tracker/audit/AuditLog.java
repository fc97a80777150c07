package com.example.tracker.audit;

import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

@Component
public class AuditLog {
    private static final Logger LOG = LoggerFactory.getLogger("audit");

    private final Clock clock;

    public AuditLog(Clock clock) {
        this.clock = clock;
    }

    public void record(String actor, String action, long targetId) {
        Instant at = clock.instant();
        LOG.info("{} actor={} action={} target={}", at, actor, action, targetId);
    }
}
