// @generated automatically by Diesel CLI.
//
// `diesel print-schema` on a database migrated from `migrations/`, then the patch that
// diesel.toml names (crates/store-postgres/schema.patch) for these notes, the text arrays
// and one `joinable!`. Regenerate with `just schema`; `scripts/lint.sh` fails when this file
// differs from that output.
//
// Notes for code written against it:
// - text arrays are `Array<Text>` (print-schema says `Array<Nullable<Text>>`): no NULL element
//   is ever written, and the row structs read them as `Vec<String>`;
// - every table has at most 32 columns (the workspace enables diesel's `32-column-tables`);
// - `api_metrics.avg_latency_ms` is a GENERATED column: select it, never insert/update it;
// - `projects <-> review_templates` reference each other, so print-schema declares no
//   `joinable!` between them; the patch adds `projects -> review_templates (template_id)`,
//   join `review_templates.project_id` with an explicit `.on(...)`;
// - `global_settings` and `notification_configs` hold exactly one row (`id = 1`), created by
//   the migrations.

diesel::table! {
    ai_call_logs (id) {
        id -> Uuid,
        review_id -> Nullable<Uuid>,
        file_path -> Nullable<Text>,
        provider -> Text,
        model -> Text,
        status -> Text,
        duration_ms -> Int8,
        prompt_tokens -> Int4,
        completion_tokens -> Int4,
        total_tokens -> Int4,
        error_message -> Nullable<Text>,
        created_at -> Timestamptz,
        cost_usd -> Nullable<Float8>,
        cached_tokens -> Int4,
    }
}

diesel::table! {
    ai_config_fallbacks (config_id, position) {
        config_id -> Uuid,
        position -> Int2,
        fallback_id -> Uuid,
    }
}

diesel::table! {
    ai_configs (id) {
        id -> Uuid,
        name -> Text,
        provider -> Text,
        endpoint -> Text,
        model -> Text,
        api_key_enc -> Nullable<Text>,
        is_default -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        max_concurrency -> Int4,
        timeout_secs -> Int4,
        input_price_per_mtok -> Nullable<Float8>,
        output_price_per_mtok -> Nullable<Float8>,
    }
}

diesel::table! {
    ai_cost_daily (day, review_day, status, triggered_by, shard) {
        day -> Date,
        review_day -> Date,
        status -> Text,
        triggered_by -> Text,
        shard -> Int2,
        calls -> Int8,
        cost_usd -> Float8,
    }
}

diesel::table! {
    ai_cost_project_daily (project_id, day, review_day, status, triggered_by) {
        project_id -> Uuid,
        day -> Date,
        review_day -> Date,
        status -> Text,
        triggered_by -> Text,
        calls -> Int8,
        cost_usd -> Float8,
    }
}

diesel::table! {
    analysis_uploads (id) {
        id -> Uuid,
        project_id -> Uuid,
        commit_sha -> Text,
        tools -> Jsonb,
        findings -> Jsonb,
        finding_count -> Int4,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        user_id -> Uuid,
        name -> Text,
        prefix -> Text,
        key_hash -> Text,
        created_at -> Timestamptz,
        expires_at -> Nullable<Timestamptz>,
        last_used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    api_metrics (id) {
        id -> Uuid,
        bucket_start -> Timestamptz,
        route -> Text,
        method -> Text,
        status_code -> Int4,
        request_count -> Int8,
        error_count -> Int8,
        total_latency_ms -> Float8,
        max_latency_ms -> Float8,
        avg_latency_ms -> Float8,
    }
}

diesel::table! {
    budget_notes (project_id, mr_iid, month) {
        project_id -> Uuid,
        mr_iid -> Int8,
        month -> Date,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    conversations (id) {
        id -> Uuid,
        project_id -> Uuid,
        mr_iid -> Int8,
        note_id -> Text,
        thread_id -> Nullable<Text>,
        author_id -> Nullable<Text>,
        author_username -> Text,
        author_is_bot -> Bool,
        body -> Text,
        addressed -> Text,
        command -> Nullable<Text>,
        status -> Text,
        answer -> Nullable<Text>,
        answer_note_id -> Nullable<Text>,
        detail -> Nullable<Text>,
        created_at -> Timestamptz,
        answered_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    database_metrics (id) {
        id -> Uuid,
        total_connections -> Int4,
        active_connections -> Int4,
        idle_connections -> Int4,
        max_connections -> Nullable<Int4>,
        database_size_bytes -> Int8,
        query_latency_ms -> Float8,
        pool_size -> Nullable<Int4>,
        pool_available -> Nullable<Int4>,
        collected_at -> Timestamptz,
    }
}

diesel::table! {
    global_settings (id) {
        id -> Int2,
        auto_review -> Bool,
        send_to_platform -> Bool,
        file_ignore_patterns -> Array<Text>,
        review_commands -> Array<Text>,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    health_checks (id) {
        id -> Uuid,
        check_type -> Text,
        check_name -> Text,
        status -> Text,
        details -> Jsonb,
        response_time_ms -> Int8,
        checked_at -> Timestamptz,
    }
}

diesel::table! {
    job_runs (id) {
        id -> Uuid,
        name -> Text,
        instance -> Nullable<Text>,
        status -> Text,
        message -> Nullable<Text>,
        started_at -> Timestamptz,
        finished_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    learnings (id) {
        id -> Uuid,
        project_id -> Uuid,
        text -> Text,
        source -> Text,
        author -> Nullable<Text>,
        mr_iid -> Nullable<Int8>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    merge_request_controls (project_id, mr_iid) {
        project_id -> Uuid,
        mr_iid -> Int8,
        paused -> Bool,
        ignored -> Bool,
        refused_at -> Nullable<Timestamptz>,
        changed_by -> Nullable<Text>,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    notification_configs (id) {
        id -> Int2,
        email_enabled -> Bool,
        smtp_host -> Nullable<Text>,
        smtp_port -> Nullable<Int4>,
        smtp_secure -> Bool,
        smtp_username -> Nullable<Text>,
        smtp_password_enc -> Nullable<Text>,
        email_from -> Nullable<Text>,
        email_recipients -> Array<Text>,
        webhook_enabled -> Bool,
        webhook_urls -> Array<Text>,
        webhook_secret_enc -> Nullable<Text>,
        chat_a_enabled -> Bool,
        chat_a_bot_token_enc -> Nullable<Text>,
        chat_a_channels -> Array<Text>,
        chat_b_enabled -> Bool,
        chat_b_webhook_url_enc -> Nullable<Text>,
        chat_c_enabled -> Bool,
        chat_c_webhook_url_enc -> Nullable<Text>,
        chat_d_enabled -> Bool,
        chat_d_webhook_url_enc -> Nullable<Text>,
        chat_d_secret_enc -> Nullable<Text>,
        push_enabled -> Bool,
        vapid_public_key -> Nullable<Text>,
        vapid_private_key_enc -> Nullable<Text>,
        vapid_subject -> Nullable<Text>,
        notify_on_review_completed -> Bool,
        notify_on_review_failed -> Bool,
        notify_on_rating_low -> Bool,
        rating_threshold -> Int4,
        notification_frequency -> Text,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    notification_daily_counts (day, channel, status, notification_type, shard) {
        day -> Date,
        channel -> Text,
        status -> Text,
        notification_type -> Text,
        shard -> Int2,
        deliveries -> Int8,
    }
}

diesel::table! {
    notification_digest_events (id) {
        id -> Uuid,
        review_id -> Nullable<Uuid>,
        event_type -> Text,
        payload -> Jsonb,
        created_at -> Timestamptz,
        digested_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    notification_history (id) {
        id -> Uuid,
        review_id -> Nullable<Uuid>,
        channel -> Text,
        notification_type -> Text,
        recipient -> Nullable<Text>,
        status -> Text,
        error_message -> Nullable<Text>,
        attempts -> Int4,
        payload -> Nullable<Jsonb>,
        sent_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    platform_configs (id) {
        id -> Uuid,
        name -> Text,
        platform_type -> Text,
        base_url -> Text,
        auth_type -> Text,
        access_token_enc -> Nullable<Text>,
        app_id -> Nullable<Text>,
        app_secret_enc -> Nullable<Text>,
        webhook_secret_enc -> Nullable<Text>,
        refresh_token_enc -> Nullable<Text>,
        token_expires_at -> Nullable<Timestamptz>,
        oauth_state -> Nullable<Text>,
        oauth_redirect_uri -> Nullable<Text>,
        token_scopes -> Array<Text>,
        enabled -> Bool,
        is_default -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        private_key_enc -> Nullable<Text>,
        installation_id -> Nullable<Int8>,
    }
}

diesel::table! {
    projects (id) {
        id -> Uuid,
        platform_config_id -> Uuid,
        platform_type -> Text,
        platform_project_id -> Text,
        name -> Text,
        full_path -> Text,
        web_url -> Text,
        default_branch -> Nullable<Text>,
        visibility -> Nullable<Text>,
        enabled -> Bool,
        auto_review -> Nullable<Bool>,
        file_ignore_patterns -> Nullable<Array<Text>>,
        ai_config_id -> Nullable<Uuid>,
        send_to_platform -> Nullable<Bool>,
        default_reviewer_ids -> Array<Text>,
        auto_assign_author -> Bool,
        template_id -> Nullable<Uuid>,
        webhook_id -> Nullable<Text>,
        webhook_url -> Nullable<Text>,
        webhook_status -> Nullable<Text>,
        webhook_checked_at -> Nullable<Timestamptz>,
        last_synced_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        monthly_budget_usd -> Nullable<Float8>,
        budget_alerted_month -> Nullable<Date>,
        suppress_rejected -> Bool,
        context_budget_tokens -> Nullable<Int4>,
        refuse_outsiders -> Bool,
        gate_enabled -> Bool,
        gate_min_rating -> Nullable<Text>,
    }
}

diesel::table! {
    push_subscriptions (id) {
        id -> Uuid,
        user_id -> Nullable<Uuid>,
        endpoint -> Text,
        p256dh -> Text,
        auth -> Text,
        user_agent -> Nullable<Text>,
        created_at -> Timestamptz,
        last_used_at -> Nullable<Timestamptz>,
        expires_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    review_comments (id) {
        id -> Uuid,
        review_id -> Uuid,
        round_id -> Uuid,
        file_id -> Nullable<Uuid>,
        file_path -> Text,
        line_number -> Int4,
        severity -> Text,
        message -> Text,
        fingerprint -> Text,
        host_a_discussion_id -> Nullable<Text>,
        platform_comment_id -> Nullable<Text>,
        posted_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        suggestion_start_line -> Nullable<Int4>,
        suggestion_end_line -> Nullable<Int4>,
        suggestion_code -> Nullable<Text>,
    }
}

diesel::table! {
    review_daily_ratings (day, overall_rating, shard) {
        day -> Date,
        overall_rating -> Text,
        shard -> Int2,
        reviews -> Int8,
    }
}

diesel::table! {
    review_daily_stats (day, status, triggered_by, shard) {
        day -> Date,
        status -> Text,
        triggered_by -> Text,
        shard -> Int2,
        reviews -> Int8,
        comments -> Int8,
        score_sum -> Int8,
        scored -> Int8,
        cost_usd -> Float8,
    }
}

diesel::table! {
    review_feedbacks (id) {
        id -> Uuid,
        review_id -> Uuid,
        comment_id -> Nullable<Uuid>,
        feedback_type -> Text,
        tracking_status -> Text,
        username -> Nullable<Text>,
        note -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        source -> Text,
        source_id -> Text,
    }
}

diesel::table! {
    review_files (id) {
        id -> Uuid,
        review_id -> Uuid,
        round_id -> Nullable<Uuid>,
        file_path -> Text,
        old_path -> Nullable<Text>,
        change_type -> Text,
        status -> Text,
        summary -> Nullable<Text>,
        comment_count -> Int4,
        prompt_summary -> Nullable<Text>,
        content_hash -> Nullable<Text>,
        error_message -> Nullable<Text>,
        attempts -> Int4,
        started_at -> Nullable<Timestamptz>,
        completed_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        context -> Nullable<Jsonb>,
    }
}

diesel::table! {
    review_project_daily_stats (project_id, day, status, triggered_by) {
        project_id -> Uuid,
        day -> Date,
        status -> Text,
        triggered_by -> Text,
        reviews -> Int8,
        comments -> Int8,
        score_sum -> Int8,
        scored -> Int8,
        cost_usd -> Float8,
    }
}

diesel::table! {
    review_rounds (id) {
        id -> Uuid,
        review_id -> Uuid,
        round_number -> Int4,
        is_differential -> Bool,
        base_sha -> Nullable<Text>,
        head_sha -> Text,
        file_count -> Int4,
        comment_count -> Int4,
        created_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        context -> Nullable<Jsonb>,
    }
}

diesel::table! {
    review_rules (id) {
        id -> Uuid,
        rule_name -> Text,
        description -> Nullable<Text>,
        instructions -> Text,
        enabled -> Bool,
        file_type_patterns -> Array<Text>,
        file_path_patterns -> Array<Text>,
        priority -> Int4,
        project_id -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    review_task_logs (id) {
        id -> Uuid,
        task_id -> Uuid,
        line_no -> Int4,
        message -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    review_tasks (id) {
        id -> Uuid,
        triggered_by -> Text,
        project_id -> Uuid,
        review_id -> Nullable<Uuid>,
        mr_iid -> Int8,
        head_sha -> Nullable<Text>,
        status -> Text,
        send_to_platform -> Bool,
        template_id -> Nullable<Uuid>,
        requested_by -> Nullable<Uuid>,
        attempts -> Int4,
        max_attempts -> Int4,
        runner_id -> Nullable<Text>,
        runner_phase -> Nullable<Text>,
        claimed_at -> Nullable<Timestamptz>,
        heartbeat_at -> Nullable<Timestamptz>,
        lease_expires_at -> Nullable<Timestamptz>,
        stream_message_id -> Nullable<Text>,
        dedup_key -> Nullable<Text>,
        error_message -> Nullable<Text>,
        result -> Nullable<Jsonb>,
        metrics -> Nullable<Jsonb>,
        required_tags -> Array<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        started_at -> Nullable<Timestamptz>,
        completed_at -> Nullable<Timestamptz>,
        assignment -> Nullable<Jsonb>,
        worker_id -> Nullable<Text>,
        conversation_id -> Nullable<Uuid>,
        full_review -> Bool,
    }
}

diesel::table! {
    review_templates (id) {
        id -> Uuid,
        name -> Text,
        description -> Nullable<Text>,
        content -> Text,
        is_default -> Bool,
        project_id -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    reviews (id) {
        id -> Uuid,
        project_id -> Uuid,
        project_name -> Text,
        mr_iid -> Int8,
        mr_title -> Text,
        mr_url -> Text,
        source_branch -> Text,
        target_branch -> Text,
        author_username -> Nullable<Text>,
        status -> Text,
        ai_provider -> Text,
        ai_model -> Text,
        comment_count -> Int4,
        triggered_by -> Text,
        overall_rating -> Nullable<Text>,
        score -> Nullable<Int4>,
        summary -> Nullable<Text>,
        base_commit_sha -> Nullable<Text>,
        head_commit_sha -> Text,
        start_commit_sha -> Nullable<Text>,
        round_number -> Int4,
        applied_rule_ids -> Array<Text>,
        reviewed_lines -> Int4,
        summary_comment_id -> Nullable<Text>,
        template_id -> Nullable<Uuid>,
        error_message -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        started_at -> Nullable<Timestamptz>,
        completed_at -> Nullable<Timestamptz>,
        cost_usd -> Nullable<Float8>,
    }
}

diesel::table! {
    runners (id) {
        id -> Text,
        name -> Text,
        version -> Text,
        status -> Text,
        current_jobs -> Int4,
        max_concurrent_jobs -> Int4,
        total_jobs_completed -> Int8,
        total_jobs_failed -> Int8,
        tags -> Array<Text>,
        api_key_id -> Nullable<Uuid>,
        last_heartbeat -> Nullable<Timestamptz>,
        registered_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    sessions (id) {
        id -> Uuid,
        user_id -> Uuid,
        token_hash -> Text,
        user_agent -> Nullable<Text>,
        ip -> Nullable<Text>,
        created_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    system_metrics (id) {
        id -> Uuid,
        instance -> Nullable<Text>,
        cpu_usage_percent -> Float8,
        cpu_count -> Int4,
        memory_used_bytes -> Int8,
        memory_total_bytes -> Int8,
        process_memory_bytes -> Nullable<Int8>,
        uptime_seconds -> Int8,
        process_uptime_seconds -> Nullable<Int8>,
        load_avg_1 -> Nullable<Float8>,
        load_avg_5 -> Nullable<Float8>,
        load_avg_15 -> Nullable<Float8>,
        disk_used_bytes -> Nullable<Int8>,
        disk_total_bytes -> Nullable<Int8>,
        collected_at -> Timestamptz,
    }
}

diesel::table! {
    users (id) {
        id -> Uuid,
        email -> Text,
        name -> Text,
        password_hash -> Text,
        role -> Text,
        is_root -> Bool,
        disabled -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Uuid,
        platform_type -> Text,
        delivery_id -> Text,
        event -> Text,
        task_id -> Nullable<Uuid>,
        received_at -> Timestamptz,
    }
}

diesel::joinable!(ai_call_logs -> reviews (review_id));
diesel::joinable!(analysis_uploads -> projects (project_id));
diesel::joinable!(api_keys -> users (user_id));
diesel::joinable!(budget_notes -> projects (project_id));
diesel::joinable!(conversations -> projects (project_id));
diesel::joinable!(learnings -> projects (project_id));
diesel::joinable!(merge_request_controls -> projects (project_id));
diesel::joinable!(notification_digest_events -> reviews (review_id));
diesel::joinable!(notification_history -> reviews (review_id));
diesel::joinable!(projects -> ai_configs (ai_config_id));
diesel::joinable!(projects -> platform_configs (platform_config_id));
diesel::joinable!(projects -> review_templates (template_id));
diesel::joinable!(push_subscriptions -> users (user_id));
diesel::joinable!(review_comments -> review_files (file_id));
diesel::joinable!(review_comments -> review_rounds (round_id));
diesel::joinable!(review_comments -> reviews (review_id));
diesel::joinable!(review_feedbacks -> review_comments (comment_id));
diesel::joinable!(review_feedbacks -> reviews (review_id));
diesel::joinable!(review_files -> review_rounds (round_id));
diesel::joinable!(review_files -> reviews (review_id));
diesel::joinable!(review_rounds -> reviews (review_id));
diesel::joinable!(review_rules -> projects (project_id));
diesel::joinable!(review_task_logs -> review_tasks (task_id));
diesel::joinable!(review_tasks -> conversations (conversation_id));
diesel::joinable!(review_tasks -> projects (project_id));
diesel::joinable!(review_tasks -> review_templates (template_id));
diesel::joinable!(review_tasks -> reviews (review_id));
diesel::joinable!(review_tasks -> runners (runner_id));
diesel::joinable!(review_tasks -> users (requested_by));
diesel::joinable!(reviews -> projects (project_id));
diesel::joinable!(reviews -> review_templates (template_id));
diesel::joinable!(runners -> api_keys (api_key_id));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(webhook_deliveries -> review_tasks (task_id));

diesel::allow_tables_to_appear_in_same_query!(
    ai_call_logs,
    ai_config_fallbacks,
    ai_configs,
    ai_cost_daily,
    ai_cost_project_daily,
    analysis_uploads,
    api_keys,
    api_metrics,
    budget_notes,
    conversations,
    database_metrics,
    global_settings,
    health_checks,
    job_runs,
    learnings,
    merge_request_controls,
    notification_configs,
    notification_daily_counts,
    notification_digest_events,
    notification_history,
    platform_configs,
    projects,
    push_subscriptions,
    review_comments,
    review_daily_ratings,
    review_daily_stats,
    review_feedbacks,
    review_files,
    review_project_daily_stats,
    review_rounds,
    review_rules,
    review_task_logs,
    review_tasks,
    review_templates,
    reviews,
    runners,
    sessions,
    system_metrics,
    users,
    webhook_deliveries,
);
