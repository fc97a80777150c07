-- Records for Schemathesis to find (scripts/schemathesis.sh loads this after the server
-- has migrated the database): without them every operation on an id answers 404 and its
-- success is never checked against the document. The ids are fixed; schemathesis.toml
-- gives them as the path parameters' values.
INSERT INTO platform_configs (id, name, platform_type, base_url)
VALUES ('5eed0000-0000-4000-8000-000000000001', 'seeded', 'hostA', 'http://127.0.0.1:9');

INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id, name, full_path, web_url)
VALUES ('5eed0000-0000-4000-8000-000000000002', '5eed0000-0000-4000-8000-000000000001', 'hostA', '1',
        'seeded', 'group/seeded', 'http://127.0.0.1:9/group/seeded');

INSERT INTO reviews (id, project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch,
                     author_username, status, ai_provider, ai_model, comment_count, triggered_by,
                     overall_rating, score, summary, head_commit_sha, completed_at)
VALUES ('5eed0000-0000-4000-8000-000000000003', '5eed0000-0000-4000-8000-000000000002', 'seeded', 7,
        'Seeded change', 'http://127.0.0.1:9/group/seeded/-/merge_requests/7', 'change', 'main', 'dev',
        'completed', 'providerA', 'model-a', 1, 'manual', 'B', 85, 'One warning.', 'abc123', now());

INSERT INTO review_rounds (id, review_id, round_number, head_sha)
VALUES ('5eed0000-0000-4000-8000-000000000004', '5eed0000-0000-4000-8000-000000000003', 1, 'abc123');

INSERT INTO review_files (id, review_id, round_id, file_path, change_type, status, summary, comment_count)
VALUES ('5eed0000-0000-4000-8000-000000000005', '5eed0000-0000-4000-8000-000000000003',
        '5eed0000-0000-4000-8000-000000000004', 'src/lib.rs', 'modified', 'completed', 'Fine.', 1);

INSERT INTO review_comments (id, review_id, round_id, file_path, line_number, severity, message, fingerprint)
VALUES ('5eed0000-0000-4000-8000-000000000006', '5eed0000-0000-4000-8000-000000000003',
        '5eed0000-0000-4000-8000-000000000004', 'src/lib.rs', 3, 'warning', 'The error is dropped.', 'seeded-1');

INSERT INTO review_feedbacks (review_id, comment_id, feedback_type, tracking_status, username)
VALUES ('5eed0000-0000-4000-8000-000000000003', '5eed0000-0000-4000-8000-000000000006', 'positive',
        'accepted', 'dev');

INSERT INTO ai_call_logs (review_id, file_path, provider, model, status, duration_ms, prompt_tokens,
                          completion_tokens, total_tokens)
VALUES ('5eed0000-0000-4000-8000-000000000003', 'src/lib.rs', 'providerA', 'model-a', 'success', 1200,
        900, 100, 1000);

INSERT INTO review_tasks (id, triggered_by, project_id, review_id, mr_iid, head_sha, status, completed_at)
VALUES ('5eed0000-0000-4000-8000-000000000007', 'manual', '5eed0000-0000-4000-8000-000000000002',
        '5eed0000-0000-4000-8000-000000000003', 7, 'abc123', 'completed', now());

INSERT INTO review_task_logs (task_id, line_no, message)
VALUES ('5eed0000-0000-4000-8000-000000000007', 1, 'review started');

INSERT INTO notification_history (id, review_id, channel, notification_type, recipient, status, attempts, sent_at)
VALUES ('5eed0000-0000-4000-8000-000000000008', '5eed0000-0000-4000-8000-000000000003', 'email',
        'review_completed', 'ops@example.com', 'sent', 1, now());

-- An AI configuration without a key (a key would need the run's encryption key).
INSERT INTO ai_configs (id, name, provider, endpoint, model)
VALUES ('5eed0000-0000-4000-8000-000000000009', 'seeded', 'openai-compatible', 'http://127.0.0.1:9/v1',
        'model-a');
