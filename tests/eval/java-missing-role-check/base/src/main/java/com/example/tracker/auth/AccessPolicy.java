package com.example.tracker.auth;

import java.security.Principal;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;

@Component
public class AccessPolicy {
    public enum Role { VIEWER, MAINTAINER, OWNER }

    private final MembershipStore memberships;

    public AccessPolicy(MembershipStore memberships) {
        this.memberships = memberships;
    }

    /** Throws 403 unless the caller has at least {@code needed} on the project. */
    public void requireRole(Principal principal, long projectId, Role needed) {
        Role actual = memberships.roleOf(principal.getName(), projectId);
        if (actual == null || actual.ordinal() < needed.ordinal()) {
            throw new ResponseStatusException(HttpStatus.FORBIDDEN);
        }
    }

    public interface MembershipStore {
        Role roleOf(String user, long projectId);
    }
}
