//! The shared prefix as its own message, and the cached tokens read.

use super::*;

/// The round's shared part goes as its own message between the system prompt and
/// the file's (the prefix providers cache), and the provider's cached-token count
/// is read back.
#[tokio::test]
async fn the_shared_prefix_is_its_own_message_and_cached_tokens_are_read() {
    let server = MockServer::start().await;
    let mut body = completion("ok");
    body["usage"]["prompt_tokens_details"] = json!({ "cached_tokens": 96, "audio_tokens": 0 });
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    let with_shared = AiRequest {
        shared: Some("Merge request: Fix the cache".into()),
        ..request()
    };
    let answer = provider(&server, Duration::from_secs(5))
        .complete(&with_shared)
        .await
        .unwrap();
    assert_eq!((answer.usage.prompt, answer.usage.cached), (120, 96));
    let sent: Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    let roles: Vec<(&str, &str)> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [
            ("system", "You review code."),
            ("user", "Merge request: Fix the cache"),
            ("user", "diff here"),
        ]
    );

    // Without the details the cached count is 0.
    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("ok")))
        .mount(&server)
        .await;
    let plain = provider(&server, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(plain.usage.cached, 0);
}
