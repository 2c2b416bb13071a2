//! The three tools: their shape, identity, results and every error the model can get.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_core::Skill;
use skillful_provider::{ToolErrorCode, ToolKind};

use crate::common::{
    TestContent, TestSkill, call, expect_error, expect_text, inline, provider, run, run_of,
};

fn converter() -> Arc<dyn Skill> {
    Arc::new(
        TestSkill::new("unit-converter")
            .text("references/table.md", "1 mile = 1.609344 km")
            .content("references/broken.md", TestContent::IoError)
            .content(
                "references/odd.md",
                TestContent::Failure("no such row".into()),
            )
            .script("scripts/convert.py", None)
            .script("scripts/fail.py", Some("exit status 3: bad unit 'parsec'")),
    )
}

#[tokio::test]
async fn the_three_tools_come_in_order_with_the_reference_names_and_descriptions() {
    let run = run(vec![converter()]).await;
    let tools: Vec<(&str, &str, bool)> = run
        .tools()
        .iter()
        .map(|tool| (tool.name(), tool.description(), tool.is_read_only()))
        .collect();
    assert_eq!(
        tools,
        [
            (
                "load_skill",
                "Loads the full content of a specific skill",
                true
            ),
            (
                "read_skill_resource",
                "Reads a resource associated with a skill, such as references, assets, or dynamic data.",
                true
            ),
            (
                "run_skill_script",
                "Runs a script associated with a skill.",
                false
            ),
        ]
    );
    let kinds: Vec<ToolKind> = run.tools().iter().map(|tool| tool.kind()).collect();
    assert_eq!(kinds, ToolKind::ALL[..3]);
}

#[tokio::test]
async fn with_enum_names_the_schemas_list_the_valid_names_and_without_they_do_not() {
    let other = Arc::new(
        TestSkill::new("style-guide")
            .text("references/table.md", "shared name")
            .script("scripts/lint.sh", None),
    ) as Arc<dyn Skill>;
    let skills = vec![converter(), other];
    let source = Arc::new(skillful_inline::InlineSkillsSource::from_skills(
        skills.clone(),
    ));
    let constrained = skillful_provider::SkillsProvider::builder(source)
        .enum_names(true)
        .build()
        .unwrap();
    let run = run_of(&constrained).await;
    let schema = |name: &str| run.tool(name).unwrap().parameters().clone();
    assert_eq!(
        schema("load_skill")["properties"]["skillName"]["enum"],
        json!(["style-guide", "unit-converter"])
    );
    assert_eq!(
        schema("read_skill_resource")["properties"]["resourceName"]["enum"],
        json!([
            "references/broken.md",
            "references/odd.md",
            "references/table.md"
        ])
    );
    assert_eq!(
        schema("run_skill_script")["properties"]["scriptName"]["enum"],
        json!(["scripts/convert.py", "scripts/fail.py", "scripts/lint.sh"])
    );
    assert_eq!(
        schema("run_skill_script")["properties"]["skillName"]["enum"],
        json!(["style-guide", "unit-converter"])
    );

    let free = run_of(&provider(skills)).await;
    for tool in free.tools() {
        for property in tool.parameters()["properties"]
            .as_object()
            .unwrap()
            .values()
        {
            assert!(property.get("enum").is_none(), "{property}");
        }
    }
}

#[tokio::test]
async fn past_the_limit_a_name_stays_a_free_string() {
    let many: Vec<Arc<dyn Skill>> = (0..=skillful_provider::MAX_ENUM_NAMES)
        .map(|n| Arc::new(TestSkill::new(&format!("skill-{n:02}"))) as Arc<dyn Skill>)
        .collect();
    let source = Arc::new(skillful_inline::InlineSkillsSource::from_skills(many));
    let provider = skillful_provider::SkillsProvider::builder(source)
        .enum_names(true)
        .build()
        .unwrap();
    let run = run_of(&provider).await;
    let load = run.tool("load_skill").unwrap().parameters().clone();
    assert!(
        load["properties"]["skillName"].get("enum").is_none(),
        "{load}"
    );
}

#[tokio::test]
async fn tool_schemas_use_the_reference_camel_case_parameters() {
    let run = run(vec![converter()]).await;
    let schema = |name: &str| run.tool(name).unwrap().parameters().clone();
    let load = schema("load_skill");
    let properties: Vec<&String> = load["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["skillName", "offset", "limit"]);
    assert_eq!(load["required"], json!(["skillName"]));
    assert_eq!(
        load["properties"]["skillName"]["description"],
        "The name of the skill, exactly as listed in <available_skills>."
    );
    let read = schema("read_skill_resource");
    let properties: Vec<&String> = read["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["skillName", "resourceName", "offset", "limit"]);
    assert_eq!(read["required"], json!(["skillName", "resourceName"]));
    assert_eq!(read["properties"]["offset"]["type"], "integer");
    assert_eq!(read["properties"]["limit"]["maximum"], 65536);
    let run_script = schema("run_skill_script");
    let properties: Vec<&String> = run_script["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        properties,
        ["skillName", "scriptName", "arguments", "idempotencyKey"]
    );
    assert_eq!(run_script["required"], json!(["skillName", "scriptName"]));
    assert_eq!(
        run_script["properties"]["arguments"]["default"],
        Value::Null
    );
}

#[tokio::test]
async fn tool_ids_belong_to_their_provider_and_stay_the_same_across_runs() {
    let first = provider(vec![converter()]);
    let second = provider(vec![converter()]);
    let (a, b, other) = (
        run_of(&first).await,
        run_of(&first).await,
        run_of(&second).await,
    );
    for index in 0..3 {
        assert_eq!(a.tools()[index].id(), b.tools()[index].id());
        assert_eq!(a.tools()[index].id().provider, first.id());
        assert_ne!(a.tools()[index].id(), other.tools()[index].id());
        assert_eq!(a.tools()[index].name(), other.tools()[index].name());
    }
    assert_ne!(a.tools()[0].id(), a.tools()[1].id());
}

#[tokio::test]
async fn load_skill_returns_the_skill_content() {
    let skill = Arc::new(inline("greeter", "Greets."));
    let expected = skillful_provider::render_skill(&*skill, &skill.document().await.unwrap());
    let run = run(vec![skill]).await;
    let output = call(&run, "load_skill", json!({"skillName": "greeter"})).await;
    assert_eq!(expect_text(output), expected);
}

#[tokio::test]
async fn read_skill_resource_returns_the_resource_text() {
    let run = run(vec![converter()]).await;
    let arguments = json!({"skillName": "unit-converter", "resourceName": "references/table.md"});
    let output = call(&run, "read_skill_resource", arguments).await;
    assert_eq!(expect_text(output), "1 mile = 1.609344 km");
}

#[tokio::test]
async fn run_skill_script_passes_the_arguments_and_null_when_there_are_none() {
    let run = run(vec![converter()]).await;
    let with = json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py", "arguments": ["--miles", "2"]});
    let without = json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py"});
    assert_eq!(
        expect_text(call(&run, "run_skill_script", with).await),
        r#"ran with ["--miles","2"]"#
    );
    assert_eq!(
        expect_text(call(&run, "run_skill_script", without).await),
        "ran with null"
    );
}

#[tokio::test]
async fn arguments_may_arrive_as_a_string_holding_the_object() {
    let run = run(vec![converter()]).await;
    let arguments = Value::String(r#"{"skillName": "unit-converter"}"#.into());
    let text = expect_text(call(&run, "load_skill", arguments).await);
    assert!(text.contains("\nContent of unit-converter.\n"), "{text}");
}

/// Calls `tool` and returns the error's code, message and retryability.
async fn failure(tool: &str, arguments: Value) -> (ToolErrorCode, String, bool) {
    let run = run(vec![converter()]).await;
    let error = expect_error(call(&run, tool, arguments).await);
    (error.code, error.message, error.retryable)
}

#[tokio::test]
async fn blank_names_give_the_reference_errors() {
    use ToolErrorCode::InvalidArguments;
    let cases = [
        (
            "load_skill",
            json!({}),
            "Error: Skill name cannot be empty.",
        ),
        (
            "load_skill",
            json!({"skillName": "  "}),
            "Error: Skill name cannot be empty.",
        ),
        (
            "load_skill",
            Value::Null,
            "Error: Skill name cannot be empty.",
        ),
        (
            "read_skill_resource",
            json!({"resourceName": "x"}),
            "Error: Skill name cannot be empty.",
        ),
        (
            "read_skill_resource",
            json!({"skillName": "unit-converter", "resourceName": ""}),
            "Error: Resource name cannot be empty.",
        ),
        (
            "run_skill_script",
            json!({"scriptName": "x"}),
            "Error: Skill name cannot be empty.",
        ),
        (
            "run_skill_script",
            json!({"skillName": "unit-converter"}),
            "Error: Script name cannot be empty.",
        ),
    ];
    for (tool, arguments, message) in cases {
        assert_eq!(
            failure(tool, arguments.clone()).await,
            (InvalidArguments, message.to_owned(), false),
            "{tool} {arguments}"
        );
    }
}

#[tokio::test]
async fn unknown_names_give_the_reference_errors() {
    let cases = [
        (
            "load_skill",
            json!({"skillName": "nope"}),
            ToolErrorCode::SkillNotFound,
            "Error: Skill 'nope' not found.",
        ),
        (
            "read_skill_resource",
            json!({"skillName": "nope", "resourceName": "x"}),
            ToolErrorCode::SkillNotFound,
            "Error: Skill 'nope' not found.",
        ),
        (
            "read_skill_resource",
            json!({"skillName": "unit-converter", "resourceName": "zzz"}),
            ToolErrorCode::ResourceNotFound,
            "Error: Resource 'zzz' not found in skill 'unit-converter'.",
        ),
        (
            "run_skill_script",
            json!({"skillName": "nope", "scriptName": "x"}),
            ToolErrorCode::SkillNotFound,
            "Error: Skill 'nope' not found.",
        ),
        (
            "run_skill_script",
            json!({"skillName": "unit-converter", "scriptName": "zzz"}),
            ToolErrorCode::ScriptNotFound,
            "Error: Script 'zzz' not found in skill 'unit-converter'.",
        ),
    ];
    for (tool, arguments, code, message) in cases {
        assert_eq!(
            failure(tool, arguments).await,
            (code, message.to_owned(), false)
        );
    }
}

#[tokio::test]
async fn errors_reach_the_model_as_a_json_object_with_four_fields() {
    let run = run(vec![converter()]).await;
    let output = call(&run, "load_skill", json!({"skillName": "nope"})).await;
    assert!(output.is_error());
    let shown: Value = serde_json::from_str(&output.into_model_text()).unwrap();
    let keys: Vec<&String> = shown.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["error", "message", "hint", "retryable"]);
    assert_eq!(shown["error"], "skill_not_found");
    assert_eq!(shown["message"], "Error: Skill 'nope' not found.");
    assert_eq!(shown["retryable"], false);
    assert!(!shown["hint"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn a_resource_that_cannot_be_read_is_retryable_and_keeps_host_paths_out_of_the_answer() {
    let run = run(vec![converter()]).await;
    let arguments = json!({"skillName": "unit-converter", "resourceName": "references/broken.md"});
    let error = expect_error(call(&run, "read_skill_resource", arguments).await);
    assert_eq!(error.code, ToolErrorCode::ResourceReadFailed);
    assert_eq!(
        error.message,
        "Error: Failed to read resource 'references/broken.md' from skill 'unit-converter'."
    );
    assert!(error.retryable);
    assert!(!error.to_string().contains("/secret/host/path"));
}

#[tokio::test]
async fn a_resource_failure_of_the_skill_own_code_says_what_failed() {
    let run = run(vec![converter()]).await;
    let arguments = json!({"skillName": "unit-converter", "resourceName": "references/odd.md"});
    let error = expect_error(call(&run, "read_skill_resource", arguments).await);
    assert_eq!(error.code, ToolErrorCode::ResourceReadFailed);
    assert_eq!(error.hint, "no such row");
    assert!(!error.retryable);
}

#[tokio::test]
async fn a_failing_script_gives_the_reference_message_and_the_script_error_as_hint() {
    let run = run(vec![converter()]).await;
    let arguments = json!({"skillName": "unit-converter", "scriptName": "scripts/fail.py"});
    let error = expect_error(call(&run, "run_skill_script", arguments).await);
    assert_eq!(error.code, ToolErrorCode::ScriptFailed);
    assert_eq!(
        error.message,
        "Error: Failed to execute script 'scripts/fail.py' from skill 'unit-converter'."
    );
    assert_eq!(
        error.hint,
        "script 'scripts/fail.py' failed: exit status 3: bad unit 'parsec'"
    );
}

#[tokio::test]
async fn arguments_of_the_wrong_shape_are_invalid_arguments() {
    use ToolErrorCode::InvalidArguments;
    let (code, message, _) = failure("load_skill", json!(5)).await;
    assert_eq!(
        (code, message.as_str()),
        (
            InvalidArguments,
            "Error: The arguments of 'load_skill' must be a JSON object."
        )
    );
    let (code, message, _) = failure("load_skill", json!({"skillName": 5})).await;
    assert_eq!(code, InvalidArguments);
    assert!(
        message.starts_with("Error: Invalid arguments for 'load_skill': invalid type: integer `5`"),
        "{message}"
    );
    let arguments =
        json!({"skillName": "unit-converter", "resourceName": "references/table.md", "offset": -1});
    assert_eq!(
        failure("read_skill_resource", arguments).await.0,
        InvalidArguments
    );
}

#[tokio::test]
async fn each_call_has_the_risk_tier_of_what_it_would_run() {
    let skill = TestSkill::new("ops")
        .script_with_risk("scripts/status.sh", skillful_core::RiskTier::Read)
        .script_with_risk("scripts/wipe.sh", skillful_core::RiskTier::Destructive)
        .script("scripts/deploy.sh", None);
    let run = run(vec![Arc::new(skill) as Arc<dyn Skill>]).await;
    let tier = |tool: &str, arguments: Value| run.tool(tool).unwrap().risk_tier(&arguments);
    use skillful_core::RiskTier::*;
    assert_eq!(tier("load_skill", json!({"skillName": "ops"})), Read);
    assert_eq!(
        tier(
            "read_skill_resource",
            json!({"skillName": "ops", "resourceName": "x"})
        ),
        Read
    );
    let script = |name: &str| json!({"skillName": "ops", "scriptName": name});
    assert_eq!(tier("run_skill_script", script("scripts/status.sh")), Read);
    assert_eq!(
        tier("run_skill_script", script("scripts/wipe.sh")),
        Destructive
    );
    // Found as the call finds it: a dropped directory and extension still name the script.
    assert_eq!(tier("run_skill_script", script("wipe")), Destructive);
    assert_eq!(
        tier("run_skill_script", script("scripts/deploy.sh")),
        WriteHigh
    );
    // A name that finds no script runs nothing: the call only fails, listing the scripts.
    assert_eq!(tier("run_skill_script", script("scripts/unknown.sh")), Read);
    assert_eq!(
        tier(
            "run_skill_script",
            json!({"skillName": "no-such-skill", "scriptName": "scripts/status.sh"})
        ),
        Read
    );
    assert_eq!(
        tier("run_skill_script", json!({"skillName": "ops"})),
        WriteHigh
    );
    assert_eq!(tier("run_skill_script", json!("not an object")), WriteHigh);
}
