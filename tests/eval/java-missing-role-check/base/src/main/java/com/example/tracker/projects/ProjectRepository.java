package com.example.tracker.projects;

import com.example.tracker.auth.AccessPolicy.Role;
import java.util.List;
import java.util.Optional;

public interface ProjectRepository {
    record Project(long id, String name, boolean archived) {}

    record Member(String user, Role role) {}

    Optional<Project> findById(long id);

    void rename(long id, String name);

    void setArchived(long id, boolean archived);

    /** Deletes the project with its issues and members. Irreversible. */
    void delete(long id);

    List<Member> members(long id);
}
