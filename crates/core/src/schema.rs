//! The JSON schema of a script's argument type, as the model is shown it.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The JSON schema of `Args` (derived with `schemars`), self-contained (no `$defs`) and without
/// the `$schema` and `title` keys, which only lengthen the prompt.
///
/// Scripts built in code (inline skills, class-skill plugins) show this schema to the model.
///
/// # Example
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Convert {
///     /// The value to convert.
///     value: f64,
/// }
///
/// let schema = skillful_core::arguments_schema::<Convert>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["required"], serde_json::json!(["value"]));
/// assert!(schema.get("title").is_none() && schema.get("$schema").is_none());
/// ```
pub fn arguments_schema<Args: JsonSchema>() -> serde_json::Value {
    let mut schema = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.meta_schema = None;
            settings.inline_subschemas = true;
        })
        .into_generator()
        .into_root_schema_for::<Args>()
        .to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
    }
    schema
}
