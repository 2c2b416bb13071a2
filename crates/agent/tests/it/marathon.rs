//! The marathon conversation: load → read → run (after approval) → answer.

use std::sync::Arc;

use skillful_agent::{Agent, ApprovalRules, AutoApprove, Session};
use skillful_chat::{ApprovalResponse, Role};
use skillful_test_server::{Reply, TestServer};

use crate::common::{
    CountingRunner, MARATHON, client, example_provider, load_skill, read_table, run_convert,
};

#[tokio::test]
async fn the_marathon_conversation_runs_end_to_end() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::tool_call("c2", "read_skill_resource", read_table()));
    server.push(Reply::tool_call("c3", "run_skill_script", run_convert()));
    server.push(Reply::text("A marathon is about 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = Agent::builder(client(server.url()))
        .instructions("You are a careful assistant.")
        .skills(example_provider(Arc::clone(&runner)))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .build();
    let mut session = Session::new();

    let first = agent.run(MARATHON, &mut session).await.unwrap();
    assert_eq!(
        first.pending.len(),
        1,
        "the read-only rule leaves the script pending"
    );
    assert_eq!(first.pending[0].call.name, "run_skill_script");
    assert_eq!(runner.runs(), 0);
    assert_eq!(server.requests().len(), 3);

    let second = agent
        .run(vec![ApprovalResponse::approve("c3")], &mut session)
        .await
        .unwrap();
    assert_eq!(second.text(), "A marathon is about 42.16 km.");
    assert!(second.pending.is_empty());
    assert_eq!(runner.runs(), 1);

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(server.all_answered());
    let system = &requests[0].contents("system")[0];
    assert!(system.starts_with("You are a careful assistant."));
    assert!(system.contains("<name>unit-converter</name>"));
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        ["load_skill", "read_skill_resource", "run_skill_script"]
    );
    assert!(requests[1].contents("tool")[0].contains("# Unit converter"));
    assert!(requests[2].contents("tool")[1].contains("1.609344"));
    let script_output = &requests[3].contents("tool")[2];
    assert!(
        script_output.contains("\"result\": 42.1648"),
        "{script_output}"
    );
    assert_eq!(requests[3].contents("user"), [MARATHON]);

    let roles: Vec<Role> = session.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::User,
            Role::Tool,
            Role::Assistant
        ]
    );
}
