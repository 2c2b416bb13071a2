//! Skills built in code whose parts come from elsewhere: scripts over untyped JSON, and skills
//! that say where they came from (what `skillful-plugin-host` builds plugin skills with).

use serde_json::{Value, json};
use skillful_core::{OriginKind, RiskTier, Skill, SkillError, SkillOrigin};
use skillful_inline::{InlineScript, InlineSkill};

fn echo() -> InlineScript {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    InlineScript::from_json("echo", "Echoes.", schema, |arguments: Value| async move {
        Ok(arguments.to_string())
    })
}

#[tokio::test]
async fn a_json_script_gets_the_model_object_as_is_and_null_as_an_empty_object() {
    let skill = InlineSkill::builder("echoes", "Echoes.")
        .instructions("Call echo.")
        .add_script(echo().with_risk_tier(RiskTier::Read))
        .build()
        .unwrap();
    let script = &skill.scripts()[0];
    assert_eq!(
        script.parameters_schema(),
        Some(&json!({"type": "object", "properties": {"text": {"type": "string"}}}))
    );
    assert_eq!(script.risk_tier(), RiskTier::Read);
    assert_eq!(
        script.run(json!({"text": "hi", "extra": 1})).await.unwrap(),
        r#"{"text":"hi","extra":1}"#
    );
    assert_eq!(script.run(Value::Null).await.unwrap(), "{}");
    match script.run(json!(["hi"])).await {
        Err(SkillError::InvalidArguments { script, .. }) => assert_eq!(script, "echo"),
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

#[test]
fn a_skill_given_another_origin_keeps_it() {
    let skill = InlineSkill::builder("echoes", "Echoes.")
        .instructions("Call echo.")
        .add_script(echo())
        .build()
        .unwrap();
    assert_eq!(*skill.origin(), SkillOrigin::inline());
    let origin = SkillOrigin::new(OriginKind::Plugin, "/opt/plugins/libecho.so");
    let skill = skill.with_origin(origin.clone());
    assert_eq!(*skill.origin(), origin);
    assert_eq!(skill.scripts()[0].risk_tier(), RiskTier::SCRIPT_DEFAULT);
}
