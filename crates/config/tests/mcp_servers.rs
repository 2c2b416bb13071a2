//! MCP servers as a host names them: the label rule at construction, default labels by position,
//! and labels and tokens paired with the server they were given for.

use skillful_config::{McpError, McpLabel, McpServer, McpServers};
use skillful_mcp::{BearerToken, McpEndpoint};

const URL: &str = "http://127.0.0.1:9/mcp";
const TOKEN_VAR: &str = "SKILLFUL_CONFIG_TEST_MCP_TOKEN";
const TOKEN: &str = "a-token-of-at-least-thirty-two-bytes-long";

#[test]
fn a_label_that_could_pass_for_a_disambiguated_name_or_a_path_is_refused_at_construction() {
    for bad in ["a:b", "a/b", "", "two words", "tab\there", "bell\u{7}"] {
        let error = McpServer::new(bad, McpEndpoint::http(URL)).unwrap_err();
        assert!(
            matches!(&error, McpError::InvalidLabel { label } if label == bad),
            "{bad:?}: {error}"
        );
        assert!(error.to_string().contains("without ':' or '/'"), "{error}");
    }
    let server = McpServer::new("docs-1", McpEndpoint::http(URL)).unwrap();
    assert_eq!(server.label.as_str(), "docs-1");
    assert_eq!(McpLabel::new("docs-1").unwrap(), server.label);
}

#[test]
fn servers_without_a_label_are_numbered_in_the_order_given_and_labels_find_theirs() {
    let servers = McpServers::new()
        .stdio("python3 'my server.py'")
        .unwrap()
        .http(URL)
        .http("http://127.0.0.1:10/mcp")
        .label("notes", URL)
        .unwrap()
        .allow_env("NOTES_HOME")
        .build();
    let labels: Vec<&str> = servers.iter().map(|server| server.label.as_str()).collect();
    assert_eq!(labels, ["mcp1", "notes", "mcp3"]);
    assert_eq!(
        servers[0].endpoint,
        McpEndpoint::stdio("python3", ["my server.py"])
    );
    assert!(servers.iter().all(|server| server.env == ["NOTES_HOME"]));

    let unknown = McpServers::new()
        .http(URL)
        .label("notes", "elsewhere")
        .unwrap_err();
    assert!(matches!(&unknown, McpError::UnknownServer { server } if server == "elsewhere"));
    let bad = McpServers::new().http(URL).label("a:b", URL).unwrap_err();
    assert!(matches!(bad, McpError::InvalidLabel { .. }));
}

#[test]
fn a_token_goes_to_the_http_server_it_names_and_to_no_other() {
    // SAFETY: this test binary's only test that touches the environment, and it sets the
    // variable before reading it on the same thread.
    unsafe { std::env::set_var(TOKEN_VAR, TOKEN) };
    let servers = McpServers::new()
        .http(URL)
        .http("http://127.0.0.1:10/mcp")
        .bearer_token_env(URL, TOKEN_VAR)
        .unwrap()
        .build();
    let token = BearerToken::new(TOKEN).unwrap();
    assert_eq!(
        servers[0].endpoint,
        McpEndpoint::http_with_bearer_token(URL, token)
    );
    assert_eq!(
        servers[1].endpoint,
        McpEndpoint::http("http://127.0.0.1:10/mcp")
    );

    let stdio = McpServers::new()
        .stdio("server")
        .unwrap()
        .bearer_token_env("server", TOKEN_VAR)
        .unwrap_err();
    assert!(matches!(stdio, McpError::NotHttp { .. }), "{stdio}");
    // The server is checked before the variable: naming a server not given says so.
    let unknown = McpServers::new()
        .bearer_token_env(URL, "SKILLFUL_CONFIG_TEST_UNSET")
        .unwrap_err();
    assert!(
        matches!(unknown, McpError::UnknownServer { .. }),
        "{unknown}"
    );
    let unset = McpServers::new()
        .http(URL)
        .bearer_token_env(URL, "SKILLFUL_CONFIG_TEST_UNSET")
        .unwrap_err();
    assert!(
        matches!(&unset, McpError::Token(_))
            && unset.to_string().contains("SKILLFUL_CONFIG_TEST_UNSET"),
        "{unset}"
    );
}
