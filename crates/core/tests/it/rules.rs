//! What a source decides with the core's rules, from the frontmatter a skill gives: whether it
//! loads and with which warnings, the tier of each script, its lifecycle, and which names are
//! safe to read.

use indexmap::IndexMap;
use skillful_core::names::RelativeName;
use skillful_core::validate::{ValidationMode, validate_fields, validate_frontmatter};
use skillful_core::{DeclaredRisk, Lifecycle, Mapping, RiskTier, SkillFrontmatter, Value};

/// The `metadata` of a skill's frontmatter holding `pairs`, in their order.
fn metadata(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
    let mut frontmatter = SkillFrontmatter::new("unit-converter", "Converts units.");
    for (key, value) in pairs {
        frontmatter.metadata.insert((*key).into(), (*value).into());
    }
    frontmatter.metadata
}

#[test]
fn a_violation_warns_when_lenient_and_rejects_when_strict() {
    let mut frontmatter = SkillFrontmatter::new("unit-converter", "Converts units.");
    frontmatter
        .extra
        .insert("version".into(), Value::String("2".into()));

    let lenient = validate_frontmatter(&frontmatter, ValidationMode::Lenient).unwrap();
    let [warning] = lenient.diagnostics.as_slice() else {
        panic!("one warning: {:?}", lenient.diagnostics);
    };
    assert!(
        !warning.is_error() && warning.field == "version",
        "{warning:?}"
    );
    assert_eq!(
        lenient.frontmatter.extra.get("version"),
        Some(&Value::String("2".into()))
    );

    let strict = validate_frontmatter(&frontmatter, ValidationMode::Strict).unwrap_err();
    assert!(
        strict.iter().any(|d| d.is_error() && d.field == "version"),
        "{strict:?}"
    );
}

#[test]
fn a_name_that_is_not_its_directory_s_and_an_empty_description_are_caught() {
    let mut fields = Mapping::new();
    fields.insert("name".into(), Value::String("pdf-forms".into()));
    fields.insert(
        "description".into(),
        Value::String("Fills PDF forms.".into()),
    );

    let strict = validate_fields(&fields, Some("pdf"), ValidationMode::Strict).unwrap_err();
    assert!(strict.iter().any(|d| d.field == "name"), "{strict:?}");
    assert!(validate_fields(&fields, Some("pdf-forms"), ValidationMode::Strict).is_ok());

    // Even leniently a skill without a description does not load.
    fields.insert("description".into(), Value::String(String::new()));
    let lenient = validate_fields(&fields, Some("pdf-forms"), ValidationMode::Lenient);
    assert!(lenient.is_err(), "{lenient:?}");
}

#[test]
fn a_script_s_tier_is_its_own_else_the_skill_s_else_the_default() {
    let declared = metadata(&[
        ("risk", "read"),
        ("risk.scripts/convert.py", "write-low"),
        ("risk.scripts/wipe.sh", "everything"),
        ("risk.scripts/gone.py", "read"),
    ]);
    let (risk, warnings) =
        DeclaredRisk::for_scripts(&declared, ["scripts/convert.py", "scripts/wipe.sh"]);
    assert_eq!(risk.script("scripts/convert.py"), RiskTier::WriteLow);
    assert_eq!(risk.script("scripts/wipe.sh"), RiskTier::Read);
    let fields: Vec<&str> = warnings.iter().map(|w| w.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "metadata.risk.scripts/wipe.sh",
            "metadata.risk.scripts/gone.py"
        ]
    );
    assert!(warnings.iter().all(|w| !w.is_error()));

    let (undeclared, _) = DeclaredRisk::for_scripts(&metadata(&[]), ["scripts/x.py"]);
    assert_eq!(undeclared.script("scripts/x.py"), RiskTier::SCRIPT_DEFAULT);
}

#[test]
fn lifecycle_metadata_is_taken_or_refused_key_by_key() {
    let (kept, errors) = Lifecycle::from_metadata(
        "kept",
        &metadata(&[
            ("version", "2.1.0"),
            ("owner", "data@example.com"),
            ("anti-triggers", "mortgage advice; credit score"),
        ]),
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(kept.version.as_deref(), Some("2.1.0"));
    assert_eq!(kept.owner.as_deref(), Some("data@example.com"));
    assert_eq!(
        kept.excluded_by("Any Mortgage-Advice today?"),
        Some("mortgage advice")
    );

    let (loose, errors) =
        Lifecycle::from_metadata("loose", &metadata(&[("version", "one point two")]));
    assert_eq!(loose.version, None);
    let [error] = errors.as_slice() else {
        panic!("one error: {errors:?}");
    };
    assert_eq!(error.key(), "version");
    assert!(error.to_string().contains("is not a version"), "{error}");
}

#[test]
fn a_name_read_from_outside_cannot_leave_the_skill() {
    for unsafe_name in [
        "../secrets",
        "/etc/passwd",
        "a/../../b",
        "%252e%252e/x",
        "c:x",
    ] {
        assert!(RelativeName::new(unsafe_name).is_err(), "{unsafe_name}");
        let read: Result<RelativeName, _> = serde_json::from_value(unsafe_name.into());
        assert!(read.is_err(), "{unsafe_name}");
    }
    let name: RelativeName = serde_json::from_value("references/FAQ.md".into()).unwrap();
    assert_eq!(
        name.segments().collect::<Vec<_>>(),
        ["references", "FAQ.md"]
    );
}
