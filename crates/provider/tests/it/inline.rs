//! Skills built in code: their content, build errors, scripts and dynamic resources.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skillful_core::{ResourceContent, RiskTier, Skill, SkillError, SkillsSource, SourceContext};
use skillful_inline::{
    InlineResource, InlineScript, InlineSkill, InlineSkillError, InlineSkillsSource,
};
use skillful_provider::{ToolErrorCode, render_skill};

use crate::common::{call, expect_error, expect_text, run};

#[derive(Deserialize, JsonSchema)]
struct Greeting {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Options {
    #[serde(default)]
    loud: bool,
}

fn greeter() -> InlineSkill {
    InlineSkill::builder("greeter", "Greets people & things.")
        .instructions("Say \"hello\" to <name>.")
        .add_resource(
            InlineResource::text("phrases", "Hello!").with_description("Phrases 'to' use"),
        )
        .resource("notes", "none")
        .script(
            "greet",
            "Greets one person.",
            |greeting: Greeting| async move { Ok(format!("Hello, {}!", greeting.name)) },
        )
        .script("shout", " ", |options: Options| async move {
            Ok(if options.loud { "HEY" } else { "hey" }.to_owned())
        })
        .build()
        .unwrap()
}

/// What `load_skill` shows for `skill`.
async fn shown(skill: &InlineSkill) -> String {
    render_skill(skill, &skill.document().await.unwrap())
}

#[tokio::test]
async fn load_skill_shows_a_skill_md_then_resources_then_scripts() {
    assert_eq!(
        shown(&greeter()).await,
        r#"---
name: greeter
description: "Greets people & things."
---
Say "hello" to <name>.

<available_resources>
  <resource name="phrases" description="Phrases &apos;to&apos; use"/>
  <resource name="notes"/>
</available_resources>

<available_scripts>
  <script name="greet" description="Greets one person." risk="write-high">
    <parameters_schema>{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}</parameters_schema>
  </script>
  <script name="shout" risk="write-high">
    <parameters_schema>{"type":"object","properties":{"loud":{"type":"boolean","default":false}}}</parameters_schema>
  </script>
</available_scripts>"#
    );
}

#[tokio::test]
async fn empty_categories_are_self_closing() {
    let skill = InlineSkill::builder("bare", "Nothing else.")
        .instructions("Just this.")
        .build()
        .unwrap();
    assert_eq!(
        shown(&skill).await,
        "---\nname: bare\ndescription: Nothing else.\n---\nJust this.\n\n<available_resources />\n\n<available_scripts />"
    );
}

#[tokio::test]
async fn full_frontmatter_is_written_as_yaml_that_reads_back_the_same() {
    let mut frontmatter = skillful_core::SkillFrontmatter::new("full", "Does: everything");
    frontmatter.license = Some("MIT".into());
    frontmatter.allowed_tools = Some(vec!["Read".into(), "Bash(git:*)".into()]);
    frontmatter.metadata.insert("version".into(), "1.0".into());
    frontmatter.metadata.insert("risk".into(), "read".into());
    let skill = InlineSkill::builder_from(frontmatter.clone())
        .instructions("Go.")
        .build()
        .unwrap();
    let text = shown(&skill).await;
    assert!(
        text.starts_with("---\nname: full\ndescription: \"Does: everything\"\nlicense: MIT\nallowed-tools: [\"Read\",\"Bash(git:*)\"]\nmetadata:\n  version: \"1.0\"\n  risk: read\n---\nGo.\n"),
        "{text}"
    );
    let loaded =
        skillful_frontmatter::FrontmatterLoader::new(skillful_frontmatter::ValidationMode::Strict)
            .load(&text, Some("full"))
            .unwrap();
    assert_eq!(loaded.frontmatter, frontmatter);
}

#[tokio::test]
async fn the_script_schema_is_derived_from_the_argument_type() {
    let skill = greeter();
    let scripts = skill.scripts();
    assert_eq!(scripts[0].name(), "greet");
    assert_eq!(scripts[0].description(), Some("Greets one person."));
    assert_eq!(scripts[1].description(), None);
    assert_eq!(
        scripts[0].parameters_schema(),
        Some(&json!({
            "type": "object",
            "properties": {"name": {"description": "Who to greet.", "type": "string"}},
            "required": ["name"]
        }))
    );
}

#[test]
fn duplicate_and_blank_names_are_refused_at_build() {
    let base = || InlineSkill::builder("s", "S.").instructions("I.");
    let no_op = |_: Options| async { Ok(String::new()) };
    let cases = [
        (
            base().resource("a", "1").resource("a", "2").build(),
            InlineSkillError::DuplicateMember {
                skill: "s".into(),
                kind: "resource",
                name: "a".into(),
            },
        ),
        (
            base().script("x", "", no_op).script("x", "", no_op).build(),
            InlineSkillError::DuplicateMember {
                skill: "s".into(),
                kind: "script",
                name: "x".into(),
            },
        ),
        (
            base().resource(" ", "1").build(),
            InlineSkillError::BlankMemberName {
                skill: "s".into(),
                kind: "resource",
            },
        ),
        (
            base().script("", "", no_op).build(),
            InlineSkillError::BlankMemberName {
                skill: "s".into(),
                kind: "script",
            },
        ),
        (
            InlineSkill::builder("s", "S.").build(),
            InlineSkillError::NoInstructions { skill: "s".into() },
        ),
    ];
    for (built, expected) in cases {
        assert_eq!(built.unwrap_err(), expected);
    }
    // The same name for a resource and a script is fine: they are looked up separately.
    assert!(
        base()
            .resource("x", "1")
            .script("x", "", no_op)
            .build()
            .is_ok()
    );
}

#[tokio::test]
async fn scripts_take_an_object_or_null_for_no_arguments() {
    let skill = greeter();
    let scripts = skill.scripts();
    assert_eq!(
        scripts[0].run(json!({"name": "Ada"})).await.unwrap(),
        "Hello, Ada!"
    );
    assert_eq!(scripts[1].run(Value::Null).await.unwrap(), "hey");
    assert_eq!(scripts[1].run(json!({"loud": true})).await.unwrap(), "HEY");
}

#[tokio::test]
async fn scripts_refuse_anything_but_an_object_with_the_reference_message() {
    let skill = greeter();
    let script = &skill.scripts()[1];
    let cases = [
        (json!("loud"), "String"),
        (json!(3), "Number"),
        (json!(["--loud"]), "Array"),
        (json!(true), "True"),
        (json!(false), "False"),
    ];
    for (arguments, kind) in cases {
        match script.run(arguments).await {
            Err(SkillError::InvalidArguments { script, message }) => {
                assert_eq!(script, "shout");
                assert_eq!(
                    message,
                    format!(
                        "Inline skill scripts expect arguments as a JSON object but received a JSON element of kind '{kind}'."
                    )
                );
            }
            other => panic!("expected invalid arguments, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_object_that_does_not_fit_the_argument_type_is_invalid_arguments() {
    let skill = greeter();
    match skill.scripts()[0].run(json!({"name": 7})).await {
        Err(SkillError::InvalidArguments { script, message }) => {
            assert_eq!(script, "greet");
            assert!(
                message.contains("invalid type: integer `7`, expected a string"),
                "{message}"
            );
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

#[tokio::test]
async fn through_the_tool_wrong_script_arguments_are_invalid_arguments_with_the_reason() {
    let run = run(vec![Arc::new(greeter())]).await;
    let arguments = json!({"skillName": "greeter", "scriptName": "greet", "arguments": "Ada"});
    let error = expect_error(call(&run, "run_skill_script", arguments).await);
    assert_eq!(error.code, ToolErrorCode::InvalidArguments);
    assert_eq!(
        error.message,
        "Error: Failed to execute script 'greet' from skill 'greeter'."
    );
    assert_eq!(
        error.hint,
        "Inline skill scripts expect arguments as a JSON object but received a JSON element of kind 'String'. Pass the arguments the script's parameters_schema describes."
    );
    let arguments =
        json!({"skillName": "greeter", "scriptName": "greet", "arguments": {"name": "Ada"}});
    assert_eq!(
        expect_text(call(&run, "run_skill_script", arguments).await),
        "Hello, Ada!"
    );
}

#[tokio::test]
async fn a_dynamic_resource_is_evaluated_on_every_read() {
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&reads);
    let skill = InlineSkill::builder("clock", "Tells the time.")
        .instructions("Read the time.")
        .dynamic_resource("now", move || {
            let counter = Arc::clone(&counter);
            async move {
                Ok(format!(
                    "read {}",
                    counter.fetch_add(1, Ordering::SeqCst) + 1
                ))
            }
        })
        .build()
        .unwrap();
    assert_eq!(
        reads.load(Ordering::SeqCst),
        0,
        "building or listing must not read"
    );
    shown(&skill).await;
    assert_eq!(
        reads.load(Ordering::SeqCst),
        0,
        "rendering the content must not read"
    );
    let run = run(vec![Arc::new(skill)]).await;
    let arguments = json!({"skillName": "clock", "resourceName": "now"});
    assert_eq!(
        expect_text(call(&run, "read_skill_resource", arguments.clone()).await),
        "read 1"
    );
    assert_eq!(
        expect_text(call(&run, "read_skill_resource", arguments).await),
        "read 2"
    );
}

#[tokio::test]
async fn a_failing_dynamic_resource_reports_its_error() {
    let resource = InlineResource::dynamic("feed", || async {
        Err(SkillError::Other("feed offline".into()))
    });
    let skill = InlineSkill::builder("news", "News.")
        .instructions("Read.")
        .add_resource(resource)
        .build()
        .unwrap();
    let run = run(vec![Arc::new(skill)]).await;
    let error = expect_error(
        call(
            &run,
            "read_skill_resource",
            json!({"skillName": "news", "resourceName": "feed"}),
        )
        .await,
    );
    assert_eq!(error.code, ToolErrorCode::ResourceReadFailed);
    assert_eq!(error.hint, "feed offline");
}

#[tokio::test]
async fn static_resources_read_as_text() {
    let resource = InlineResource::text("r", "fixed");
    assert_eq!(
        skillful_core::SkillResource::read(&resource).await.unwrap(),
        ResourceContent::Text("fixed".into())
    );
}

#[tokio::test]
async fn a_script_built_separately_joins_the_skill() {
    let script = InlineScript::new("echo", "Echoes.", |options: Options| async move {
        Ok(options.loud.to_string())
    });
    let skill = InlineSkill::builder("e", "E.")
        .instructions("I.")
        .add_script(script)
        .build()
        .unwrap();
    assert_eq!(
        skill.scripts()[0].run(json!({"loud": true})).await.unwrap(),
        "true"
    );
}

#[tokio::test]
async fn the_inline_source_offers_its_skills_in_order() {
    let source = InlineSkillsSource::new([
        greeter(),
        InlineSkill::builder("b", "B.")
            .instructions("I.")
            .build()
            .unwrap(),
    ]);
    let skills = source.skills(&SourceContext::default()).await.unwrap();
    let names: Vec<&str> = skills
        .iter()
        .map(|skill| skill.frontmatter().name.as_str())
        .collect();
    assert_eq!(names, ["greeter", "b"]);
    assert_eq!(*skills[0].origin(), skillful_core::SkillOrigin::inline());
}

fn tiered(metadata: &[(&str, &str)]) -> Result<InlineSkill, InlineSkillError> {
    let mut frontmatter = skillful_core::SkillFrontmatter::new("ops", "Operations.");
    for (key, value) in metadata {
        frontmatter
            .metadata
            .insert((*key).to_owned(), (*value).to_owned());
    }
    let script = |name: &str| InlineScript::new(name, "", |_: Options| async { Ok(String::new()) });
    InlineSkill::builder_from(frontmatter)
        .instructions("Run them.")
        .add_script(script("status"))
        .add_script(script("wipe").with_risk_tier(RiskTier::Destructive))
        .add_script(script("deploy"))
        .build()
}

fn script_tiers(skill: &InlineSkill) -> Vec<RiskTier> {
    skill
        .scripts()
        .iter()
        .map(|script| script.risk_tier())
        .collect()
}

#[tokio::test]
async fn inline_scripts_take_their_own_tier_else_the_metadata_tier_and_show_it() {
    let skill = tiered(&[("risk", "write-low"), ("risk.status", "read")]).unwrap();
    assert_eq!(
        script_tiers(&skill),
        [RiskTier::Read, RiskTier::Destructive, RiskTier::WriteLow]
    );
    let content = shown(&skill).await;
    assert!(
        content.contains(r#"<script name="status" risk="read">"#),
        "{content}"
    );
    assert!(content.contains(r#"<script name="wipe" risk="destructive">"#));
    let undeclared = tiered(&[]).unwrap();
    assert_eq!(
        script_tiers(&undeclared),
        [
            RiskTier::WriteHigh,
            RiskTier::Destructive,
            RiskTier::WriteHigh
        ]
    );
}

#[test]
fn inline_risk_metadata_that_is_no_tier_or_names_no_script_warns_and_is_ignored_as_for_files() {
    let skill = tiered(&[("risk", "safe"), ("risk.missing", "read")]).unwrap();
    assert_eq!(
        script_tiers(&skill),
        [
            RiskTier::WriteHigh,
            RiskTier::Destructive,
            RiskTier::WriteHigh
        ]
    );
    let fields: Vec<&str> = skill
        .diagnostics()
        .iter()
        .map(|d| d.field.as_str())
        .collect();
    assert_eq!(fields, ["metadata.risk", "metadata.risk.missing"]);
    assert!(
        skill.diagnostics()[0]
            .message
            .contains("unknown risk tier `safe`")
    );
    assert!(skill.diagnostics().iter().all(|d| !d.is_error()));
}

#[test]
fn inline_frontmatter_goes_through_the_same_validator_as_files() {
    let invalid = InlineSkill::builder("Bad Name", "B.")
        .instructions("I.")
        .validation(skillful_core::validate::ValidationMode::Strict)
        .build()
        .unwrap_err();
    match invalid {
        InlineSkillError::Invalid { skill, diagnostics } => {
            assert_eq!(skill, "Bad Name");
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.field == "name" && d.is_error())
            );
        }
        other => panic!("unexpected error: {other}"),
    }
    let lenient = InlineSkill::builder("Bad Name", "B.")
        .instructions("I.")
        .build()
        .unwrap();
    assert!(lenient.diagnostics().iter().any(|d| d.field == "name"));
    assert!(matches!(
        InlineSkill::builder("", "S.").instructions("I.").build(),
        Err(InlineSkillError::Invalid { .. })
    ));
    assert!(matches!(
        InlineSkill::builder("s", " ").instructions("I.").build(),
        Err(InlineSkillError::Invalid { .. })
    ));
}

#[tokio::test]
async fn an_inline_script_that_runs_too_long_is_abandoned_with_a_timeout() {
    let skill = InlineSkill::builder("slow", "Sleeps.")
        .instructions("Call it.")
        .add_script(
            InlineScript::new("sleep", "", |_: Options| async {
                // A script that hangs, under test: the timeout must abandon it.
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                Ok(String::new())
            })
            .with_timeout(std::time::Duration::from_millis(50)),
        )
        .build()
        .unwrap();
    match skillful_provider::run_script("slow", &*skill.scripts()[0], json!({})).await {
        Err(SkillError::ScriptTimedOut {
            skill,
            script,
            after,
        }) => {
            assert_eq!((skill.as_str(), script.as_str()), ("slow", "sleep"));
            assert_eq!(after, std::time::Duration::from_millis(50));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn through_the_tool_an_inline_script_past_its_limit_is_the_one_timeout_error() {
    let skill = InlineSkill::builder("slow", "Waits.")
        .instructions("Call it.")
        .script_timeout(std::time::Duration::from_millis(300))
        .add_script(InlineScript::new("wait", "", |_: Options| async {
            // A script that hangs, under test: the timeout must abandon it.
            std::future::pending::<()>().await;
            Ok(String::new())
        }))
        .build()
        .unwrap();
    let run = run(vec![Arc::new(skill)]).await;
    let arguments = json!({"skillName": "slow", "scriptName": "wait", "arguments": {}});
    let error = expect_error(call(&run, "run_skill_script", arguments).await);
    assert_eq!(error.code, ToolErrorCode::ScriptFailed);
    assert_eq!(
        error.message,
        "Error: Failed to execute script 'wait' from skill 'slow'."
    );
    assert_eq!(
        error.hint,
        "The script ran out of time (0.3s) and was stopped. Call it with less work at a time, or tell the user it needs a longer limit."
    );
}
