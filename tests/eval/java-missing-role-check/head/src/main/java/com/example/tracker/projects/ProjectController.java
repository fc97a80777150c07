package com.example.tracker.projects;

import com.example.tracker.audit.AuditLog;
import com.example.tracker.auth.AccessPolicy;
import com.example.tracker.auth.AccessPolicy.Role;
import com.example.tracker.projects.ProjectRepository.Member;
import com.example.tracker.projects.ProjectRepository.Project;
import java.security.Principal;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/projects")
public class ProjectController {
    private final ProjectRepository projects;
    private final AccessPolicy access;
    private final AuditLog audit;

    public ProjectController(ProjectRepository projects, AccessPolicy access, AuditLog audit) {
        this.projects = projects;
        this.access = access;
        this.audit = audit;
    }

    @GetMapping("/{id}")
    public ResponseEntity<Project> get(@PathVariable long id, Principal principal) {
        access.requireRole(principal, id, Role.VIEWER);
        return projects.findById(id)
                .map(ResponseEntity::ok)
                .orElse(ResponseEntity.notFound().build());
    }

    @PutMapping("/{id}/name")
    public ResponseEntity<Void> rename(
            @PathVariable long id, @RequestBody RenameRequest body, Principal principal) {
        access.requireRole(principal, id, Role.MAINTAINER);
        projects.rename(id, body.name());
        return ResponseEntity.noContent().build();
    }

    @PostMapping("/{id}/archive")
    public ResponseEntity<Void> archive(@PathVariable long id, Principal principal) {
        access.requireRole(principal, id, Role.OWNER);
        projects.setArchived(id, true);
        return ResponseEntity.noContent().build();
    }

    @GetMapping("/{id}/members")
    public List<Member> members(@PathVariable long id, Principal principal) {
        access.requireRole(principal, id, Role.VIEWER);
        return projects.members(id);
    }

    @DeleteMapping("/{id}")
    public ResponseEntity<Void> delete(@PathVariable long id, Principal principal) {
        projects.delete(id);
        audit.record(principal.getName(), "project.deleted", id);
        return ResponseEntity.noContent().build();
    }

    record RenameRequest(String name) {}
}
